// The receive side of FreeBSD's base TCP stack that works on the tcpcb
// alone: the reassembly queue (tcp_reass) and the receiver's SACK report
// (tcp_update_sack_list, tcp_update_dsack_list, tcp_clean_dsack_blocks,
// tcp_clean_sackreport). FreeBsdTcpSender's input path (tcp_do_segment) and
// tcp_output call them as FreeBSD's do.
//
// Ported behaviour (own code, no source text) from
//   fel1x-developer/freebsd-src @ 2d614aa2fe3e037bd11d351b0b5cfda776e65814:
//     sys/netinet/tcp_reass.c  tcp_reass, tcp_reass_append, tcp_reass_prepend,
//                              tcp_reass_replace, tcp_reass_merge_into,
//                              tcp_reass_merge_forward (net.inet.tcp.reass.maxqueuelen)
//     sys/netinet/tcp_sack.c   tcp_update_sack_list, tcp_update_dsack_list,
//                              tcp_clean_dsack_blocks, tcp_clean_sackreport,
//                              tcp_dsack_block_exists
// See docs/freebsd-receiver.md.
#pragma once

#include <cstdint>

#include "netsim/tcp/tcp_var.h"

namespace netsim::tcp {

inline constexpr std::uint8_t TH_FIN = 0x01;  // tqe_flags and tcp_reass's return value
inline constexpr unsigned kTcpReassMaxQueueLen = 100;  // net.inet.tcp.reass.maxqueuelen

// What tcp_reass reads of the socket: so_rcv's high-water mark (the queue
// limit min(sb_hiwat / t_maxseg + 1, maxqueuelen) is taken from it).
struct TcpReassSocket {
  std::uint32_t sb_hiwat = 0;
  unsigned maxqueuelen = kTcpReassMaxQueueLen;
  // Out: bytes appended to so_rcv (made readable) by this call.
  std::uint32_t appended = 0;
};

// tcp_reass(tp, th, &seq_start, &tlen, m) for an ESTABLISHED connection:
// queues [th_seq, th_seq + *tlenp) (th_seq >= rcv_nxt; the caller trimmed
// old data), merging with neighbouring entries, and presents what is now in
// order, advancing rcv_nxt. On return *seq_start / *tlenp describe the queue
// entry the data ended in (the SACK report's new block), *tlenp is 0 if the
// segment was dropped (queue full). `present_only` is tcp_reass(tp, NULL, ...):
// deliver queued in-order data only. Returns TH_FIN if the presented data
// ends with a FIN.
int tcp_reass(Tcpcb& tp, tcp_seq th_seq, bool th_fin, tcp_seq* seq_start, int* tlenp, TcpReassSocket& so);
int tcp_reass_present(Tcpcb& tp, TcpReassSocket& so);

// tcp_sack.c, receiver side.
bool tcp_dsack_block_exists(const Tcpcb& tp);
void tcp_update_dsack_list(Tcpcb& tp, tcp_seq rcv_start, tcp_seq rcv_end);
void tcp_update_sack_list(Tcpcb& tp, tcp_seq rcv_start, tcp_seq rcv_end);
void tcp_clean_dsack_blocks(Tcpcb& tp);
void tcp_clean_sackreport(Tcpcb& tp);

// tcp_addoptions' limit on SACK blocks: after NOP padding to 2 mod 4 and the
// 2-byte option header, as many 8-byte blocks as fit in TCP_MAXOLEN (40):
// 3 with timestamps (12 option bytes before), 4 without.
constexpr int tcp_sack_blocks_that_fit(bool timestamps) {
  int optlen = timestamps ? 12 : 0;
  while (optlen == 0 || optlen % 4 != 2) ++optlen;
  optlen += 2;  // TCPOLEN_SACKHDR
  return (40 - optlen) / 8;
}

}  // namespace netsim::tcp
