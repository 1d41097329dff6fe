// Linux sender arithmetic: tcp_rtt_estimator / tcp_set_rto in jiffies, PRR
// sndcnt (proportional and slow-start bound), RACK reo_wnd and its DSACK
// steps, RTO backoff, the TLP timeout, TSO autosizing and the pacing rate.
#include <gtest/gtest.h>

#include "netsim/tcp/linux/tcp_cong.h"
#include "netsim/tcp/linux/tcp_input.h"
#include "netsim/tcp/linux/tcp_output.h"
#include "netsim/tcp/linux/tcp_recovery.h"
#include "netsim/tcp/linux/tcp_timer.h"

namespace netsim::tcp::lnx {
namespace {

LinuxTcpSock sock_at(int hz) {
  LinuxTcpSock tp;
  tp.clock.hz = hz;
  tp.icsk_rto_min = TCP_RTO_MIN(hz);
  tp.clock.mstamp_us = 10000000;
  return tp;
}

TEST(LinuxRtt, FirstSampleRttvarIsAtLeastRtoMin) {
  // 0.5 ms path: RTO = srtt + max(2 * rtt, 200 ms), rounded up to jiffies.
  const struct { int hz; std::uint32_t rto; } cases[] = {{100, 21}, {250, 51}, {1000, 201}};
  for (const auto& c : cases) {
    LinuxTcpSock tp = sock_at(c.hz);
    tcp_rtt_estimator(tp, 500);
    EXPECT_EQ(tp.srtt_us, 4000u);
    EXPECT_EQ(tp.mdev_us, 1000u);
    EXPECT_EQ(tp.rttvar_us, 200000u);
    tcp_set_rto(tp);
    EXPECT_EQ(tp.icsk_rto, c.rto) << c.hz;
  }
}

TEST(LinuxRtt, FallingRttMovesMdevByOneThirtySecond) {
  LinuxTcpSock tp = sock_at(250);
  tcp_rtt_estimator(tp, 500);
  tp.snd_una = tp.rtt_seq;  // same RTT period: no rttvar decay
  tcp_rtt_estimator(tp, 300);
  EXPECT_EQ(tp.srtt_us, 3800u);
  EXPECT_EQ(tp.mdev_us, 950u);  // |err| 200 - mdev/4 250 < 0: no >>3, mdev += -50
  tcp_rtt_estimator(tp, 1500);
  EXPECT_EQ(tp.srtt_us, 4825u);
  EXPECT_EQ(tp.mdev_us, 950u + (1025 - 237));
  // A new RTT period: rttvar decays toward mdev_max, which restarts at rto_min.
  tp.rtt_seq = 0;
  tp.snd_una = 1;
  tp.snd_nxt = 5000;
  tcp_rtt_estimator(tp, 600);
  EXPECT_EQ(tp.rtt_seq, 5000u);
  EXPECT_EQ(tp.mdev_max_us, 200000u);
}

TEST(LinuxPrr, ProportionalReductionAboveSsthresh) {
  LinuxTcpSock tp = sock_at(250);
  TcpReno reno;
  tp.snd_cwnd = 20;
  tp.packets_out = 20;
  tcp_init_cwnd_reduction(tp, reno);
  EXPECT_EQ(tp.snd_ssthresh, 10u);
  EXPECT_EQ(tp.prior_cwnd, 20u);
  tp.sacked_out = 3;
  tp.lost_out = 1;  // in flight 16 > ssthresh 10
  tcp_cwnd_reduction(tp, 1, 1, 0);
  EXPECT_EQ(tp.snd_cwnd, 17u);  // ceil(10 * 1 / 20) - 0 = 1: the fast retransmit
  tp.prr_out = 1;
  tp.sacked_out = 4;  // one more SACKed: in flight 15
  tcp_cwnd_reduction(tp, 1, 0, 0);
  EXPECT_EQ(tp.snd_cwnd, 15u);  // ceil(10 * 2 / 20) - 1 = 0
  EXPECT_EQ(tp.prr_delivered, 2u);
  tcp_cwnd_reduction(tp, 0, 0, 0);  // nothing delivered: nothing changes
  EXPECT_EQ(tp.prr_delivered, 2u);
}

TEST(LinuxPrr, SlowStartReductionBoundBelowSsthresh) {
  LinuxTcpSock tp = sock_at(250);
  tp.prior_cwnd = 20;
  tp.snd_ssthresh = 10;
  tp.packets_out = 8;  // in flight 8 < ssthresh: delta 2
  tp.prr_delivered = 9;
  tp.prr_out = 9;
  tcp_cwnd_reduction(tp, 1, 0, FLAG_SND_UNA_ADVANCED);
  EXPECT_EQ(tp.snd_cwnd, 10u);  // max(10 - 9, 1) + 1 = 2, min(delta 2)
  tp.prr_delivered = 9;
  tcp_cwnd_reduction(tp, 1, 1, FLAG_SND_UNA_ADVANCED);  // a new loss: no extra packet
  EXPECT_EQ(tp.snd_cwnd, 9u);
}

TEST(LinuxPrr, EndOfRecoverySetsCwndToSsthreshUnlessUndone) {
  LinuxTcpSock tp = sock_at(250);
  TcpReno reno;
  tp.snd_cwnd = 7;
  tp.snd_ssthresh = 10;
  tp.icsk_ca_state = TCP_CA_Recovery;
  tp.undo_marker = 0;  // undone (or never undoable): keep cwnd
  tcp_end_cwnd_reduction(tp, reno);
  EXPECT_EQ(tp.snd_cwnd, 7u);
  tp.undo_marker = 1234;
  tp.clock.jiffies = 77;
  tcp_end_cwnd_reduction(tp, reno);
  EXPECT_EQ(tp.snd_cwnd, 10u);
  EXPECT_EQ(tp.snd_cwnd_stamp, 77u);
}

TEST(LinuxRack, ReoWndZeroWithoutReorderingInRecoveryOrAtDupthresh) {
  LinuxTcpSock tp = sock_at(250);
  tp.min_rtt_us = 1000;
  tp.srtt_us = 8 * 1000;
  tp.sacked_out = 1;
  EXPECT_EQ(tcp_rack_reo_wnd(tp), 250u);  // min_rtt / 4
  tp.sacked_out = 3;                      // reordering (3) SACKed: dupack threshold
  EXPECT_EQ(tcp_rack_reo_wnd(tp), 0u);
  EXPECT_EQ(tcp_rack_reo_wnd(tp, TCP_RACK_LOSS_DETECTION | TCP_RACK_NO_DUPTHRESH), 250u);
  tp.sacked_out = 1;
  tp.icsk_ca_state = TCP_CA_Recovery;
  EXPECT_EQ(tcp_rack_reo_wnd(tp), 0u);
  tp.reord_seen = 1;  // reordering seen: the window stays, up to srtt
  EXPECT_EQ(tcp_rack_reo_wnd(tp), 250u);
  tp.rack.reo_wnd_steps = 5;
  EXPECT_EQ(tcp_rack_reo_wnd(tp), 1000u);
}

TEST(LinuxRack, DsackGrowsStepsOncePerRttAndPersists) {
  LinuxTcpSock tp = sock_at(250);
  tp.delivered = 150;
  tp.rack.dsack_seen = true;
  tcp_rack_update_reo_wnd(tp, 100);
  EXPECT_EQ(tp.rack.reo_wnd_steps, 2);
  EXPECT_EQ(tp.rack.reo_wnd_persist, TCP_RACK_RECOVERY_THRESH);
  EXPECT_EQ(tp.rack.last_delivered, 150u);
  tp.rack.dsack_seen = true;  // within the same RTT: ignored
  tcp_rack_update_reo_wnd(tp, 120);
  EXPECT_EQ(tp.rack.reo_wnd_steps, 2);
  EXPECT_FALSE(tp.rack.dsack_seen);
  tp.rack.reo_wnd_persist = 0;
  tcp_rack_update_reo_wnd(tp, 200);
  EXPECT_EQ(tp.rack.reo_wnd_steps, 1);
  tp.rack.dsack_seen = true;
  tcp_rack_update_reo_wnd(tp, 200, TCP_RACK_LOSS_DETECTION | TCP_RACK_STATIC_REO_WND);
  EXPECT_EQ(tp.rack.reo_wnd_steps, 1);
}

TEST(LinuxRack, AdvanceAndSkbTimeout) {
  LinuxTcpSock tp = sock_at(250);
  tp.min_rtt_us = 1000;
  const std::uint64_t now = tp.clock.mstamp_us;
  tcp_rack_advance(tp, 0, 5000, now - 1000);
  EXPECT_TRUE(tp.rack.advanced);
  EXPECT_EQ(tp.rack.rtt_us, 1000u);
  EXPECT_EQ(tp.rack.mstamp, now - 1000);
  // A retransmission ACKed faster than min_rtt: the original's ACK, ignored.
  tcp_rack_advance(tp, TCPCB_SACKED_RETRANS, 9000, now - 400);
  EXPECT_EQ(tp.rack.end_seq, 5000u);
  // Same send time, later end_seq wins.
  tcp_rack_advance(tp, 0, 6000, now - 1000);
  EXPECT_EQ(tp.rack.end_seq, 6000u);
  // An skb sent 1.1 ms ago with reo_wnd 250: 150 us to go; the timer adds 2 ms.
  EXPECT_EQ(tcp_rack_skb_timeout(tp, now - 1100, 250), 150);
  EXPECT_EQ(tcp_rack_skb_timeout(tp, now - 1400, 250), -150);
  EXPECT_EQ(tcp_rack_reo_timeout_jiffies(tp, 150), 1u);  // 2.15 ms -> 1 jiffy at HZ 250
}

TEST(LinuxRto, BackoffDoublesUpToRtoMax) {
  LinuxTcpSock tp = sock_at(250);
  tp.icsk_rto = 51;
  EXPECT_EQ(tcp_retransmit_timer_backoff(tp), 102u);
  EXPECT_EQ(tcp_retransmit_timer_backoff(tp), 204u);
  EXPECT_EQ(tp.icsk_backoff, 2);
  EXPECT_EQ(tp.icsk_retransmits, 2);
  for (int i = 0; i < 20; ++i) tcp_retransmit_timer_backoff(tp);
  EXPECT_EQ(tp.icsk_rto, TCP_RTO_MAX(250));
  tp.icsk_rto = 51;
  tp.icsk_backoff = 3;
  EXPECT_EQ(inet_csk_rto_backoff(tp, TCP_RTO_MAX(250)), 408u);
  EXPECT_EQ(inet_csk_rto_backoff(tp, 300), 300u);
}

TEST(LinuxRto, RtoDeltaFromHeadSendTime) {
  LinuxTcpSock tp = sock_at(250);
  tp.icsk_rto = 51;  // 204 ms
  EXPECT_EQ(tcp_rto_delta_us(tp, tp.clock.mstamp_us - 4000), 200000);
  EXPECT_EQ(tcp_rto_delta_us(tp, tp.clock.mstamp_us - 205000), -1000);
}

TEST(LinuxTlp, ProbeTimeoutInJiffies) {
  const struct { int hz; std::uint32_t many; std::uint32_t one; } cases[] = {{100, 1, 21}, {250, 1, 51}, {1000, 4, 202}};
  for (const auto& c : cases) {
    LinuxTcpSock tp = sock_at(c.hz);
    tp.srtt_us = 8 * 1000;  // 1 ms
    tp.packets_out = 10;
    EXPECT_EQ(tcp_loss_probe_timeout(tp, 1000000), c.many) << c.hz;  // 2 ms + 2 ms
    tp.packets_out = 1;
    EXPECT_EQ(tcp_loss_probe_timeout(tp, 1000000), c.one) << c.hz;  // 2 ms + rto_min
  }
  LinuxTcpSock tp = sock_at(250);
  EXPECT_EQ(tcp_loss_probe_timeout(tp, 0), 250u);  // no RTT sample: TCP_TIMEOUT_INIT
  tp.srtt_us = 8 * 1000;
  tp.packets_out = 1;
  EXPECT_EQ(tcp_loss_probe_timeout(tp, 3000), 1u);  // the RTO comes first
}

TEST(LinuxTso, AutosizeFromPacingRateAndMinRtt) {
  LinuxTcpSock tp = sock_at(250);
  tp.sk_pacing_rate = 125000000;  // 1 Gbit/s: 122 kB per ms
  tp.min_rtt_us = 500;
  EXPECT_EQ(tcp_tso_segs(tp, 1448), 65536u / 1448);  // capped at gso_max_size
  tp.sk_pacing_rate = 1250000;  // 10 Mbit/s: 1220 B per ms
  tp.min_rtt_us = 5000;         // 65536 >> 9 = 128 more
  EXPECT_EQ(tcp_tso_segs(tp, 1448), 2u);  // tcp_min_tso_segs
  tp.sk_gso_max_segs = 1;
  EXPECT_EQ(tcp_tso_segs(tp, 1448), 1u);
}

TEST(LinuxPacing, RateIsRatioTimesCwndOverSrtt) {
  LinuxTcpSock tp = sock_at(250);
  tp.mss_cache = 1448;
  tp.snd_cwnd = 10;
  tp.srtt_us = 8 * 1000;
  tcp_update_pacing_rate(tp);
  EXPECT_EQ(tp.sk_pacing_rate, 28960000u);  // 200% * 10 * 1448 B / 1 ms
  tp.snd_ssthresh = 12;  // cwnd >= ssthresh / 2: 120%
  tcp_update_pacing_rate(tp);
  EXPECT_EQ(tp.sk_pacing_rate, 17376000u);
}

}  // namespace
}  // namespace netsim::tcp::lnx
