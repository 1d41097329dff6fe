// TcpLro on its own: FreeBSD tcp_lro's queueing at tcp_lro_rx and merging
// at flush time (tcp_lro_condense), packet by packet.
#include <gtest/gtest.h>

#include <vector>

#include "netsim/nic/tcp_lro.h"
#include "receive_path_fixture.h"

namespace netsim {
namespace {

struct Lro {
  PacketPool pool;
  TcpLro lro;
  explicit Lro(TcpLroConfig c = {}) : lro(pool, c) {}
  Packet* make(const Packet& tmpl) { return pool.clone(tmpl); }
  bool rx(const Packet& tmpl) { return lro.rx(make(tmpl)); }
  // What went up, in order (released to the pool).
  std::vector<Packet> out() {
    std::vector<Packet> v;
    while (Packet* p = lro.output().pop()) {
      v.push_back(*p);
      pool.release(p);
    }
    return v;
  }
};

TEST(TcpLro, InOrderSegmentsBecomeOneAggregateAtFlush) {
  Lro t;
  for (std::uint32_t k = 0; k < 5; ++k) EXPECT_TRUE(t.rx(segment(k * kMss, kMss, tcp_flags::kAck, 7 + k)));
  EXPECT_TRUE(t.out().empty());  // nothing goes up before the flush
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload_bytes, 5 * kMss);
  EXPECT_EQ(out[0].segments, 5);
  EXPECT_EQ(out[0].tcp.ts_val, 11u);  // the latest timestamp
  EXPECT_EQ(t.lro.counters().queued, 5u);
  EXPECT_EQ(t.lro.counters().flushed, 1u);
  EXPECT_EQ(t.pool.in_use(), 0u);
}

// lro_length_lim = 65535 - 255 = 65280 payload bytes: 45 x 1448 = 65160 fit,
// the 46th would reach 66608 >= 65280 and starts a new aggregate.
TEST(TcpLro, LengthLimitFlushesBeforeTheSegmentThatWouldReachIt) {
  Lro t;
  for (std::uint32_t k = 0; k < 50; ++k) t.rx(segment(k * kMss, kMss));
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].segments, 45);
  EXPECT_EQ(out[0].payload_bytes, 45 * kMss);
  EXPECT_EQ(out[1].segments, 5);
  EXPECT_EQ(out[1].tcp.seq, 45 * kMss);
}

TEST(TcpLro, AckcntLimitCountsPackets) {
  TcpLroConfig c;
  c.ackcnt_lim = 3;  // a head of 2 plus one more reaches 3: flushed first
  Lro t(c);
  for (std::uint32_t k = 0; k < 5; ++k) t.rx(segment(k * kMss, kMss));
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].segments, 2);
  EXPECT_EQ(out[1].segments, 2);
  EXPECT_EQ(out[2].segments, 1);
}

TEST(TcpLro, AdvancingPureAcksAreAbsorbedWithoutCountingSegments) {
  Lro t;
  t.rx(pure_ack(100, 7, 1000));
  t.rx(pure_ack(200, 8, 1001));
  t.rx(pure_ack(300, 9, 1002));
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tcp.ack, 300u);
  EXPECT_EQ(out[0].tcp.window, 1002u);
  EXPECT_EQ(out[0].tcp.ts_val, 9u);
  EXPECT_EQ(out[0].segments, 1);
  EXPECT_EQ(t.lro.counters().acks_absorbed, 2u);
  EXPECT_EQ(t.lro.counters().queued, 1u);  // lro_nsegs stays 1
}

TEST(TcpLro, DuplicateAcksAreNeverMerged) {
  Lro t;
  t.rx(pure_ack(100));
  t.rx(pure_ack(100));
  t.rx(pure_ack(100));
  t.lro.flush_all();
  EXPECT_EQ(t.out().size(), 3u);
  EXPECT_EQ(t.lro.counters().acks_absorbed, 0u);
}

TEST(TcpLro, SackAckFlushesAndGoesUpOnItsOwn) {
  Lro t;
  Packet sack = pure_ack(200);
  sack.tcp.sack_block_count = 1;
  sack.tcp.sack_blocks[0] = {300, 400};
  t.rx(pure_ack(100));
  t.rx(sack);
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tcp.ack, 100u);
  EXPECT_EQ(out[1].tcp.ack, 200u);
  EXPECT_EQ(out[1].tcp.sack_block_count, 1);
}

TEST(TcpLro, OutOfOrderSegmentFlushesTheAggregate) {
  Lro t;
  for (std::uint32_t k : {0u, 1u, 3u, 4u}) t.rx(segment(k * kMss, kMss));
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].segments, 2);
  EXPECT_EQ(out[1].tcp.seq, 3 * kMss);
  EXPECT_EQ(out[1].segments, 2);
}

TEST(TcpLro, DecreasingTimestampFlushes) {
  Lro t;
  t.rx(segment(0, kMss, tcp_flags::kAck, 10));
  t.rx(segment(kMss, kMss, tcp_flags::kAck, 9));
  t.lro.flush_all();
  EXPECT_EQ(t.out().size(), 2u);
}

TEST(TcpLro, OldPureAckIsDroppedOnArrival) {
  Lro t;
  t.rx(pure_ack(300));
  EXPECT_TRUE(t.rx(pure_ack(200)));
  t.lro.flush_all();
  EXPECT_EQ(t.out().size(), 1u);
  EXPECT_EQ(t.lro.counters().old_acks_dropped, 1u);
  EXPECT_EQ(t.pool.in_use(), 0u);
}

// Eight flows take the eight entries; a ninth is refused (the caller passes
// it up) after tcp_lro_flush_active has flushed the newest entry only.
TEST(TcpLro, EntryExhaustionRefusesTheNinthFlow) {
  Lro t;
  for (std::uint16_t f = 0; f < 8; ++f) {
    EXPECT_TRUE(t.rx(segment(0, kMss, tcp_flags::kAck, 7, static_cast<std::uint16_t>(kSport + f))));
  }
  EXPECT_EQ(t.lro.active(), 8);
  Packet* ninth = t.make(segment(0, kMss, tcp_flags::kAck, 7, kSport + 8));
  EXPECT_FALSE(t.lro.rx(ninth));
  t.pool.release(ninth);
  const auto flushed = t.out();
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(flushed[0].src_port, kSport + 7);
  EXPECT_EQ(t.lro.active(), 7);
  t.lro.flush_all();
  const auto rest = t.out();
  ASSERT_EQ(rest.size(), 7u);
  EXPECT_EQ(rest.front().src_port, kSport + 6);  // newest first
  EXPECT_EQ(rest.back().src_port, kSport);
}

TEST(TcpLro, SynIsRefused) {
  Lro t;
  Packet* syn = t.make(segment(0, 0, tcp_flags::kSyn));
  EXPECT_FALSE(t.lro.rx(syn));
  t.pool.release(syn);
  EXPECT_EQ(t.lro.counters().refused, 1u);
}

TEST(TcpLro, FinTakesItsOwnTurnAfterTheData) {
  Lro t;
  t.rx(segment(0, kMss));
  t.rx(segment(kMss, kMss, tcp_flags::kAck | tcp_flags::kFin));
  t.lro.flush_all();
  const auto out = t.out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].tcp.flags & tcp_flags::kFin, tcp_flags::kFin);
}

TEST(TcpLro, RejectsBadConfig) {
  PacketPool pool;
  TcpLroConfig c;
  c.entries = 0;
  EXPECT_THROW(TcpLro(pool, c), std::invalid_argument);
}

}  // namespace
}  // namespace netsim
