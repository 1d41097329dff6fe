// setsockopt(SO_SNDBUF / SO_RCVBUF, val): the buffer the kernel keeps, and
// what it does to autotuning. The one place netsim applies an application's
// -w (nuttcp, docs/nuttcp.md) to a TCP model's buffers.
//
// Linux, net/core/sock.c sock_setsockopt (2.6 through 6.x): the value is
// capped at net.core.wmem_max / rmem_max, then doubled ("we double it on the
// way in to account for struct sk_buff etc. overhead"), not below
// SOCK_MIN_SNDBUF / SOCK_MIN_RCVBUF, and SOCK_SNDBUF_LOCK / SOCK_RCVBUF_LOCK
// are set: tcp_sndbuf_expand and tcp_rcv_space_adjust leave a locked buffer
// alone (no autotuning). The receive window a Linux receiver then offers is
// tcp_win_from_space(sk_rcvbuf) = space - (space >> tcp_adv_win_scale),
// tcp_adv_win_scale 1 since Linux 3.4 (2 before): half the doubled buffer,
// i.e. the value given.
//
// FreeBSD, kern/uipc_socket.c sosetopt -> sbsetopt -> sbreserve_locked: the
// value as given (up to kern.ipc.maxsockbuf), and SB_AUTOSIZE is cleared
// (net.inet.tcp.sendbuf_auto / recvbuf_auto no longer apply to the socket).
#pragma once

#include <algorithm>
#include <cstdint>

namespace netsim::tcp {

enum class SocketBufferOs { linux, freebsd };

// Linux's floors (include/net/sock.h: 2 * (2048 + sizeof(struct sk_buff))
// rounded as in 5.x; the exact figure only matters for tiny values).
inline constexpr std::uint64_t kLinuxSockMinSndbuf = 4608;
inline constexpr std::uint64_t kLinuxSockMinRcvbuf = 2304;

// The socket buffer (sk_sndbuf / sk_rcvbuf on Linux, sb_hiwat on FreeBSD)
// after setsockopt(SO_SNDBUF or SO_RCVBUF, requested). `core_max` is Linux's
// net.core.wmem_max / rmem_max (0: not capped, as on a tuned test host).
inline std::uint64_t setsockopt_buffer_bytes(SocketBufferOs os, bool send, std::uint64_t requested,
                                             std::uint64_t core_max = 0) {
  if (os == SocketBufferOs::freebsd) return requested;
  const std::uint64_t val = core_max > 0 ? std::min(requested, core_max) : requested;
  return std::max(val * 2, send ? kLinuxSockMinSndbuf : kLinuxSockMinRcvbuf);
}

// The window a Linux receiver offers from a receive buffer of `rcvbuf`
// bytes (tcp_win_from_space with tcp_adv_win_scale = 1).
inline std::uint64_t linux_window_from_rcvbuf(std::uint64_t rcvbuf, int adv_win_scale = 1) {
  return adv_win_scale > 0 ? rcvbuf - (rcvbuf >> adv_win_scale) : (rcvbuf >> -adv_win_scale);
}

}  // namespace netsim::tcp
