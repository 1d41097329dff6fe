// Congestion-control framework types, ported from FreeBSD.
//
// Follows (behaviour, names, integer widths; no source text copied):
//   freebsd/freebsd-src @ 00d3b74406db80084e8939450c6b86326dd1de30
//       sys/netinet/cc/cc.h            struct cc_var, CCF_* flags, ccsignal_t
// The connection the CC code reads and writes is FreeBSD's `struct tcpcb`,
// tcp::Tcpcb in netsim/tcp/tcp_var.h (as in FreeBSD, cc.h only points to it:
// cc_var.tp). The TF_* flags, IN_/ENTER_/EXIT_*RECOVERY, tcp_get_srtt() and
// the tcpcb fields are defined there, once, for the CC, SACK, RTT and sender
// code alike. See docs/cc.md and shared/design/freebsd-tcp.md sections 1-3.
//
// Widths follow amd64 FreeBSD (LP64): u_int/uint32_t = 32 bit, int = 32 bit,
// unsigned long = 64 bit. Every C implicit conversion that matters is spelled
// out with a cast in the ports. Signed overflow wraps: FreeBSD builds the
// kernel with -fwrapv (sys/conf/kern.mk, e.g. jlduran/freebsd-src @
// c6691e4835cc4dcf0b738d78492073bc079369b0), so int arithmetic that can
// overflow is done here in unsigned arithmetic (kern::wrap_*).
#pragma once

#include <climits>
#include <cstdint>

#include "netsim/tcp/tcp_seq.h"

namespace netsim::tcp {
struct Tcpcb;  // struct tcpcb (netsim/tcp/tcp_var.h)
}  // namespace netsim::tcp

namespace netsim::cc {

static_assert(sizeof(int) == 4 && sizeof(unsigned int) == 4 && sizeof(unsigned long) == 8 && sizeof(long) == 8,
              "the FreeBSD CC ports assume LP64 integer widths (as on amd64 FreeBSD)");

using tcp::tcp_seq;
using u_int = unsigned int;

class CcAlgo;

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

// tcp_seq.h comparisons (one definition, in netsim/tcp/tcp_seq.h).
using tcp::SEQ_GEQ;
using tcp::SEQ_GT;
using tcp::SEQ_LEQ;
using tcp::SEQ_LT;

// --- struct cc_var (cc.h) -----------------------------------------------------
struct CcVar {
  void* cc_data = nullptr;         // the module's private state (set by cb_init)
  int bytes_this_ack = 0;          // th_ack - snd_una of the current ACK (int, as in FreeBSD)
  tcp_seq curack = 0;              // most recent th_ack handed to the module
  std::uint32_t flags = 0;         // CCF_*
  tcp::Tcpcb* tp = nullptr;        // the connection (FreeBSD: struct tcpcb *)
  std::uint16_t nsegs = 1;         // segments coalesced into this ACK (LRO), 1 without LRO
  std::uint8_t labc = 0;           // per-connection abc_l_var when CCF_USE_LOCAL_ABC
};

// --- sysctls that the CC and SACK code read (per-VNET globals in FreeBSD) ----
// Defaults are FreeBSD main mid-2024 (notes 3.9, 1.1, 1.7). The connection
// carries its own copy (Tcpcb::sysctl).
struct CcSysctls {
  int tcp_do_rfc3465 = 1;           // net.inet.tcp.rfc3465 (ABC)
  int tcp_abc_l_var = 2;            // net.inet.tcp.abc_l_var
  int tcp_do_newcwv = 0;            // net.inet.tcp.newcwv
  int tcp_do_newsack = 1;           // net.inet.tcp.sack.revised (RFC 6675 pipe and rescue rexmit)
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

// FreeBSD's `tick`: microseconds per hardclock tick.
constexpr int tick_usecs(int hz) { return 1000000 / hz; }

}  // namespace netsim::cc
