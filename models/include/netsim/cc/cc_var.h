// Congestion-control framework types, ported from FreeBSD.
//
// Follows (behaviour, names, integer widths; no source text copied):
//   freebsd/freebsd-src @ 00d3b74406db80084e8939450c6b86326dd1de30
//       sys/netinet/cc/cc.h            struct cc_var, CCF_* flags, ccsignal_t
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814
//       sys/netinet/tcp_var.h          the tcpcb fields the CC code reads/writes,
//                                      TF_* recovery flags, IN_/ENTER_/EXIT_ macros
//       sys/netinet/tcp_subr.c         tcp_get_srtt()
//   kenrap/freebsd-src @ f30bcb15894c03d8afb60c8a4e0ca6b0b029f737
//       sys/netinet/tcp_var.h          (cross-check of the same fields after D46046)
// See docs/cc.md and shared/design/freebsd-tcp.md sections 1-3.
//
// CcConnState is the part of FreeBSD's `struct tcpcb` that the CC modules and
// the CC wrapper functions touch. It can be driven without a simulation: set
// the fields, call the wrappers in cc_framework.h or the hooks of a CcAlgo.
// Widths follow amd64 FreeBSD (LP64): u_int/uint32_t = 32 bit, int = 32 bit,
// unsigned long = 64 bit. Every C implicit conversion that matters is spelled
// out with a cast in the ports. Signed overflow wraps: FreeBSD builds the
// kernel with -fwrapv (sys/conf/kern.mk, e.g. jlduran/freebsd-src @
// c6691e4835cc4dcf0b738d78492073bc079369b0), so int arithmetic that can
// overflow is done here in unsigned arithmetic (kern::wrap_*).
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "netsim/tcp/tcp_seq.h"

namespace netsim::cc {

static_assert(sizeof(int) == 4 && sizeof(unsigned int) == 4 && sizeof(unsigned long) == 8 && sizeof(long) == 8,
              "the FreeBSD CC ports assume LP64 integer widths (as on amd64 FreeBSD)");

using tcp::tcp_seq;
using u_int = unsigned int;

class CcAlgo;
struct CcConnState;

// --- libkern helpers with FreeBSD's argument types (sys/libkern.h) ---------
// FreeBSD's min()/max() take and return u_int, so a 64-bit argument is
// truncated to 32 bits on the way in; ulmin/ulmax use u_long, lmax long.
namespace kern {
constexpr u_int max(u_int a, u_int b) { return a > b ? a : b; }
constexpr u_int min(u_int a, u_int b) { return a < b ? a : b; }
constexpr unsigned long ulmax(unsigned long a, unsigned long b) { return a > b ? a : b; }
constexpr unsigned long ulmin(unsigned long a, unsigned long b) { return a < b ? a : b; }
constexpr long lmax(long a, long b) { return a > b ? a : b; }
constexpr int imax(int a, int b) { return a > b ? a : b; }
constexpr int imin(int a, int b) { return a < b ? a : b; }
// 32-bit int arithmetic that wraps, as the kernel's (built with -fwrapv).
// The values the stack produces never overflow in practice.
constexpr int wrap_add(int a, int b) { return static_cast<int>(static_cast<u_int>(a) + static_cast<u_int>(b)); }
constexpr int wrap_sub(int a, int b) { return static_cast<int>(static_cast<u_int>(a) - static_cast<u_int>(b)); }
constexpr int wrap_mul(int a, int b) { return static_cast<int>(static_cast<u_int>(a) * static_cast<u_int>(b)); }
}  // namespace kern

// --- ccsignal_t (cc.h): ACK types and congestion signals --------------------
enum ccsignal_t : std::uint32_t {
  // ACK types passed to ack_received().
  CC_ACK = 0x0001,         // regular in-sequence ACK
  CC_DUPACK = 0x0002,      // duplicate ACK
  CC_PARTIALACK = 0x0004,  // "not yet" in FreeBSD: never passed by the base stack
  CC_SACK = 0x0008,        // "not yet" in FreeBSD
  // Congestion signals passed to cong_signal().
  CC_ECN = 0x0100,      // ECN-marked packet
  CC_RTO = 0x0200,      // retransmission timeout
  CC_RTO_ERR = 0x0400,  // the RTO was spurious (undo)
  CC_NDUPACK = 0x0800,  // dupack threshold reached / RFC 6675 loss trigger
  CC_SIGPRIVMASK = 0xFF000000u,
};

// --- cc_var flags (cc.h) -----------------------------------------------------
inline constexpr std::uint32_t CCF_ABC_SENTAWND = 0x0001;   // ABC counted a cwnd worth of bytes
inline constexpr std::uint32_t CCF_CWND_LIMITED = 0x0002;   // currently cwnd limited
inline constexpr std::uint32_t CCF_USE_LOCAL_ABC = 0x0004;  // use ccv.labc instead of abc_l_var
inline constexpr std::uint32_t CCF_ACKNOW = 0x0008;
inline constexpr std::uint32_t CCF_IPHDR_CE = 0x0010;
inline constexpr std::uint32_t CCF_TCPHDR_CWR = 0x0020;
inline constexpr std::uint32_t CCF_MAX_CWND = 0x0040;
inline constexpr std::uint32_t CCF_CHG_MAX_CWND = 0x0080;
inline constexpr std::uint32_t CCF_USR_IWND = 0x0100;
inline constexpr std::uint32_t CCF_USR_IWND_INIT_NSEG = 0x0200;
inline constexpr std::uint32_t CCF_HYSTART_ALLOWED = 0x0400;  // only RACK/BBR set it; the base stack never does
inline constexpr std::uint32_t CCF_HYSTART_CAN_SH_CWND = 0x0800;
inline constexpr std::uint32_t CCF_HYSTART_CONS_SSTH = 0x1000;

// --- tcpcb t_flags bits used by the CC code (tcp_var.h) ----------------------
inline constexpr std::uint32_t TF_SACK_PERMIT = 0x00000200;
inline constexpr std::uint32_t TF_PREVVALID = 0x00002000;
inline constexpr std::uint32_t TF_FASTRECOVERY = 0x00100000;
inline constexpr std::uint32_t TF_WASFRECOVERY = 0x00200000;
inline constexpr std::uint32_t TF_CONGRECOVERY = 0x20000000;
inline constexpr std::uint32_t TF_WASCRECOVERY = 0x40000000;

// The tcp_var.h macros, as functions (same names).
constexpr std::uint32_t IN_FASTRECOVERY(std::uint32_t t_flags) { return t_flags & TF_FASTRECOVERY; }
constexpr std::uint32_t IN_CONGRECOVERY(std::uint32_t t_flags) { return t_flags & TF_CONGRECOVERY; }
constexpr std::uint32_t IN_RECOVERY(std::uint32_t t_flags) { return t_flags & (TF_CONGRECOVERY | TF_FASTRECOVERY); }
inline void ENTER_FASTRECOVERY(std::uint32_t& t_flags) { t_flags |= TF_FASTRECOVERY; }
inline void EXIT_FASTRECOVERY(std::uint32_t& t_flags) { t_flags &= ~TF_FASTRECOVERY; }
inline void ENTER_CONGRECOVERY(std::uint32_t& t_flags) { t_flags |= TF_CONGRECOVERY; }
inline void EXIT_CONGRECOVERY(std::uint32_t& t_flags) { t_flags &= ~TF_CONGRECOVERY; }
inline void ENTER_RECOVERY(std::uint32_t& t_flags) { t_flags |= (TF_CONGRECOVERY | TF_FASTRECOVERY); }
inline void EXIT_RECOVERY(std::uint32_t& t_flags) { t_flags &= ~(TF_CONGRECOVERY | TF_FASTRECOVERY); }

// tcp_seq.h comparisons (one definition, in netsim/tcp/tcp_seq.h).
using tcp::SEQ_GEQ;
using tcp::SEQ_GT;
using tcp::SEQ_LEQ;
using tcp::SEQ_LT;

// Misc constants (tcp.h, tcp_var.h, tcp_timer.h).
inline constexpr int TCP_MAXWIN = 65535;      // largest unscaled window
inline constexpr int TCP_MAX_WINSHIFT = 14;   // maximum window shift
inline constexpr int TCP_RTT_SHIFT = 5;       // t_srtt is ticks << 5 (scaled by 32)
inline constexpr int TCP_RTTVAR_SHIFT = 4;    // t_rttvar is ticks << 4
inline constexpr int TCPTV_SRTTBASE = 0;      // "no RTT estimate yet"
inline constexpr int TCP_TMR_GRANULARITY_TICKS = 1;
inline constexpr int TCP_TMR_GRANULARITY_USEC = 2;

// --- struct cc_var (cc.h) -----------------------------------------------------
struct CcVar {
  void* cc_data = nullptr;         // the module's private state (set by cb_init)
  int bytes_this_ack = 0;          // th_ack - snd_una of the current ACK (int, as in FreeBSD)
  tcp_seq curack = 0;              // most recent th_ack handed to the module
  std::uint32_t flags = 0;         // CCF_*
  CcConnState* tp = nullptr;       // the connection (FreeBSD: struct tcpcb *)
  std::uint16_t nsegs = 1;         // segments coalesced into this ACK (LRO), 1 without LRO
  std::uint8_t labc = 0;           // per-connection abc_l_var when CCF_USE_LOCAL_ABC
};

// --- sysctls that the CC code reads (per-VNET globals in FreeBSD) -----------
// Defaults are FreeBSD main mid-2024 (notes 3.9, 1.1, 1.7).
struct CcSysctls {
  int tcp_do_rfc3465 = 1;           // net.inet.tcp.rfc3465 (ABC)
  int tcp_abc_l_var = 2;            // net.inet.tcp.abc_l_var
  int tcp_do_newcwv = 0;            // net.inet.tcp.newcwv
  int tcp_do_newsack = 1;           // net.inet.tcp.sack.revised (RFC 6675 pipe)
  int tcp_initcwnd_segments = 10;   // net.inet.tcp.initcwnd_segments
  int tcp_do_rfc3390 = 1;           // net.inet.tcp.rfc3390
  std::uint32_t newreno_beta = 50;      // net.inet.tcp.cc.newreno.beta
  std::uint32_t newreno_beta_ecn = 80;  // net.inet.tcp.cc.newreno.beta_ecn
  int cc_do_abe = 0;                    // net.inet.tcp.cc.abe
  int cc_abe_frlossreduce = 0;          // net.inet.tcp.cc.abe_frlossreduce
  // net.inet.tcp.cc.hystartplusplus.* (only reachable with CCF_HYSTART_ALLOWED)
  std::uint32_t hystart_minrtt_thresh = 4000;
  std::uint32_t hystart_maxrtt_thresh = 16000;
  std::uint32_t hystart_n_rttsamples = 8;
  std::uint32_t hystart_css_growth_div = 4;
  std::uint32_t hystart_css_rounds = 5;
};

// struct sackhint: the members the CC code and its wrappers touch.
struct SackHint {
  std::int32_t sack_bytes_rexmit = 0;  // retransmitted bytes still inside holes
  std::int32_t delivered_data = 0;     // reset by cc_post_recovery
  std::uint32_t prr_delivered = 0;     // reset by cc_post_recovery
  std::uint32_t prr_out = 0;           // reset by cc_post_recovery
};

// --- the tcpcb subset ----------------------------------------------------------
// Not copyable: t_ccv.tp points back at the object.
struct CcConnState {
  CcConnState() { t_ccv.tp = this; }
  CcConnState(const CcConnState&) = delete;
  CcConnState& operator=(const CcConnState&) = delete;

  // Windows (bytes). FreeBSD's tcp_newtcpcb starts both at TCP_MAXWIN << 14;
  // cc_conn_init then sets the initial window.
  std::uint32_t snd_cwnd = static_cast<std::uint32_t>(TCP_MAXWIN) << TCP_MAX_WINSHIFT;
  std::uint32_t snd_ssthresh = static_cast<std::uint32_t>(TCP_MAXWIN) << TCP_MAX_WINSHIFT;
  std::uint32_t snd_wnd = 0;       // peer's advertised window, already scaled
  std::uint8_t snd_scale = 0;      // send window shift; caps cwnd at 65535 << snd_scale

  // Sequence space.
  tcp_seq snd_una = 0;
  tcp_seq snd_max = 0;
  tcp_seq snd_nxt = 0;
  tcp_seq snd_recover = 0;
  tcp_seq snd_fack = 0;            // highest SACKed sequence (+1)

  // Segment sizes. t_maxseg is the MSS without options (1460 on the T1 path);
  // tcp_fixed_maxseg() subtracts the always-present options (timestamps:
  // 1448); tcp_maxseg() also subtracts SACK blocks we are currently sending,
  // so for a pure sender it equals the fixed value. The stack keeps them.
  std::uint32_t t_maxseg = 1460;   // FreeBSD: uint32_t bit-field of 24 bits
  std::uint32_t fixed_maxseg = 1448;
  std::uint32_t maxseg = 1448;

  // Counters and timers used by the CC code.
  int t_bytes_acked = 0;           // ABC byte counter (int in tcpcb)
  int t_dupacks = 0;
  int t_rxtshift = 0;              // RTO backoff shift (1 on the first RTO)
  int t_srtt = 0;                  // ticks << TCP_RTT_SHIFT (base stack)
  std::uint8_t t_rttupdated = 0;   // RTT samples taken, saturates at 255 in tcp_xmit_timer
  std::uint8_t t_tmr_granularity = TCP_TMR_GRANULARITY_TICKS;  // base stack: ticks
  std::uint32_t t_flags = 0;       // TF_*; only the recovery/undo bits matter here
  int snd_numholes = 0;            // SACK scoreboard holes (0 == TAILQ_EMPTY(&snd_holes))
  SackHint sackhint;

  // RTO undo state (saved by tcp_timer_rexmt on the first RTO).
  std::uint32_t snd_cwnd_prev = 0;
  std::uint32_t snd_ssthresh_prev = 0;
  tcp_seq snd_recover_prev = 0;
  u_int t_badrxtwin = 0;

  // The kernel clock: `ticks` (int, wraps like FreeBSD's) and kern.hz.
  // tick (microseconds per tick) is derived as 1000000 / hz, as FreeBSD does.
  int ticks = 0;
  int hz = 1000;

  // tcp_compute_pipe(tp) (RFC 6675 pipe, sack.revised = 1), supplied by the
  // stack. Needed by RTO and post-recovery when tcp_do_newsack is on.
  std::function<int()> compute_pipe;

  CcSysctls sysctl;

  // Congestion control: the attached algorithm and its cc_var.
  CcAlgo* t_cc = nullptr;
  CcVar t_ccv;
};

// FreeBSD's `tick`: microseconds per hardclock tick.
constexpr int tick_usecs(int hz) { return 1000000 / hz; }
inline int tick_usecs(const CcConnState& tp) { return tick_usecs(tp.hz); }

inline u_int tcp_maxseg(const CcConnState& tp) { return tp.maxseg; }
inline u_int tcp_fixed_maxseg(const CcConnState& tp) { return tp.fixed_maxseg; }

inline int tcp_compute_pipe(const CcConnState& tp) {
  if (!tp.compute_pipe) throw std::logic_error("CcConnState::compute_pipe is not set (needed with sack.revised=1)");
  return tp.compute_pipe();
}

// tcp_get_srtt() (tcp_subr.c). For the base stack (ticks granularity) and a
// request in microseconds: TICKS_2_USEC(t_srtt) >> TCP_RTT_SHIFT, where
// TICKS_2_USEC(t) = max(1, hz == 1000 ? t * 1000 : t * 1000000 / hz) (u_int).
// At hz = 100, t_srtt = 7: 7 * 10000 = 70000, >> 5 = 2187 us.
inline std::uint32_t tcp_get_srtt(const CcConnState& tp, int granularity) {
  std::uint32_t srtt = static_cast<std::uint32_t>(tp.t_srtt);
  if (tp.t_tmr_granularity != granularity) {
    if (granularity == TCP_TMR_GRANULARITY_USEC) {
      const std::uint64_t us = (tp.hz == 1000) ? static_cast<std::uint64_t>(srtt * 1000u)
                                               : static_cast<std::uint64_t>(srtt) * 1000000u / static_cast<std::uint64_t>(tp.hz);
      srtt = kern::max(1, static_cast<u_int>(us));
    } else {
      const std::uint64_t t = (tp.hz == 1000) ? srtt / 1000u
                                              : static_cast<std::uint64_t>(srtt) * static_cast<std::uint64_t>(tp.hz) / 1000000u;
      srtt = kern::max(1, static_cast<u_int>(t));
    }
  }
  if (tp.t_tmr_granularity == TCP_TMR_GRANULARITY_TICKS) srtt = srtt >> TCP_RTT_SHIFT;
  return srtt;
}

}  // namespace netsim::cc
