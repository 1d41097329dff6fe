// The CC wrapper functions of FreeBSD's base stack (tcp_input.c, tcp_subr.c and
// tcp_output.c @ 2d614aa2) and the module registry. Expected values are worked
// out by hand in the comments.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "netsim/cc/cc_framework.h"
#include "netsim/cc/cc_registry.h"
#include "netsim/cc/cubic.h"
#include "netsim/cc/newreno.h"

namespace netsim::cc {
namespace {

// A module that records what the wrappers hand it.
class Recorder final : public CcAlgo {
 public:
  const char* name() const override { return "recorder"; }
  int cb_init(CcVar&) override {
    ++inits;
    return 0;
  }
  void conn_init(CcVar& ccv) override { conn_init_cwnd = ccv.tp->snd_cwnd; }
  void ack_received(CcVar& ccv, ccsignal_t type) override {
    last_type = type;
    seen = ccv;
  }
  void cong_signal(CcVar& ccv, ccsignal_t type) override {
    last_type = type;
    seen = ccv;
  }
  void post_recovery(CcVar& ccv) override {
    seen = ccv;
    bytes_acked_at_post_recovery = ccv.tp->t_bytes_acked;
  }
  void after_idle(CcVar&) override { ++idles; }

  int inits = 0, idles = 0, bytes_acked_at_post_recovery = -1;
  std::uint32_t conn_init_cwnd = 0;
  ccsignal_t last_type = CC_ACK;
  CcVar seen;
};

class CcFramework : public ::testing::Test {
 protected:
  void SetUp() override {
    tp.snd_wnd = 4'000'000;
    tp.snd_una = 1000;
    tp.snd_max = tp.snd_nxt = 500'000;
    cc_attach(tp, rec);
  }
  Tcpcb tp;
  Recorder rec;
};

TEST(CcFrameworkInitialWindow, ComputeInitwnd) {
  Tcpcb tp;
  // initcwnd_segments 10: min(10 * mss, max(2 * mss, 10 * 1460)).
  EXPECT_EQ(tcp_compute_initwnd(tp, 1448), 14480u);  // min(14480, 14600)
  EXPECT_EQ(tcp_compute_initwnd(tp, 1460), 14600u);  // min(14600, 14600)
  EXPECT_EQ(tcp_compute_initwnd(tp, 9000), 18000u);  // min(90000, max(18000, 14600))
  EXPECT_EQ(tcp_compute_initwnd(tp, 536), 5360u);    // min(5360, 14600)
  // initcwnd_segments 0, rfc3390 1: min(4 * mss, max(2 * mss, 4380)).
  tp.sysctl.tcp_initcwnd_segments = 0;
  EXPECT_EQ(tcp_compute_initwnd(tp, 1448), 4380u);  // min(5792, 4380)
  EXPECT_EQ(tcp_compute_initwnd(tp, 536), 2144u);   // min(2144, 4380)
  // rfc3390 0 (RFC 5681 3.1): > 2190: 2 * mss; > 1095: 3 * mss; else 4 * mss.
  tp.sysctl.tcp_do_rfc3390 = 0;
  EXPECT_EQ(tcp_compute_initwnd(tp, 2500), 5000u);
  EXPECT_EQ(tcp_compute_initwnd(tp, 1448), 4344u);
  EXPECT_EQ(tcp_compute_initwnd(tp, 1000), 4000u);
}

TEST_F(CcFramework, AttachAndConnInit) {
  EXPECT_EQ(tp.t_cc, &rec);
  EXPECT_EQ(tp.t_ccv.tp, &tp);
  EXPECT_EQ(rec.inits, 1);
  // cc_conn_init: IW(tcp_maxseg 1448) = 14480, then the module's conn_init.
  cc_conn_init(tp);
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  EXPECT_EQ(rec.conn_init_cwnd, 14480u);
  EXPECT_EQ(tp.snd_ssthresh, 65535u << 14);
  // The stack left cwnd at 1 (SYN retransmitted): one tcp_maxseg.
  tp.snd_cwnd = 1;
  cc_conn_init(tp);
  EXPECT_EQ(tp.snd_cwnd, 1448u);
  // Host-cache ssthresh, at least 2 * maxseg: 1000 -> 2896; 100000 -> 100000.
  cc_conn_init(tp, HcMetricsLite{1000});
  EXPECT_EQ(tp.snd_ssthresh, 2896u);
  cc_conn_init(tp, HcMetricsLite{100000});
  EXPECT_EQ(tp.snd_ssthresh, 100000u);
}

TEST_F(CcFramework, AckReceivedFillsCcVar) {
  // bytes_this_ack = th_ack - snd_una in sequence space (wraps): 0xFFFFFF00 -> 0x100 is 512.
  tp.snd_una = 0xFFFFFF00u;
  cc_ack_received(tp, 0x100u, 3, CC_ACK);
  EXPECT_EQ(rec.seen.bytes_this_ack, 512);
  EXPECT_EQ(rec.seen.nsegs, 3);
  EXPECT_EQ(rec.seen.curack, 0x100u);
  EXPECT_EQ(rec.last_type, CC_ACK);
  cc_ack_received(tp, 0x100u, 1, CC_DUPACK);
  EXPECT_EQ(rec.last_type, CC_DUPACK);
}

TEST_F(CcFramework, CwndLimitedComparesOnlyWithThePeersWindow) {
  // newcwv = 0: CWND_LIMITED iff snd_cwnd <= snd_wnd, whatever is in flight.
  tp.snd_cwnd = 50000;
  tp.snd_wnd = 50000;
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_NE(rec.seen.flags & CCF_CWND_LIMITED, 0u);
  tp.snd_wnd = 49999;
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_EQ(rec.seen.flags & CCF_CWND_LIMITED, 0u);
  // newcwv = 1 also needs cwnd < 2 * pipe: pipe 25001 -> 50000 < 50002 yes; 25000 -> no.
  tp.sysctl.tcp_do_newcwv = 1;
  tp.snd_wnd = 50000;
  tp.tfb_compute_pipe = [](const Tcpcb&) { return 25001; };
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_NE(rec.seen.flags & CCF_CWND_LIMITED, 0u);
  tp.tfb_compute_pipe = [](const Tcpcb&) { return 25000; };
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_EQ(rec.seen.flags & CCF_CWND_LIMITED, 0u);
}

TEST_F(CcFramework, AbcCountingOnlyForCcAckAndOnlyInCongestionAvoidance) {
  tp.snd_cwnd = 5000;
  tp.snd_ssthresh = 4000;
  // Congestion avoidance: 3 x 1448 = 4344 < 5000; the 4th makes 5792 >= 5000 -> 792 + flag.
  for (int i = 0; i < 3; ++i) cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_EQ(tp.t_bytes_acked, 4344);
  EXPECT_EQ(rec.seen.flags & CCF_ABC_SENTAWND, 0u);
  // A duplicate ACK (even one "acknowledging" bytes) is not counted.
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_DUPACK);
  EXPECT_EQ(tp.t_bytes_acked, 4344);
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_EQ(tp.t_bytes_acked, 792);
  EXPECT_NE(rec.seen.flags & CCF_ABC_SENTAWND, 0u);
  // Slow start (cwnd <= ssthresh) clears the counter and the flag.
  tp.snd_ssthresh = 5000;
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_EQ(tp.t_bytes_acked, 0);
  EXPECT_EQ(rec.seen.flags & CCF_ABC_SENTAWND, 0u);
}

TEST(CcFrameworkWithNewReno, NotCwndLimitedMeansNoGrowthButBytesAreStillCounted) {
  Tcpcb tp;
  NewReno algo;
  tp.snd_una = 0;
  tp.snd_max = tp.snd_nxt = 1'000'000;
  cc_attach(tp, algo);
  cc_conn_init(tp);
  // Slow start, cwnd 14480 > snd_wnd 10000: no growth.
  tp.snd_wnd = 10000;
  cc_ack_received(tp, 2896, 1, CC_ACK);
  tp.snd_una = 2896;
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  // Congestion avoidance, not cwnd limited: the wrapper still counts and sets the flag
  // (5 x 2896 = 14480 >= 14480), the module does not consume it...
  tp.snd_ssthresh = 10000;
  for (int i = 0; i < 5; ++i) {
    cc_ack_received(tp, tp.snd_una + 2896, 1, CC_ACK);
    tp.snd_una += 2896;
  }
  EXPECT_EQ(tp.snd_cwnd, 14480u);
  EXPECT_EQ(tp.t_bytes_acked, 0);
  EXPECT_NE(tp.t_ccv.flags & CCF_ABC_SENTAWND, 0u);
  // ...so the first cwnd-limited ACK grows cwnd at once: 14480 + 1460 = 15940.
  tp.snd_wnd = 4'000'000;
  cc_ack_received(tp, tp.snd_una + 1448, 1, CC_ACK);
  EXPECT_EQ(tp.snd_cwnd, 15940u);
  EXPECT_EQ(tp.t_ccv.flags & CCF_ABC_SENTAWND, 0u);
}

TEST_F(CcFramework, CongSignalNDupAckArmsTheRecoveryPoint) {
  tp.snd_recover = 7;
  cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(tp.snd_recover, tp.snd_max);
  EXPECT_EQ(rec.last_type, CC_NDUPACK);
  EXPECT_EQ(rec.seen.curack, tp.snd_una);
  // Already in fast recovery: the recovery point stays.
  tp.t_flags = TF_FASTRECOVERY;
  tp.snd_recover = 7;
  cc_cong_signal(tp, tp.snd_una, CC_NDUPACK);
  EXPECT_EQ(tp.snd_recover, 7u);
}

TEST_F(CcFramework, CongSignalRto) {
  tp.t_dupacks = 3;
  tp.t_bytes_acked = 999;
  tp.t_ccv.curack = 42;
  // First RTO with SACK holes left: recovery is kept (holes are resent first).
  tp.t_flags = TF_SACK_PERMIT | TF_FASTRECOVERY | TF_CONGRECOVERY;
  tp.snd_numholes = 2;
  tp.t_rxtshift = 1;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(tp.t_dupacks, 0);
  EXPECT_EQ(tp.t_bytes_acked, 0);
  EXPECT_NE(IN_FASTRECOVERY(tp.t_flags), 0u);
  EXPECT_EQ(rec.seen.curack, 42u);  // th == NULL: curack not touched
  // Second RTO: recovery ends.
  tp.t_rxtshift = 2;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(IN_RECOVERY(tp.t_flags), 0u);
  // First RTO without holes (or without SACK): recovery ends.
  tp.t_flags = TF_SACK_PERMIT | TF_FASTRECOVERY | TF_CONGRECOVERY;
  tp.t_rxtshift = 1;
  tp.snd_numholes = 0;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(IN_RECOVERY(tp.t_flags), 0u);
  tp.t_flags = TF_FASTRECOVERY | TF_CONGRECOVERY;
  tp.snd_numholes = 2;
  cc_cong_signal(tp, std::nullopt, CC_RTO);
  EXPECT_EQ(IN_RECOVERY(tp.t_flags), 0u);
}

TEST_F(CcFramework, CongSignalRtoErrRestoresTheSavedState) {
  tp.snd_cwnd = 1448;
  tp.snd_ssthresh = 2896;
  tp.snd_recover = 1;
  tp.snd_cwnd_prev = 60000;
  tp.snd_ssthresh_prev = 40000;
  tp.snd_recover_prev = 123456;
  tp.t_badrxtwin = 77;
  tp.t_flags = TF_WASFRECOVERY | TF_WASCRECOVERY | TF_PREVVALID;
  tp.snd_nxt = tp.snd_una;
  cc_cong_signal(tp, tp.snd_una, CC_RTO_ERR);
  EXPECT_EQ(tp.snd_cwnd, 60000u);
  EXPECT_EQ(tp.snd_ssthresh, 40000u);
  EXPECT_EQ(tp.snd_recover, 123456u);
  EXPECT_EQ(tp.t_flags, TF_WASFRECOVERY | TF_WASCRECOVERY | TF_FASTRECOVERY | TF_CONGRECOVERY);
  EXPECT_EQ(tp.snd_nxt, tp.snd_max);
  EXPECT_EQ(tp.t_badrxtwin, 0u);
}

TEST_F(CcFramework, CongSignalEcn) {
  // Not in congestion recovery: the recovery point becomes snd_max + 1.
  tp.t_flags = 0;
  cc_cong_signal(tp, tp.snd_una, CC_ECN);
  EXPECT_EQ(tp.snd_recover, tp.snd_max + 1);
  // In congestion recovery, an ACK at or above snd_recover (the ACK of the CWR) re-arms.
  tp.t_flags = TF_CONGRECOVERY;
  tp.snd_recover = tp.snd_una;
  cc_cong_signal(tp, tp.snd_una, CC_ECN);
  EXPECT_EQ(IN_CONGRECOVERY(tp.t_flags), 0u);
  EXPECT_EQ(tp.snd_recover, tp.snd_max + 1);
  // Below it: unchanged.
  tp.t_flags = TF_CONGRECOVERY;
  tp.snd_recover = tp.snd_una + 100;
  cc_cong_signal(tp, tp.snd_una, CC_ECN);
  EXPECT_NE(IN_CONGRECOVERY(tp.t_flags), 0u);
  EXPECT_EQ(tp.snd_recover, tp.snd_una + 100);
}

TEST_F(CcFramework, PostRecoveryResetsCountersAfterTheModule) {
  tp.t_bytes_acked = 5000;
  tp.sackhint.delivered_data = 1;
  tp.sackhint.prr_delivered = 2;
  tp.sackhint.prr_out = 3;
  cc_post_recovery(tp, tp.snd_una + 4000);
  EXPECT_EQ(rec.bytes_acked_at_post_recovery, 5000);  // the module ran first
  EXPECT_EQ(rec.seen.curack, tp.snd_una + 4000);
  EXPECT_EQ(tp.t_bytes_acked, 0);
  EXPECT_EQ(tp.sackhint.delivered_data, 0);
  EXPECT_EQ(tp.sackhint.prr_delivered, 0u);
  EXPECT_EQ(tp.sackhint.prr_out, 0u);
}

TEST_F(CcFramework, AfterIdleCallsTheModule) {
  cc_after_idle(tp);
  EXPECT_EQ(rec.idles, 1);
}

TEST(CcFrameworkErrors, WrappersNeedAnAttachedModule) {
  Tcpcb tp;
  EXPECT_THROW(cc_ack_received(tp, 1, 1, CC_ACK), std::logic_error);
  EXPECT_THROW(cc_cong_signal(tp, std::nullopt, CC_RTO), std::logic_error);
  EXPECT_THROW(cc_post_recovery(tp, 1), std::logic_error);
  EXPECT_THROW(cc_after_idle(tp), std::logic_error);
  EXPECT_THROW(cc_conn_init(tp), std::logic_error);
}

TEST(CcFrameworkSrtt, TcpGetSrttInMicroseconds) {
  Tcpcb tp;
  // (t_srtt * 10^6 / hz) >> 5, at least 1 before the shift.
  tp.hz = 100;
  tp.t_srtt = 7;  // the hz = 100 floor of notes 3.2: 70000 >> 5 = 2187
  EXPECT_EQ(tcp_get_srtt(tp, TCP_TMR_GRANULARITY_USEC), 2187u);
  tp.t_srtt = 11;  // 110000 >> 5 = 3437
  EXPECT_EQ(tcp_get_srtt(tp, TCP_TMR_GRANULARITY_USEC), 3437u);
  tp.hz = 1000;
  tp.t_srtt = 16;  // 16000 >> 5 = 500
  EXPECT_EQ(tcp_get_srtt(tp, TCP_TMR_GRANULARITY_USEC), 500u);
  tp.t_srtt = 0;  // max(1, 0) = 1 >> 5 = 0
  EXPECT_EQ(tcp_get_srtt(tp, TCP_TMR_GRANULARITY_USEC), 0u);
  tp.hz = 1024;
  tp.t_srtt = 7;  // 7000000 / 1024 = 6835 >> 5 = 213
  EXPECT_EQ(tcp_get_srtt(tp, TCP_TMR_GRANULARITY_USEC), 213u);
  tp.t_srtt = 32;  // in ticks: 32 >> 5 = 1
  EXPECT_EQ(tcp_get_srtt(tp, TCP_TMR_GRANULARITY_TICKS), 1u);
}

TEST(CcRegistry, MakesEachModuleAndRejectsOthers) {
  const auto newreno = make_cc("newreno");
  const auto cubic = make_cc("cubic");
  const auto patched = make_cc("cubic_d46046");
  EXPECT_STREQ(newreno->name(), "newreno");
  EXPECT_STREQ(cubic->name(), "cubic");
  EXPECT_STREQ(patched->name(), "cubic_d46046");
  EXPECT_NE(dynamic_cast<NewReno*>(newreno.get()), nullptr);
  EXPECT_NE(dynamic_cast<CubicD46046*>(patched.get()), nullptr);
  EXPECT_EQ(dynamic_cast<CubicD46046*>(cubic.get()), nullptr);
  EXPECT_NE(make_cc("cubic").get(), cubic.get());  // one object per connection
  try {
    make_cc("bbr");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'bbr'"), std::string::npos);
    EXPECT_NE(what.find("newreno, cubic, cubic_d46046"), std::string::npos);
  }
  EXPECT_THROW(make_cc(""), std::invalid_argument);
  EXPECT_THROW(make_cc("CUBIC"), std::invalid_argument);
}

}  // namespace
}  // namespace netsim::cc
