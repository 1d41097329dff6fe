// SIFTR's settings on a host: the module's sysctls, the version, and the
// CPU cycles its work costs (netsim/tcp/freebsd/siftr.h, docs/siftr.md).
#pragma once

#include <cstdint>
#include <optional>

#include "netsim/sim/time.h"
#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::tcp {

// CPU cycles per unit of SIFTR's work (docs/siftr.md "Cost model"). The
// defaults are estimates for a 3 GHz NetBurst core; T6's profile fits
// `conversion` (scenarios/profiles/t6-ipv4-fit.profile.yaml).
struct SiftrCosts {
  std::int64_t hook = 1500;          // per TCP packet the hook looks up: mbuf tag alloc + in_pcblookup + locking
  std::int64_t hook_record = 1500;   // per queued record: pkt_node malloc (M_ZERO), tcpcb copy, microtime, enqueue
  std::int64_t toeplitz_per_bit = 3; // 1.3.0, inp_flowid == 0: per bit of the 16 / 40-byte 5-tuple hashed
  std::int64_t flow_setup = 3000;    // first record of a flow: node malloc (+ 1.3.0's address strings)
  std::int64_t key_hash_per_byte = 4;  // 1.2.4 writer: key copy, hash32_buf and memcmp, per key byte
  std::int64_t record = 1500;        // writer per record: alq_getn / alq_post, free(pkt_node), bucket walk
  std::int64_t conversion = 350;     // writer: per snprintf conversion (kvprintf's callback per character)
  std::int64_t log_byte = 0;         // per byte of log text (ALQ copy and the file write); 0: free
  std::int64_t wakeup = 1000;        // per wake-up of the writer thread (mtx_sleep timeout, queue swap)
};

// Where inp_flowid comes from. `nic`: the receive NIC's RSS hash of the
// SYN-ACK (M_HASHTYPE_RSS_TCP_IPV4/6), as on most modern NICs (the sample
// log's); `none`: the driver sets none (lem(4) on 8254x), so inp_flowid stays
// 0 and 1.3.0 computes a software hash for every packet.
enum class SiftrFlowIdSource : std::uint8_t { none, nic };

struct SiftrConfig {
  SiftrVersion version = SiftrVersion::v1_3_0;
  std::uint16_t port_filter = 0;  // net.inet.siftr.port_filter; 0 = every port
  std::uint32_t ppl = 1;          // net.inet.siftr.ppl: one line every ppl packets of a flow
  SiftrFlowIdSource flowid = SiftrFlowIdSource::nic;
  bool inet6 = true;  // the kernel has INET6 (SIFTR_IPV6): ipmode=6 and 1.2.4's 37-byte key
  // pkt_nodes that may wait for the writer at once: M_NOWAIT malloc fails
  // beyond it and the packet is counted as skipped_pkts_malloc. 0: no limit
  // (the kernel's malloc rarely fails).
  std::uint32_t queue_limit = 0;
  std::uint32_t sysver = 1400089;  // __FreeBSD_version of the enable line (14.0-CURRENT, May 2023)
  SimTime enable_at = 0;           // sysctl net.inet.siftr.enabled=1
  std::optional<SimTime> disable_at;  // ...=0; nullopt: at the end of the run (finish())
  // Wall-clock time (microtime) at simulated time 0, in microseconds since the epoch.
  std::int64_t wall_clock_us = 1'700'000'000'000'000;
  SiftrCosts costs;
};

}  // namespace netsim::tcp
