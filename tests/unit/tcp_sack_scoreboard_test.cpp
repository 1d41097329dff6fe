// Unit tests of the SACK scoreboard port (FreeBSD tcp_sack.c @ 2d614aa2, see
// models/include/netsim/tcp/sack_scoreboard.h), driven through the
// connection's tcpcb (tp.snd_holes, tp.snd_numholes, tp.snd_fack, tp.sackhint).
//
// Hand-worked sequences in 1448-byte segments (tcp_maxseg with timestamps);
// seg(k) = base + k * 1448. t_maxseg is 1460, so the IsLost threshold
// (tcprexmtthresh - 1) * t_maxseg is 2920 bytes: two SACKed segments above a
// hole (2896) leave it "not lost", three (4344) make it lost. Every test runs
// at several bases, including ones where the segments wrap past 2^32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "netsim/tcp/sack_scoreboard.h"
#include "netsim/tcp/tcp_seq.h"

namespace netsim::tcp {
namespace {

constexpr std::uint32_t M = 1448;  // tcp_maxseg on the test path

struct Hole {
  tcp_seq start, end, rxmit;
  bool operator==(const Hole&) const = default;
};
void PrintTo(const Hole& h, std::ostream* os) { *os << "[" << h.start << "," << h.end << " rxmit " << h.rxmit << "]"; }

std::vector<Hole> holes_of(const Tcpcb& tp) {
  std::vector<Hole> v;
  for (const sackhole& h : tp.snd_holes) v.push_back({h.start, h.end, h.rxmit});
  return v;
}

// Sum of min(rxmit, end) - start over the holes: what sack_bytes_rexmit should
// be as long as no LRD event or rescue-hole move happened.
int rexmit_in_holes(const Tcpcb& tp) {
  int s = 0;
  for (const sackhole& h : tp.snd_holes) s += static_cast<int>(SEQ_MIN(h.rxmit, h.end) - h.start);
  return s;
}

// The tcpcb the scoreboard tests start from: SACK permitted and LRD on (as
// tcp_newtcpcb sets them with sack.enable = 1 and sack.lrd = 1; the peer
// agreed), sack.revised = 1 (the default sysctl), windows zero, and a peer
// window that never limits a retransmission. t_maxseg 1460, tcp_maxseg()
// 1448 are the tcpcb defaults.
void sack_test_defaults(Tcpcb& tp) {
  tp.t_flags = TF_SACK_PERMIT | TF_LRD;
  tp.snd_cwnd = 0;
  tp.snd_ssthresh = 0;
  tp.snd_wnd = 1u << 30;
}

class SackScoreboardTest : public ::testing::TestWithParam<std::uint32_t> {
 protected:
  void SetUp() override {
    S = GetParam();
    sack_test_defaults(tp);
  }
  // A new tcpcb in place of tp (same storage, so `tp` stays valid).
  void fresh_tcpcb() {
    tcb_.emplace();
    sack_test_defaults(tp);
  }

  tcp_seq seg(int k) const { return S + static_cast<std::uint32_t>(k) * M; }
  sackblk blk(int a, int b) const { return {seg(a), seg(b)}; }
  Hole H(int a, int b) const { return {seg(a), seg(b), seg(a)}; }
  Hole H(int a, int b, tcp_seq rxmit) const { return {seg(a), seg(b), rxmit}; }

  // nsegs full segments outstanding from seg(0).
  void start(int nsegs) { start_on(tp, nsegs); }
  void start_on(Tcpcb& t, int nsegs) const {
    t.snd_una = seg(0);
    t.snd_max = t.snd_nxt = seg(nsegs);
    t.snd_recover = seg(0);
    t.snd_fack = seg(0);
    t.snd_cwnd = 1u << 30;  // tests that look at cwnd set it themselves
  }
  sackstatus_t ack(tcp_seq th_ack, std::initializer_list<sackblk> blocks = {}) {
    const auto r = tcp_sack_doack(tp, std::span<const sackblk>(blocks.begin(), blocks.size()), th_ack);
    EXPECT_EQ(tcp_sack_check_invariants(tp), "");
    return r;
  }
  // process_ACK's part: snd_una moves after the scoreboard and PRR work.
  void advance(tcp_seq th_ack) {
    tp.snd_una = th_ack;
    if (SEQ_LT(tp.snd_nxt, tp.snd_una)) tp.snd_nxt = tp.snd_una;
  }
  void enter_recovery() {
    tp.snd_recover = tp.snd_nxt;
    ENTER_FASTRECOVERY(tp.t_flags);
  }
  // tcp_output sending one SACK retransmission of at most one segment.
  const sackhole* rexmit_one() {
    int sbr = -1;
    const sackhole* p = tcp_sack_output(tp, sbr);
    EXPECT_EQ(sbr, tp.sackhint.sack_bytes_rexmit);
    if (p == nullptr) return nullptr;
    const u_int len = std::min<u_int>(tcp_sack_rxmit_len(tp, *p, sbr), M);
    if (len == 0) return nullptr;
    tcp_output_sack_rxmit(tp, p, len);
    EXPECT_EQ(tcp_sack_check_invariants(tp), "");
    return p;
  }
  int pipe() const { return tcp_compute_pipe(tp); }

  tcp_seq S = 0;
  std::optional<Tcpcb> tcb_{std::in_place};
  Tcpcb& tp = *tcb_;
};

INSTANTIATE_TEST_SUITE_P(Bases, SackScoreboardTest,
                         ::testing::Values(1000u,                        // no wrap
                                           0xFFFFFFFFu - 2u * M,         // wraps inside seg(2)
                                           0u - 200u * M + 17u,          // wraps at seg(200)
                                           0x7FFFFFFFu - 5u * M));       // crosses 2^31

// --- sequence arithmetic ----------------------------------------------------------------

TEST(SackSeqArith, ComparesAcrossTheWrap) {
  EXPECT_TRUE(SEQ_LT(0xFFFFFF00u, 0x00000100u));
  EXPECT_TRUE(SEQ_GT(0x00000100u, 0xFFFFFF00u));
  EXPECT_TRUE(SEQ_LEQ(7u, 7u));
  EXPECT_TRUE(SEQ_GEQ(0u, 0xFFFFFFFFu));
  EXPECT_FALSE(SEQ_LT(0u, 0xFFFFFFFFu));
  EXPECT_EQ(SEQ_MAX(0xFFFFFFF0u, 5u), 5u);
  EXPECT_EQ(SEQ_MIN(0xFFFFFFF0u, 5u), 0xFFFFFFF0u);
  // Exactly 2^31 apart: the difference reads as INT_MIN, so a "looks less" than b both ways.
  EXPECT_TRUE(SEQ_LT(0u, 0x80000000u));
  EXPECT_TRUE(SEQ_LT(0x80000000u, 0u));
}

// --- single hole -------------------------------------------------------------------------

// Segment 0 of 10 is lost; three dupacks SACK 1, 1-2, 1-3; the retransmission
// arrives and the ACK for seg(4) fills the hole.
TEST_P(SackScoreboardTest, SingleHoleCreatedAndFilled) {
  start(10);
  EXPECT_EQ(pipe(), 10 * static_cast<int>(M));

  // dupack 1: new tail hole [0,1) from fack = max(una, th_ack) = seg0 to the block start.
  EXPECT_EQ(ack(seg(0), {blk(1, 2)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1)}));
  EXPECT_EQ(tp.snd_numholes, 1);
  EXPECT_EQ(tp.snd_fack, seg(2));
  EXPECT_EQ(tp.sackhint.last_sack_ack, seg(2));
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 1448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 1448);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);  // one SACKed segment above
  EXPECT_EQ(tp.sackhint.nexthole, tp.snd_holes.first());
  EXPECT_EQ(pipe(), 14480 - 1448);

  // dupack 2: fack advances; 2896 bytes above the hole: still not lost.
  EXPECT_EQ(ack(seg(0), {blk(1, 3)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1)}));
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 2896);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);
  // The RFC 6675 trigger in tcp_input (sacked_bytes > 2 * tcp_maxseg) is not met yet.
  EXPECT_FALSE(tp.sackhint.sacked_bytes > 2 * static_cast<int>(tp.maxseg));
  EXPECT_EQ(pipe(), 14480 - 2896);

  // dupack 3: 4344 > 2920 bytes SACKed above: the hole is lost.
  EXPECT_EQ(ack(seg(0), {blk(1, 4)}), SACK_CHANGE);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 4344);
  EXPECT_EQ(tp.sackhint.lost_bytes, 1448);
  EXPECT_TRUE(tp.sackhint.sacked_bytes > 2 * static_cast<int>(tp.maxseg));
  // pipe = 14480 + 0 - 4344 - 1448 = 8688: segments 4..9.
  EXPECT_EQ(pipe(), 8688);

  // Recovery: retransmit the hole (LRD on: rxmit becomes snd_recover).
  enter_recovery();
  const sackhole* p = rexmit_one();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1, seg(10))}));
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);
  EXPECT_EQ(pipe(), 8688 + 1448);
  EXPECT_EQ(rexmit_one(), nullptr);  // nothing left to retransmit

  // The cumulative ACK for seg(4), no SACK option: the hole is filled.
  // [una, th_ack) acts as a block; without an option the result is NOCHANGE.
  EXPECT_EQ(ack(seg(4)), SACK_NOCHANGE);
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.sackhint.nexthole, nullptr);
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 0);  // 4344 + 1448 - 5792
  EXPECT_EQ(tp.sackhint.hole_bytes, 0);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 0);
  EXPECT_EQ(pipe(), 14480 - 0);  // snd_una not moved yet: FreeBSD's pipe sees the old snd_una
  advance(seg(4));
  EXPECT_EQ(pipe(), 6 * 1448);
}

// IsLost uses t_maxseg (1460), not tcp_maxseg (1448): at most 2920 SACKed
// bytes above a hole keep it "not lost".
TEST_P(SackScoreboardTest, IsLostThresholdIsTwoTMaxseg) {
  start(10);
  EXPECT_EQ(ack(seg(0), {{seg(1), seg(1) + 2920}}), SACK_CHANGE);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);
  EXPECT_EQ(ack(seg(0), {{seg(1), seg(1) + 2921}}), SACK_CHANGE);
  EXPECT_EQ(tp.sackhint.lost_bytes, 1448);

  // With t_maxseg = 1448 the same 2897 bytes would already count as lost
  // (a second connection in the same state, with an empty scoreboard).
  Tcpcb t2;
  sack_test_defaults(t2);
  start_on(t2, 10);
  t2.t_maxseg = 1448;
  const sackblk b[] = {{seg(1), seg(1) + 2897}};
  tcp_sack_doack(t2, b, seg(0));
  EXPECT_EQ(t2.sackhint.lost_bytes, 1448);
}

// A hole is also lost when it has tcprexmtthresh (3) holes/SACK blocks at or
// above it, whatever the byte count.
TEST_P(SackScoreboardTest, IsLostByHoleCount) {
  start(10);
  // Segments 1, 3, 5 arrive: holes [0,1), [2,3), [4,5), one segment above each.
  EXPECT_EQ(ack(seg(0), {blk(5, 6), blk(3, 4), blk(1, 2)}), SACK_NEWLOSS);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1), H(2, 3), H(4, 5)}));
  // [4,5): 1 block, 1448 B -> not lost; [2,3): 2 blocks, 2896 B -> not lost; [0,1): 3rd -> lost.
  EXPECT_EQ(tp.sackhint.lost_bytes, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 3 * 1448);
  EXPECT_EQ(pipe(), 10 * 1448 - 3 * 1448 - 1448);

  // With full segments the count never decides alone (3 holes imply > 2920
  // bytes above); with 100-byte blocks it does: 300 bytes above, third hole.
  Tcpcb t2;  // a second connection in the same state, with an empty scoreboard
  sack_test_defaults(t2);
  start_on(t2, 10);
  const sackblk b[] = {{seg(3), seg(3) + 100}, {seg(2), seg(2) + 100}, {seg(1), seg(1) + 100}};
  EXPECT_EQ(tcp_sack_doack(t2, b, seg(0)), SACK_NEWLOSS);
  ASSERT_EQ(t2.snd_numholes, 3);
  EXPECT_EQ(t2.sackhint.hole_bytes, 1448 + 2 * 1348);
  EXPECT_EQ(t2.sackhint.lost_bytes, 1448);  // only [0,1), by count
}

// --- several holes ------------------------------------------------------------------------------

// Segments 0, 3 and 7 of 20 are lost. One ACK reports three blocks in the
// receiver's order (not sorted): [8,10), [4,7), [1,3).
TEST_P(SackScoreboardTest, MultipleHolesFromOutOfOrderBlocks) {
  start(20);
  EXPECT_EQ(ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)}), SACK_NEWLOSS);  // holes were split
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1), H(3, 4), H(7, 8)}));
  EXPECT_EQ(tp.snd_numholes, 3);
  EXPECT_EQ(tp.snd_fack, seg(10));
  EXPECT_EQ(tp.sackhint.last_sack_ack, seg(10));
  EXPECT_EQ(tp.sackhint.delivered_data, 7 * 1448);  // segments 1,2,4,5,6,8,9
  EXPECT_EQ(tp.sackhint.sacked_bytes, 7 * 1448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 3 * 1448);
  // [7,8) has 2 segments above (not lost); [3,4) has 5; [0,1) has 7.
  EXPECT_EQ(tp.sackhint.lost_bytes, 2 * 1448);
  EXPECT_EQ(tp.sackhint.nexthole, tp.snd_holes.first());
  // pipe = 20 - 7 sacked - 2 lost = 11 segments.
  EXPECT_EQ(pipe(), 11 * 1448);

  // The same ACK again: nothing new.
  EXPECT_EQ(ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)}), SACK_NOCHANGE);
  EXPECT_EQ(tp.sackhint.delivered_data, 0);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 7 * 1448);
  EXPECT_EQ(tp.sackhint.lost_bytes, 2 * 1448);
}

// A new hole appended at the tail is SACK_CHANGE (only a split, a rescue-hole
// move or dismissed SACK data is SACK_NEWLOSS); a repeat is SACK_NOCHANGE.
TEST_P(SackScoreboardTest, NewTailHoleIsChangeNotNewloss) {
  start(20);
  ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)});
  // Segment 10 is lost too, segment 11 arrives.
  EXPECT_EQ(ack(seg(0), {blk(11, 12), blk(8, 10), blk(4, 7)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1), H(3, 4), H(7, 8), H(10, 11)}));
  EXPECT_EQ(tp.snd_fack, seg(12));
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 8 * 1448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 4 * 1448);
  // [10,11): 1 seg above, not lost; [7,8): 3 segs above (4344 > 2920), lost.
  EXPECT_EQ(tp.sackhint.lost_bytes, 3 * 1448);

  EXPECT_EQ(ack(seg(0), {blk(11, 12), blk(8, 10), blk(4, 7)}), SACK_NOCHANGE);
  EXPECT_EQ(tp.sackhint.delivered_data, 0);
  EXPECT_EQ(tp.sackhint.lost_bytes, 3 * 1448);
}

TEST_P(SackScoreboardTest, AckWithoutBlocks) {
  start(10);
  // No holes, no option: nothing is touched.
  tp.sackhint.sacked_bytes = 77;
  EXPECT_EQ(ack(seg(2)), SACK_NOCHANGE);
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.sackhint.sacked_bytes, 77);
  EXPECT_FALSE(tcp_is_sack_recovery(tp, false));  // tcp_input would zero sacked_bytes instead
  EXPECT_TRUE(tcp_is_sack_recovery(tp, true));
  tp.t_flags &= ~TF_SACK_PERMIT;
  EXPECT_FALSE(tcp_is_sack_recovery(tp, true));
}

TEST_P(SackScoreboardTest, DsackAndInvalidBlocks) {
  start(10);
  advance(seg(3));
  // [1,2) is at or below th_ack: a DSACK, recorded, not applied.
  EXPECT_EQ(ack(seg(3), {blk(1, 2)}), SACK_NOCHANGE);
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.t_dsack_pack, 1u);
  EXPECT_EQ(tp.t_dsack_bytes, 1448u);
  EXPECT_EQ(tp.sack_stats.dsack_count, 1u);
  // Beyond snd_max, straddling th_ack, empty: neither valid nor DSACK.
  EXPECT_EQ(ack(seg(3), {blk(9, 11), blk(2, 5), {seg(5), seg(5)}}), SACK_NOCHANGE);
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.t_dsack_pack, 1u);
  // A valid block next to a DSACK.
  EXPECT_EQ(ack(seg(3), {blk(5, 6), blk(0, 1)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(3, 5)}));
  EXPECT_EQ(tp.t_dsack_pack, 2u);
}

// Blocks are sorted by their end, and the highest end drives snd_fack, also
// when (misbehaving) blocks overlap.
TEST_P(SackScoreboardTest, OverlappingBlocksSortedByEnd) {
  start(10);
  EXPECT_EQ(ack(seg(0), {blk(1, 5), blk(2, 3)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1)}));
  EXPECT_EQ(tp.snd_fack, seg(5));
  EXPECT_EQ(tp.sackhint.last_sack_ack, seg(5));
}

TEST_P(SackScoreboardTest, MoreThanFourBlocksThrows) {
  start(20);
  const sackblk b[5] = {blk(1, 2), blk(3, 4), blk(5, 6), blk(7, 8), blk(9, 10)};
  EXPECT_THROW(tcp_sack_doack(tp, b, seg(0)), std::invalid_argument);
  EXPECT_NO_THROW(tcp_sack_doack(tp, std::span<const sackblk>(b, 4), seg(0)));
}

// --- retransmission ---------------------------------------------------------------------------------

TEST_P(SackScoreboardTest, SackOutputWalksHoles) {
  start(20);
  tp.t_flags &= ~TF_LRD;
  ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)});
  ack(seg(0), {blk(11, 12), blk(8, 10), blk(4, 7)});
  enter_recovery();  // snd_recover = seg(20)
  tp.snd_cwnd = 100 * M;

  int sbr = -1;
  const sackhole* p = tcp_sack_output(tp, sbr);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->start, seg(0));
  EXPECT_EQ(sbr, 0);
  // A partial retransmission of 1000 bytes leaves the hint on the same hole.
  tcp_output_sack_rxmit(tp, p, 1000);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1000);
  EXPECT_EQ(tcp_sack_output(tp, sbr), p);
  EXPECT_EQ(sbr, 1000);
  EXPECT_EQ(tcp_sack_rxmit_len(tp, *p, sbr), 448u);
  tcp_output_sack_rxmit(tp, p, 448);
  EXPECT_EQ(p->rxmit, seg(1));  // LRD off: rxmit stops at end

  const tcp_seq expect_start[] = {seg(3), seg(7), seg(10)};
  int sent = 1448;
  for (tcp_seq s : expect_start) {
    p = tcp_sack_output(tp, sbr);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->start, s);
    EXPECT_EQ(sbr, sent);
    EXPECT_EQ(tp.sackhint.nexthole, p);
    tcp_output_sack_rxmit(tp, p, 1448);
    sent += 1448;
  }
  EXPECT_EQ(tcp_sack_output(tp, sbr), nullptr);
  EXPECT_EQ(sbr, 4 * 1448);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, rexmit_in_holes(tp));
  // The hint stays on the last hole once nothing is left.
  EXPECT_EQ(tp.sackhint.nexthole->start, seg(10));
  // pipe = 20 - 8 sacked - 3 lost + 4 retransmitted = 13 segments.
  EXPECT_EQ(pipe(), 13 * 1448);

  // A failed send is backed out.
  tcp_output_sack_rxmit_error(tp, tp.snd_holes.last(), 1448);
  EXPECT_EQ(tp.snd_holes.last()->rxmit, seg(10));
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 3 * 1448);
  // A hole of another connection is refused.
  Tcpcb other;
  EXPECT_THROW(tcp_output_sack_rxmit(other, tp.snd_holes.first(), 1), std::invalid_argument);
}

TEST_P(SackScoreboardTest, RexmitLengthLimits) {
  start(20);
  ack(seg(0), {blk(5, 6)});  // hole [0,5)
  enter_recovery();
  tp.snd_cwnd = 10 * M;
  const sackhole& h = *tp.snd_holes.first();
  EXPECT_EQ(tcp_sack_rxmit_len(tp, h, 0), 5 * M);    // whole hole
  EXPECT_EQ(tcp_sack_rxmit_len(tp, h, 9 * M), M);    // cwnd - rexmitted
  EXPECT_EQ(tcp_sack_rxmit_len(tp, h, 11 * M), 0u);  // negative window
  tp.snd_wnd = 2 * M;
  EXPECT_EQ(tcp_sack_rxmit_len(tp, h, 0), 2 * M);  // peer window
  tp.snd_wnd = 1u << 30;
  tp.snd_recover = seg(2);  // hole reaches beyond snd_recover: only [rxmit, snd_recover)
  EXPECT_EQ(tcp_sack_rxmit_len(tp, h, 0), 2 * M);
  tp.snd_recover = seg(0);
  EXPECT_EQ(tcp_sack_rxmit_len(tp, h, 0), 0u);
}

// The retransmission of the first hole arrives: the cumulative ACK removes the
// hole and takes its bytes out of sack_bytes_rexmit.
TEST_P(SackScoreboardTest, AckOfRetransmittedHole) {
  start(20);
  tp.t_flags &= ~TF_LRD;
  ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)});
  ack(seg(0), {blk(11, 12), blk(8, 10), blk(4, 7)});
  enter_recovery();
  rexmit_one();  // [0,1)
  rexmit_one();  // [3,4)
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 2 * 1448);

  EXPECT_EQ(ack(seg(3), {blk(4, 7), blk(8, 10), blk(11, 12)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(3, 4, seg(4)), H(7, 8), H(10, 11)}));
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 6 * 1448);  // 8 + 1 - 3
  EXPECT_EQ(tp.sackhint.hole_bytes, 3 * 1448);
  EXPECT_EQ(tp.sackhint.lost_bytes, 2 * 1448);  // [10,11) not lost
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);
  // Before snd_una moves: 20 + 1 - 6 - 2 = 13 segments; after: 17 + 1 - 6 - 2 = 10.
  EXPECT_EQ(pipe(), 13 * 1448);
  advance(seg(3));
  EXPECT_EQ(pipe(), 10 * 1448);

  // A cumulative ACK ending inside a hole moves its start (1000 of the 1448
  // retransmitted bytes acknowledged).
  EXPECT_EQ(ack(seg(3) + 1000), SACK_NOCHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{{seg(3) + 1000, seg(4), seg(4)}, H(7, 8), H(10, 11)}));
  EXPECT_EQ(tp.sackhint.delivered_data, 1000);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 6 * 1448);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 2 * 1448 + 448);
}

// A SACK covering the end of a partly retransmitted hole: the hole shrinks
// from the right past rxmit. With LRD rxmit becomes snd_recover, without it
// rxmit = end.
TEST_P(SackScoreboardTest, TrimFromRightMarksLrd) {
  for (bool lrd : {true, false}) {
    SCOPED_TRACE(lrd ? "LRD on" : "LRD off");
    fresh_tcpcb();
    if (!lrd) tp.t_flags &= ~TF_LRD;
    start(10);
    ack(seg(0), {blk(3, 4)});  // hole [0,3)
    enter_recovery();          // snd_recover = seg(10)
    rexmit_one();
    rexmit_one();  // rxmit = seg(2)
    EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 2 * 1448);

    EXPECT_EQ(ack(seg(0), {blk(1, 4)}), SACK_CHANGE);
    EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1, lrd ? seg(10) : seg(1))}));
    EXPECT_EQ(tp.sackhint.delivered_data, 2 * 1448);
    EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);
    EXPECT_EQ(tp.sackhint.lost_bytes, 1448);
  }
}

// A block inside a partly retransmitted hole splits it; the right part
// inherits rxmit.
TEST_P(SackScoreboardTest, SplitKeepsRxmit) {
  start(10);
  ack(seg(0), {blk(4, 5)});  // hole [0,4)
  enter_recovery();
  for (int i = 0; i < 3; ++i) rexmit_one();  // rxmit = seg(3)
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 3 * 1448);

  EXPECT_EQ(ack(seg(0), {blk(1, 2), blk(4, 5)}), SACK_NEWLOSS);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1, seg(10)), H(2, 4, seg(3))}));
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 2 * 1448);  // seg 0 and seg 2 retransmitted, still in holes
  EXPECT_EQ(tp.sackhint.sacked_bytes, 2 * 1448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 3 * 1448);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);  // [0,1): 2896 B and 2 holes above: not lost
  // The hint was the left part; it is done, so output moves to [2,4) at rxmit seg(3).
  int sbr = 0;
  const sackhole* p = tcp_sack_output(tp, sbr);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->start, seg(2));
  EXPECT_EQ(p->rxmit, seg(3));
}

// --- partial ACK and rescue retransmission ------------------------------------------------------

TEST_P(SackScoreboardTest, PartialAckCwnd) {
  start(20);
  ack(seg(0), {blk(4, 5), blk(1, 3)});  // holes [0,1), [3,4)
  enter_recovery();                     // snd_recover = seg(20)
  tp.snd_ssthresh = 10 * M;
  rexmit_one();
  rexmit_one();
  tp.snd_nxt = tp.snd_max = seg(22);  // two new segments sent during recovery

  // Partial ACK of one segment without SACK option.
  EXPECT_EQ(ack(seg(1)), SACK_NOCHANGE);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);
  tcp_sack_partialack(tp, seg(1));
  // 1448 (rexmit) + 2896 (snd_nxt - snd_recover) + 1 * 1448
  EXPECT_EQ(tp.snd_cwnd, 4 * M);
  EXPECT_TRUE(tp.t_flags & TF_ACKNOW);
  EXPECT_EQ(tp.snd_numholes, 1);  // no rescue hole: the scoreboard is not empty
  tp.snd_ssthresh = 3 * M;
  tcp_sack_partialack(tp, seg(1));
  EXPECT_EQ(tp.snd_cwnd, 3 * M);  // capped at ssthresh
  tp.snd_ssthresh = 10 * M;
  tcp_sack_partialack(tp, seg(3));  // (th_ack - snd_una) / maxseg = 3 >= 2: two segments
  EXPECT_EQ(tp.snd_cwnd, 5 * M);
  tcp_sack_partialack(tp, seg(2));  // exactly 2: two segments
  EXPECT_EQ(tp.snd_cwnd, 5 * M);
  tcp_sack_partialack(tp, seg(2) - 1);  // 2895 bytes: one segment
  EXPECT_EQ(tp.snd_cwnd, 4 * M);
}

// The tail of the window is lost and nothing follows: a partial ACK without
// SACK blocks leaves the scoreboard empty, so tcp_sack_partialack adds the
// RFC 6675 rescue hole (one segment below snd_recover).
TEST_P(SackScoreboardTest, RescueRetransmission) {
  start(20);
  ack(seg(0), {blk(1, 3)});  // hole [0,1); segments 3..19 lost
  enter_recovery();          // snd_recover = seg(20)
  tp.snd_ssthresh = 10 * M;
  rexmit_one();

  EXPECT_EQ(ack(seg(3)), SACK_NOCHANGE);
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  tcp_sack_partialack(tp, seg(3));
  EXPECT_EQ(tp.snd_cwnd, 2 * M);  // 0 + 0 + 2 segments (3 segments acked)
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(19, 20)}));
  EXPECT_EQ(tp.snd_fack, seg(3));
  EXPECT_EQ(tp.sackhint.hole_bytes, 1448);
  advance(seg(3));

  // The rescue hole is the next retransmission.
  const sackhole* p = rexmit_one();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->start, seg(19));
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);

  // The receiver SACKs the rescue segment: the rescue hole is moved left to
  // [fack, block start) with rxmit reset; SACK_NEWLOSS. sack_bytes_rexmit is
  // not corrected for the move (as in the source).
  EXPECT_EQ(ack(seg(3), {blk(19, 20)}), SACK_NEWLOSS);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(3, 19)}));
  EXPECT_EQ(tp.snd_fack, seg(20));
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 1448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 16 * 1448);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);
}

TEST_P(SackScoreboardTest, RescueExcludesFinAndNeedsRevisedSack) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    fresh_tcpcb();
    start(20);
    if (variant == 1) {
      tp.snd_max = tp.snd_nxt = seg(20) + 1;  // FIN sent after the data
      tp.t_flags |= TF_SENTFIN;
    }
    if (variant == 2) tp.sysctl.tcp_do_newsack = 0;
    tp.snd_ssthresh = 10 * M;
    ack(seg(0), {blk(1, 3)});
    enter_recovery();
    rexmit_one();
    ack(seg(3));
    tcp_sack_partialack(tp, seg(3));
    if (variant == 2)
      EXPECT_TRUE(tp.snd_holes.empty());
    else
      EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(19, 20)}));  // min(snd_max - FIN, snd_recover)
  }
}

// --- LRD -----------------------------------------------------------------------------------------

// Segment 0 is lost, retransmitted (rxmit := snd_recover = seg 10), and the
// retransmission is lost too. New data seg 10, 11 is sent in recovery; the
// SACK for seg 10 (above snd_recover) reveals the lost retransmission.
TEST_P(SackScoreboardTest, LostRetransmissionDetected) {
  start(10);
  ack(seg(0), {blk(1, 2)});
  ack(seg(0), {blk(1, 3)});
  ack(seg(0), {blk(1, 4)});
  enter_recovery();
  EXPECT_EQ(tp.snd_recover, seg(10));
  ASSERT_NE(rexmit_one(), nullptr);
  EXPECT_EQ(tp.snd_holes.first()->rxmit, seg(10));
  tp.snd_nxt = tp.snd_max = seg(12);

  for (int k = 5; k <= 10; ++k) {
    EXPECT_EQ(ack(seg(0), {blk(1, k)}), SACK_CHANGE);
    EXPECT_FALSE(tcp_sack_lost_retransmission(tp)) << k;  // fack <= snd_recover
  }
  EXPECT_EQ(ack(seg(0), {blk(1, 11)}), SACK_CHANGE);
  {
    // Not in recovery: nothing is detected and nothing changes.
    const u_int saved_flags = tp.t_flags;
    const std::vector<Hole> before = holes_of(tp);
    const sackhole* const hint = tp.sackhint.nexthole;
    EXIT_RECOVERY(tp.t_flags);
    EXPECT_FALSE(tcp_sack_lost_retransmission(tp));
    EXPECT_EQ(holes_of(tp), before);
    EXPECT_EQ(tp.sackhint.nexthole, hint);
    EXPECT_EQ(tp.sack_stats.sack_lostrexmt, 0u);
    tp.t_flags = saved_flags;
  }

  EXPECT_TRUE(tcp_sack_lost_retransmission(tp));
  EXPECT_EQ(tp.sack_stats.sack_lostrexmt, 1u);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1)}));  // rxmit back to start
  EXPECT_EQ(tp.sackhint.nexthole, tp.snd_holes.first());
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 1448);  // not reduced, as in the source
  // The caller's part (cwnd, EXIT_RECOVERY, CC_NDUPACK, recover_fs) is not done here.
  EXPECT_TRUE(IN_FASTRECOVERY(tp.t_flags));
  int sbr = 0;
  const sackhole* p = tcp_sack_output(tp, sbr);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->start, seg(0));
  EXPECT_EQ(p->rxmit, seg(0));
  // Detected once: the hole is not marked completely retransmitted any more.
  EXPECT_FALSE(tcp_sack_lost_retransmission(tp));
}

// Only holes whose retransmission is complete (rxmit >= end) and at or below
// snd_fack are reset.
TEST_P(SackScoreboardTest, LostRetransmissionResetsOnlyCompletedHoles) {
  start(30);
  ack(seg(0), {blk(9, 10), blk(5, 6), blk(1, 2)});  // holes [0,1) [2,5) [6,9)
  enter_recovery();                                  // snd_recover = seg(30)
  rexmit_one();                                      // [0,1) done -> rxmit seg(30)
  rexmit_one();                                      // [2,5) one of three segments
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1, seg(30)), H(2, 5, seg(3)), H(6, 9)}));
  tp.snd_nxt = tp.snd_max = seg(32);
  EXPECT_EQ(ack(seg(0), {blk(9, 31)}), SACK_CHANGE);
  EXPECT_TRUE(tcp_sack_lost_retransmission(tp));
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1), H(2, 5, seg(3)), H(6, 9)}));
}

// --- RTO ---------------------------------------------------------------------------------------------

TEST_P(SackScoreboardTest, RtoFirstResendsLaterFrees) {
  start(20);
  ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)});
  enter_recovery();
  rexmit_one();
  rexmit_one();
  tp.sackhint.prr_out = 5;
  tp.sackhint.prr_delivered = 6;
  tp.sackhint.recover_fs = 7;
  ASSERT_EQ(tp.sackhint.sack_bytes_rexmit, 2 * 1448);

  tp.t_rxtshift = 1;
  tcp_sack_timer_rexmt(tp);  // first RTO: keep, resend everything
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1), H(3, 4), H(7, 8)}));
  EXPECT_EQ(tp.sackhint.nexthole, tp.snd_holes.first());
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 0);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 7 * 1448);
  EXPECT_EQ(tp.sackhint.hole_bytes, 3 * 1448);
  EXPECT_EQ(tcp_sack_check_invariants(tp), "");

  // After an RTO snd_nxt = snd_una; tcp_output's tcp_sack_adjust skips SACKed data.
  tp.snd_nxt = tp.snd_una;
  tcp_sack_adjust(tp);
  EXPECT_EQ(tp.snd_nxt, seg(0));

  tp.t_rxtshift = 2;
  tcp_sack_timer_rexmt(tp);  // later RTOs: free
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.snd_numholes, 0);
  EXPECT_EQ(tp.sackhint.nexthole, nullptr);
  EXPECT_EQ(tp.sackhint.sack_bytes_rexmit, 0);
  EXPECT_EQ(tp.sackhint.delivered_data, 0);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 0);
  EXPECT_EQ(tp.sackhint.hole_bytes, 0);
  EXPECT_EQ(tp.sackhint.lost_bytes, 0);
  EXPECT_EQ(tp.sackhint.prr_out, 5u);  // PRR state is not the scoreboard's to clear
  EXPECT_EQ(tp.sackhint.prr_delivered, 6u);
  EXPECT_EQ(tp.sackhint.recover_fs, 7u);
  EXPECT_EQ(tcp_sack_check_invariants(tp), "");

  // The next SACK rebuilds from fack = max(snd_una, th_ack).
  EXPECT_EQ(ack(seg(2), {blk(5, 6)}), SACK_CHANGE);
  EXPECT_EQ(holes_of(tp), (std::vector<Hole>{H(2, 5)}));
  EXPECT_EQ(tp.sackhint.sacked_bytes, 1448);
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);  // the cumulative part is not counted without holes
}

TEST_P(SackScoreboardTest, SackAdjust) {
  start(20);
  ack(seg(0), {blk(11, 12), blk(8, 10), blk(4, 7)});
  ack(seg(0), {blk(1, 3)});
  ASSERT_EQ(holes_of(tp), (std::vector<Hole>{H(0, 1), H(3, 4), H(7, 8), H(10, 11)}));
  ASSERT_EQ(tp.snd_fack, seg(12));
  const std::pair<int, int> cases[] = {{0, 0}, {1, 3}, {2, 3}, {3, 3}, {4, 7}, {6, 7}, {8, 10}, {11, 12}, {15, 15}};
  for (auto [from, to] : cases) {
    tp.snd_nxt = seg(from);
    tcp_sack_adjust(tp);
    EXPECT_EQ(tp.snd_nxt, seg(to)) << "from segment " << from;
  }
  tp.snd_nxt = seg(3) + 100;  // inside a hole: unchanged
  tcp_sack_adjust(tp);
  EXPECT_EQ(tp.snd_nxt, seg(3) + 100);
}

// --- pipe forms -----------------------------------------------------------------------------------------

TEST_P(SackScoreboardTest, PipeRevisedAndLegacy) {
  start(20);
  ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)});
  enter_recovery();
  rexmit_one();
  // Revised: 20 - 7 sacked - 2 lost + 1 retransmitted = 12 segments.
  EXPECT_EQ(pipe(), 12 * 1448);
  // Legacy: (snd_nxt - snd_fack) + sack_bytes_rexmit = 10 + 1 segments.
  tp.sysctl.tcp_do_newsack = 0;
  EXPECT_EQ(pipe(), 11 * 1448);
}

// Without sack.revised tcp_sack_output refuses a hole that does not lie below
// snd_fack (only the rescue hole does).
TEST_P(SackScoreboardTest, LegacySackOutputRejectsHoleAtFack) {
  start(20);
  ack(seg(0), {blk(1, 3)});
  enter_recovery();
  tp.snd_ssthresh = 10 * M;
  rexmit_one();
  ack(seg(3));
  tcp_sack_partialack(tp, seg(3));  // rescue hole [19,20), fack = seg(3)
  ASSERT_EQ(tp.snd_numholes, 1);
  int sbr = 0;
  EXPECT_NE(tcp_sack_output(tp, sbr), nullptr);
  tp.sysctl.tcp_do_newsack = 0;
  EXPECT_EQ(tcp_sack_output(tp, sbr), nullptr);
}

// A full ACK beyond snd_fack while holes exist: FreeBSD counts th_ack - snd_una
// into delivered_data and then the filled holes again. Pinned as in the source.
TEST_P(SackScoreboardTest, FullAckBeyondFackCountsAsInSource) {
  start(10);
  ack(seg(0), {blk(1, 4)});  // hole [0,1), fack seg(4), 3 segments sacked
  EXPECT_EQ(ack(seg(10)), SACK_NOCHANGE);
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.snd_fack, seg(10));
  EXPECT_EQ(tp.sackhint.delivered_data, 11 * 1448);  // 10 (una..th_ack) + 1 (the hole)
  EXPECT_EQ(tp.sackhint.sacked_bytes, 4 * 1448);     // 3 + 11 - 10; reset by the next ACK's processing
}

// --- limits ---------------------------------------------------------------------------------------------

TEST_P(SackScoreboardTest, MaxHolesLimit) {
  start(400);
  EXPECT_EQ(tp.snd_holes.maxholes(), 128);
  for (int i = 0; i < 128; ++i) {
    // Every other segment arrives: each ACK appends hole [2i, 2i+1).
    ASSERT_EQ(ack(seg(0), {blk(2 * i + 1, 2 * i + 2)}), SACK_CHANGE) << i;
  }
  EXPECT_EQ(tp.snd_numholes, 128);
  EXPECT_EQ(tp.sackhint.hole_bytes, 128 * 1448);
  EXPECT_EQ(tp.sackhint.sacked_bytes, 128 * 1448);
  EXPECT_EQ(tp.snd_fack, seg(256));
  EXPECT_EQ(tp.sack_stats.sack_sboverflow, 0u);

  // Full: a block wholly beyond fack is dropped.
  EXPECT_EQ(ack(seg(0), {blk(257, 258)}), SACK_NOCHANGE);
  EXPECT_EQ(tp.snd_numholes, 128);
  EXPECT_EQ(tp.sack_stats.sack_sboverflow, 1u);
  EXPECT_EQ(tp.snd_fack, seg(256));
  EXPECT_EQ(tp.sackhint.delivered_data, 0);

  // Full, and a lower block straddles fack: fack moves to its end and the
  // SACKed data above is dismissed (SACK_NEWLOSS).
  EXPECT_EQ(ack(seg(0), {blk(258, 259), blk(255, 257)}), SACK_NEWLOSS);
  EXPECT_EQ(tp.sack_stats.sack_sboverflow, 2u);
  EXPECT_EQ(tp.snd_fack, seg(257));
  EXPECT_EQ(tp.sackhint.delivered_data, 1448);
  EXPECT_EQ(tp.snd_numholes, 128);

  // A hole freed by a cumulative ACK makes room again.
  EXPECT_EQ(ack(seg(2)), SACK_NOCHANGE);
  advance(seg(2));
  EXPECT_EQ(tp.snd_numholes, 127);
  EXPECT_EQ(ack(seg(2), {blk(258, 259)}), SACK_CHANGE);
  EXPECT_EQ(tp.snd_numholes, 128);
  EXPECT_EQ(tp.snd_holes.last()->start, seg(257));
  EXPECT_EQ(tp.snd_holes.last()->end, seg(258));

  // A smaller limit (net.inet.tcp.sack.maxholes) works the same way.
  Tcpcb t2(2);
  sack_test_defaults(t2);
  EXPECT_EQ(t2.snd_holes.maxholes(), 2);
  t2.snd_una = t2.snd_fack = seg(0);
  t2.snd_max = t2.snd_nxt = seg(20);
  const sackblk b[] = {blk(5, 6), blk(3, 4), blk(1, 2)};
  EXPECT_EQ(tcp_sack_doack(t2, b, seg(0)), SACK_NEWLOSS);
  EXPECT_EQ(t2.snd_numholes, 2);
  EXPECT_EQ(t2.sack_stats.sack_sboverflow, 1u);
  EXPECT_EQ(tcp_sack_check_invariants(t2), "");
}

// The scoreboard is part of the tcpcb, which is not copyable (t_ccv.tp and
// sackhint.nexthole point into it). Two connections' scoreboards are
// independent: the same ACK builds the same holes in each one's own pool,
// and a later ACK on one leaves the other alone.
static_assert(!std::is_copy_constructible_v<Tcpcb> && !std::is_copy_assignable_v<Tcpcb>);
TEST_P(SackScoreboardTest, ConnectionsAreIndependent) {
  start(20);
  Tcpcb other;
  sack_test_defaults(other);
  start_on(other, 20);
  const sackblk b[] = {blk(8, 10), blk(4, 7), blk(1, 3)};
  ack(seg(0), {blk(8, 10), blk(4, 7), blk(1, 3)});
  tcp_sack_doack(other, b, seg(0));
  EXPECT_EQ(holes_of(other), holes_of(tp));
  EXPECT_NE(other.snd_holes.pool_data(), tp.snd_holes.pool_data());
  ack(seg(4), {blk(8, 10), blk(4, 7)});
  EXPECT_EQ(other.snd_numholes, 3);
  EXPECT_EQ(tcp_sack_check_invariants(other), "");
  EXPECT_EQ(tp.snd_numholes, 1);
}

// --- randomized: reference model and allocation check -----------------------------------------------------

// A segment-level sender/receiver: random losses (and reordering), a receiver
// reporting up to three SACK blocks (the one holding the newest segment first),
// SACK retransmissions walked with tcp_sack_output, and an RTO (first one:
// resend the holes) when nothing is left to retransmit. After every ACK the
// scoreboard must equal what the sender has been told: holes are the runs of
// never-SACKed/ACKed segments in [th_ack, highest SACKed end); hole_bytes,
// sacked_bytes, sack_bytes_rexmit and lost_bytes (RFC 6675 IsLost with
// FreeBSD's counting) agree; the hole pool is never reallocated.
struct RandomRunStats {
  int acks = 0, max_holes = 0, rtos = 0, rexmits = 0;
};
void run_random(tcp_seq S, std::uint32_t seed, int N, unsigned loss_permille, bool reorder, RandomRunStats& st) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " N " << N << " loss " << loss_permille);
  std::mt19937 rng(seed);
  auto chance = [&](unsigned permille) { return rng() % 1000u < permille; };
  auto seg = [&](int k) { return S + static_cast<std::uint32_t>(k) * M; };

  Tcpcb tp;
  sack_test_defaults(tp);
  tp.t_flags = TF_SACK_PERMIT | TF_FASTRECOVERY;  // LRD off: rxmit stays within the holes
  tp.snd_una = tp.snd_fack = seg(0);
  tp.snd_max = tp.snd_nxt = tp.snd_recover = seg(N);
  tp.snd_cwnd = 1u << 30;
  const void* const pool0 = tp.snd_holes.pool_data();
  const std::size_t cap0 = tp.snd_holes.pool_capacity();

  std::vector<char> rcvd(static_cast<std::size_t>(N), 0), known(static_cast<std::size_t>(N), 0);
  int rcv_nxt = 0, known_end = 0, acks = 0;

  auto check = [&](bool check_sacked) {
    ASSERT_EQ(tcp_sack_check_invariants(tp), "");
    ASSERT_EQ(tp.snd_holes.pool_data(), pool0);
    ASSERT_EQ(tp.snd_holes.pool_capacity(), cap0);
    const int thk = static_cast<int>((tp.snd_una - S) / M);
    std::vector<Hole> expect;
    for (int k = thk; k < known_end; ++k) {
      if (known[static_cast<std::size_t>(k)]) continue;
      int e = k;
      while (e < known_end && !known[static_cast<std::size_t>(e)]) ++e;
      expect.push_back({seg(k), seg(e), 0});
      k = e;
    }
    std::vector<Hole> got = holes_of(tp);
    for (Hole& h : got) h.rxmit = 0;
    ASSERT_EQ(got, expect) << "after ack " << acks;
    if (!expect.empty()) {
      ASSERT_EQ(tp.snd_fack, seg(known_end));
    }
    int sacked = 0;
    for (int k = thk; k < known_end; ++k) sacked += known[static_cast<std::size_t>(k)] ? 1448 : 0;
    if (check_sacked) {
      ASSERT_EQ(tp.sackhint.sacked_bytes, sacked) << "after ack " << acks;
    }
    ASSERT_EQ(tp.sackhint.sack_bytes_rexmit, rexmit_in_holes(tp));
    // IsLost: k-th hole from the right is not lost iff k < 3 and the SACKed
    // bytes above it are <= 2 * t_maxseg.
    int above = 0, k = 0, notlost = 0, hole_bytes = 0;
    tcp_seq hi = tp.snd_fack;
    for (auto it = expect.rbegin(); it != expect.rend(); ++it) {
      hole_bytes += static_cast<int>(it->end - it->start);
      above += static_cast<int>(hi - it->end);
      hi = it->start;
      if (++k < 3 && above <= 2 * 1460) notlost += static_cast<int>(it->end - it->start);
      else above = 1 << 30;  // every hole further left is lost
    }
    ASSERT_EQ(tp.sackhint.hole_bytes, hole_bytes);
    ASSERT_EQ(tp.sackhint.lost_bytes, hole_bytes - notlost) << "after ack " << acks;
  };

  // The receiver got segment k (or a copy of it): send an ACK.
  auto deliver = [&](int k) {
    if (!rcvd[static_cast<std::size_t>(k)]) {
      rcvd[static_cast<std::size_t>(k)] = 1;
      while (rcv_nxt < N && rcvd[static_cast<std::size_t>(rcv_nxt)]) ++rcv_nxt;
    }
    std::vector<std::pair<int, int>> runs;
    for (int i = rcv_nxt; i < N; ++i) {
      if (!rcvd[static_cast<std::size_t>(i)]) continue;
      int e = i;
      while (e < N && rcvd[static_cast<std::size_t>(e)]) ++e;
      runs.push_back({i, e});
      i = e;
    }
    std::vector<sackblk> blocks;
    for (auto& r : runs)
      if (k >= r.first && k < r.second) blocks.push_back({seg(r.first), seg(r.second)});
    for (auto it = runs.rbegin(); it != runs.rend() && blocks.size() < 3; ++it)
      if (!(k >= it->first && k < it->second)) blocks.push_back({seg(it->first), seg(it->second)});

    const tcp_seq th = seg(rcv_nxt);
    const bool quirk = !tp.snd_holes.empty() && SEQ_LT(tp.snd_fack, th);  // see FullAckBeyondFackCountsAsInSource
    if (tcp_is_sack_recovery(tp, !blocks.empty()))
      tcp_sack_doack(tp, blocks, th);
    else
      tp.sackhint.sacked_bytes = 0;
    ++acks;
    for (int i = static_cast<int>((tp.snd_una - S) / M); i < rcv_nxt; ++i) known[static_cast<std::size_t>(i)] = 1;
    known_end = std::max(known_end, rcv_nxt);
    for (const sackblk& b : blocks) {
      const int a = static_cast<int>((b.start - S) / M), e = static_cast<int>((b.end - S) / M);
      for (int i = a; i < e; ++i) known[static_cast<std::size_t>(i)] = 1;
      known_end = std::max(known_end, e);
    }
    if (SEQ_GT(th, tp.snd_una)) tp.snd_una = th;
    st.max_holes = std::max(st.max_holes, tp.snd_numholes);
    ++st.acks;
    check(!quirk);
  };

  // Original transmission; the last segment always arrives (so every loss
  // ends up inside a hole).
  std::vector<int> order(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) order[static_cast<std::size_t>(i)] = i;
  if (reorder)
    for (int i = 0; i + 1 < N; ++i)
      if (chance(100)) std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(i) + 1]);
  for (int k : order) {
    if (k != N - 1 && chance(loss_permille)) continue;
    deliver(k);
    if (::testing::Test::HasFatalFailure()) return;
  }

  // Retransmission rounds.
  for (int round = 0; tp.snd_una != seg(N); ++round) {
    ASSERT_LT(round, 200);
    std::vector<int> sends;
    int sbr = 0;
    while (const sackhole* p = tcp_sack_output(tp, sbr)) {
      const u_int len = std::min<u_int>(tcp_sack_rxmit_len(tp, *p, sbr), M);
      ASSERT_EQ(len, M);
      sends.push_back(static_cast<int>((p->rxmit - S) / M));
      ++st.rexmits;
      tcp_output_sack_rxmit(tp, p, len);
      ASSERT_EQ(tcp_sack_check_invariants(tp), "");
    }
    if (sends.empty()) {
      ASSERT_FALSE(tp.snd_holes.empty());
      tp.t_rxtshift = 1;
      tcp_sack_timer_rexmt(tp);  // RTO: resend all holes
      ++st.rtos;
      ASSERT_EQ(tp.sackhint.sack_bytes_rexmit, 0);
      continue;
    }
    for (int k : sends) {
      if (chance(loss_permille)) continue;
      deliver(k);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_TRUE(tp.snd_holes.empty());
  EXPECT_EQ(tp.snd_holes.pool_data(), pool0);
  EXPECT_EQ(tp.snd_holes.pool_capacity(), cap0);
}

TEST_P(SackScoreboardTest, RandomizedAgainstReferenceNoAllocation) {
  RandomRunStats st;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    run_random(S, seed, 150, seed % 3 == 0 ? 300 : 120, seed % 2 == 0, st);
    if (HasFatalFailure()) return;
  }
  // The runs did exercise the scoreboard.
  EXPECT_EQ(st.acks, 12 * 150);  // every segment reaches the receiver exactly once (no spurious rexmits)
  EXPECT_GE(st.max_holes, 20);
  EXPECT_GT(st.rtos, 0);
  EXPECT_GT(st.rexmits, 12 * 20);
  RecordProperty("acks", st.acks);
  RecordProperty("max_holes", st.max_holes);
  RecordProperty("rtos", st.rtos);
  RecordProperty("rexmits", st.rexmits);
}

// Hole pool under churn at the 128-hole limit: structural invariants only
// (dismissed SACK data makes the reference model inapplicable).
TEST_P(SackScoreboardTest, ChurnAtHoleLimitNoAllocation) {
  std::mt19937 rng(7);
  const void* const pool0 = tp.snd_holes.pool_data();
  const std::size_t cap0 = tp.snd_holes.pool_capacity();
  tp.snd_una = tp.snd_fack = seg(0);
  tp.snd_max = tp.snd_nxt = seg(2000);
  int max_holes = 0;
  for (int i = 0; i < 4000; ++i) {
    const int una = static_cast<int>((tp.snd_una - S) / M);
    tcp_seq th = tp.snd_una;
    if (rng() % 64 == 0 && una < 1990) th = seg(una + 1 + static_cast<int>(rng() % 3));
    std::vector<sackblk> blocks;
    const int nb = static_cast<int>(rng() % 5);
    const int th_k = static_cast<int>((th - S) / M);
    for (int b = 0; b < nb; ++b) {
      const int a = th_k + 1 + static_cast<int>(rng() % 1000);
      blocks.push_back({seg(a), seg(std::min(a + 1 + static_cast<int>(rng() % 3), 2000))});
    }
    tcp_sack_doack(tp, blocks, th);
    ASSERT_EQ(tcp_sack_check_invariants(tp), "") << i;
    ASSERT_LE(tp.snd_numholes, 128);
    max_holes = std::max(max_holes, tp.snd_numholes);
    tp.snd_una = th;
    if (rng() % 50 == 0) {
      tp.t_rxtshift = 1 + static_cast<int>(rng() % 2);
      tcp_sack_timer_rexmt(tp);
    }
  }
  EXPECT_EQ(max_holes, 128);
  EXPECT_GT(tp.sack_stats.sack_sboverflow, 0u);
  EXPECT_EQ(tp.snd_holes.pool_data(), pool0);
  EXPECT_EQ(tp.snd_holes.pool_capacity(), cap0);
}

}  // namespace
}  // namespace netsim::tcp
