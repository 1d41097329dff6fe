// One SIFTR log record and the log's enable and disable lines, as plain data:
// what the writer (siftr_log_writer.h) formats and the reader
// (netsim/measure/siftr_log.h) parses, for both log versions.
//
// Fields, names and units follow struct pkt_node and siftr_manage_ops of
//   1.2.4: sobomax/freebsd14_vendor @ 0f7ff3427c99afe8b7a0ccf8638dc10aed02c3f8 sys/netinet/siftr.c
//   1.3.0: FreeBSD main after review D40302 (ccfbsd/siftr 63710a5), sys/netinet/siftr.c
// See shared/design/t3-t6-mechanisms.md section 4.3 and docs/siftr.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "netsim/sim/packet.h"

namespace netsim::tcp {

// The log format's version: 1.2.4 (before D40302) or 1.3.0 (after).
enum class SiftrVersion : std::uint8_t { v1_2_4, v1_3_0 };
inline constexpr const char* siftr_version_name(SiftrVersion v) { return v == SiftrVersion::v1_2_4 ? "1.2.4" : "1.3.0"; }

// pkt_node's direction: DIR_IN (0) is logged as 'i', DIR_OUT (1) as 'o'.
enum class SiftrDirection : std::uint8_t { in = 0, out = 1 };

// An address as the inpcb holds it: network byte order, IPv4 in the first 4 bytes.
struct SiftrAddress {
  IpVersion family = IpVersion::v4;
  std::array<std::uint8_t, 16> bytes{};
  bool operator==(const SiftrAddress&) const = default;
};

// One data line. The tcpcb fields hold the logged values in the logged
// units, which differ by version for srtt and rto (see each field).
struct SiftrRecord {
  SiftrDirection direction = SiftrDirection::out;
  std::uint32_t hash = 0;  // 1.2.4 only: the packet hash field (0 unless net.inet.siftr.genhashes)
  std::int64_t tv_sec = 0;  // microtime() in the pfil hook
  std::int32_t tv_usec = 0;
  SiftrAddress laddr;
  std::uint16_t lport = 0;  // host byte order
  SiftrAddress faddr;
  std::uint16_t fport = 0;
  std::uint32_t snd_ssthresh = 0;  // bytes
  std::uint32_t snd_cwnd = 0;      // bytes
  std::uint32_t t_flags2 = 0;      // 1.3.0: tp->t_flags2; 1.2.4: snd_bwnd, always 0
  std::uint32_t snd_wnd = 0;       // bytes (scaled)
  std::uint32_t rcv_wnd = 0;       // bytes
  std::uint32_t snd_scale = 0;
  std::uint32_t rcv_scale = 0;
  std::int32_t conn_state = 0;  // t_state (TCPS_ESTABLISHED = 4)
  std::uint32_t mss = 0;        // t_maxseg
  std::uint32_t srtt = 0;       // 1.3.0: microseconds, (t_srtt * tick) >> 5; 1.2.4: t_srtt (ticks << 5)
  std::uint32_t sack_enabled = 0;  // TF_SACK_PERMIT set
  std::uint32_t t_flags = 0;
  std::uint32_t rto = 0;  // 1.3.0: microseconds, t_rxtcur * tick; 1.2.4: t_rxtcur (ticks)
  std::uint32_t snd_buf_hiwater = 0;
  std::uint32_t snd_buf_cc = 0;  // sbused(so_snd)
  std::uint32_t rcv_buf_hiwater = 0;
  std::uint32_t rcv_buf_cc = 0;
  std::uint32_t sent_inflight_bytes = 0;  // snd_max - snd_una (SACKed bytes not subtracted)
  std::int32_t t_segqlen = 0;
  std::uint32_t flowid = 0;
  std::uint32_t flowtype = 0;  // M_HASHTYPE_*
  bool operator==(const SiftrRecord&) const = default;
};

// The first line, written when net.inet.siftr.enabled goes to 1.
struct SiftrEnableLine {
  std::int64_t secs = 0;
  std::int32_t usecs = 0;
  std::string siftrver = "1.3.0";
  std::uint32_t hz = 0;             // 1.2.4 only
  std::uint32_t tcp_rtt_scale = 0;  // 1.2.4 only (TCP_RTT_SCALE, 32)
  std::string sysname = "FreeBSD";
  std::uint32_t sysver = 0;         // __FreeBSD_version
  std::uint32_t ipmode = 6;         // 6 on an INET6 kernel, whatever the flows' family
  bool operator==(const SiftrEnableLine&) const = default;
};

// SIFTR's siftr_stats, summed over CPUs, as the disable line prints them.
struct SiftrCounters {
  std::uint64_t n_in = 0;   // TCP packets seen by the hooks, skipped ones included
  std::uint64_t n_out = 0;
  std::uint32_t nskip_in_malloc = 0;  // pkt_node (or flow node, mbuf tag) allocation failed
  std::uint32_t nskip_out_malloc = 0;
  std::uint32_t nskip_in_mtx = 0;  // 1.2.4 only (never incremented there either)
  std::uint32_t nskip_out_mtx = 0;
  std::uint32_t nskip_in_tcpcb = 0;  // no tcpcb, TIME_WAIT (1.2.4) or t_state < ESTABLISHED (1.3.0)
  std::uint32_t nskip_out_tcpcb = 0;
  std::uint32_t nskip_in_inpcb = 0;  // no connection found for the packet
  std::uint32_t nskip_out_inpcb = 0;
  std::uint32_t nskip_in_dejavu = 0;  // reinjected packets (counted, not printed)
  std::uint32_t nskip_out_dejavu = 0;
  std::uint32_t total_skipped() const {
    return nskip_in_malloc + nskip_out_malloc + nskip_in_mtx + nskip_out_mtx + nskip_in_tcpcb + nskip_out_tcpcb +
           nskip_in_inpcb + nskip_out_inpcb;
  }
  bool operator==(const SiftrCounters&) const = default;
};

// One flow_list entry of the disable line.
struct SiftrFlow {
  SiftrAddress laddr;
  std::uint16_t lport = 0;
  SiftrAddress faddr;
  std::uint16_t fport = 0;
  bool operator==(const SiftrFlow&) const = default;
};

// The last line, written when net.inet.siftr.enabled goes back to 0.
struct SiftrDisableLine {
  std::int64_t secs = 0;
  std::int32_t usecs = 0;
  SiftrCounters counters;
  std::vector<SiftrFlow> flows;  // in the order of the flow hash table's buckets
  bool operator==(const SiftrDisableLine&) const = default;
};

}  // namespace netsim::tcp
