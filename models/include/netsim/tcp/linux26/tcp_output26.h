// The sizing and send tests of the 2.6.12-2.6.14 Linux sender's output path
// (net/ipv4/tcp_output.c, include/net/tcp.h), as functions of the
// connection state, so that each rule can be checked on hand-built states.
//
// Read at:
//   2.6.12: the 2.6.12-era tcp_output.c of the code index (id 834396994:
//           tcp_current_mss with sysctl_tcp_tso_win_divisor = 8, mss_cache_std,
//           the one-loop tcp_write_xmit, tcp_push_one via tcp_snd_test);
//           tcp_snd_test of include/net/tcp.h as pwanbul/linux-2.6.11 has it
//           (5b831ca4; the same form in 2.6.12 per the design note).
//   2.6.13/2.6.14: no copy of either was found; the rules are those of the
//           2.6.15/16-era tcp_output.c (index id 3865406: tcp_tso_should_defer,
//           tcp_write_xmit with tcp_window_allows and tso_fragment,
//           tcp_current_mss's xmit_size_goal, sysctl_tcp_tso_win_divisor = 3),
//           which the 2.6.13-rc3 "Move to new TSO segmenting scheme" and
//           -rc7 "Do TSO deferral even if tail SKB can go out now" commits
//           introduced (design note t3-t6-mechanisms.md 1.2).
//   2.6.19 "[TCP]: Bound TSO defer time" (ae8064ac32d0) and the TSO-aware
//           tcp_is_cwnd_limited of later 2.6 kernels: switches, not versions.
#pragma once

#include <cstdint>

#include "netsim/tcp/linux26/tcp_sock26.h"

namespace netsim::tcp::lnx26 {

// sysctl_tcp_tso_win_divisor's default: 8 in 2.6.12, 3 from 2.6.13.
int default_tso_win_divisor(KernelVersion v);

// The largest TSO skb (bytes) before rounding: 65535 less the IP header
// and tp->tcp_header_len (TCP header with its options), halved to
// max_window/2 when that is smaller (but not below 68 - tcp_header_len).
std::uint32_t tso_large_mss(std::uint32_t max_window, std::uint32_t tcp_header_len, std::uint32_t ip_header_len = 20);

// 2.6.12 tcp_current_mss(sk, 1): the skb size tcp_sendmsg builds and
// tcp_write_xmit splits to, a whole number of MSS, at most 1/divisor of cwnd
// (at least one MSS).
std::uint32_t current_mss_2_6_12(const Tcp26Sock& tp, std::uint32_t tcp_header_len, int tso_win_divisor);

// 2.6.13+ tp->xmit_size_goal: the large MSS rounded down to whole MSS, no
// longer tied to cwnd.
std::uint32_t xmit_size_goal(const Tcp26Sock& tp, std::uint32_t tcp_header_len);

// tcp_skb_pcount of an skb of `len` bytes at `mss` (tcp_set_skb_tso_segs).
inline std::uint32_t tso_segs(std::uint32_t len, std::uint32_t mss) { return len <= mss ? 1 : (len + mss - 1) / mss; }

// 2.6.12 tcp_snd_test (Nagle aside): the whole skb must fit in cwnd
// (in_flight + pcount - 1 < cwnd) and in the receive window.
bool snd_test_2_6_12(const Tcp26Sock& tp, std::uint32_t seq, std::uint32_t end_seq, std::uint32_t pcount);

// tcp_cwnd_test: segments cwnd allows now (0: none).
inline std::uint32_t cwnd_test(const Tcp26Sock& tp) {
  const std::uint32_t in_flight = tcp_packets_in_flight(tp);
  return in_flight < tp.snd_cwnd ? tp.snd_cwnd - in_flight : 0;
}

// tcp_snd_wnd_test: the skb's first segment fits in the window.
bool snd_wnd_test(const Tcp26Sock& tp, std::uint32_t seq, std::uint32_t end_seq, std::uint32_t mss);

// tcp_window_allows: min(window left from seq, cwnd quota in bytes).
std::uint32_t window_allows(const Tcp26Sock& tp, std::uint32_t seq, std::uint32_t mss, std::uint32_t cwnd_quota);

// tcp_tso_should_defer for an skb of pcount > 1 at `seq` (2.6.13+), with
// the 2.6.19 bound as a switch: `deferred` is tp->tso_deferred (0, or
// 1 | jiffies << 1 of the last deferral: that commit stamps every one, so
// deferring stops only after a gap of two jiffies between calls) and is
// updated as that commit does.
struct DeferInput {
  bool fin = false;
  int tso_win_divisor = 3;
  std::uint32_t max_burst = 3;  // tcp_max_burst(tp)
  bool bound = false;           // "[TCP]: Bound TSO defer time"
};
bool tso_should_defer(const Tcp26Sock& tp, std::uint32_t seq, const DeferInput& in, std::uint32_t& deferred);

// The later TSO-aware tcp_is_cwnd_limited: cwnd counts as used when what
// is left of it is too small for the deferral rule to send.
bool tso_aware_cwnd_limited(const Tcp26Sock& tp, std::uint32_t in_flight, bool tso, int tso_win_divisor,
                            std::uint32_t max_burst = 3);

}  // namespace netsim::tcp::lnx26
