// Congestion-control module interface: FreeBSD's `struct cc_algo` as a class.
//
// Follows freebsd/freebsd-src @ 00d3b74406db80084e8939450c6b86326dd1de30,
// sys/netinet/cc/cc.h (struct cc_algo). Hook names and arguments are FreeBSD's;
// `struct cc_var *` becomes CcVar&. One CcAlgo object per connection: it owns
// the module's private state (FreeBSD's cc_data, which cb_init also publishes
// through ccv.cc_data). A hook that FreeBSD leaves NULL for a module is a
// no-op default here, which is what the wrappers' NULL checks amount to.
//
// Not ported: mod_init/mod_destroy (module loading), cc_data_sz (memory is
// owned by the object), ecnpkt_handler (no module here has one), ctl_output
// (socket options).
#pragma once

#include <cstdint>

#include "netsim/cc/cc_var.h"
#include "netsim/tcp/tcp_var.h"  // struct tcpcb, reached through CcVar::tp

namespace netsim::cc {

class CcAlgo {
 public:
  virtual ~CcAlgo() = default;

  // The module name as in net.inet.tcp.cc.available ("newreno", "cubic", ...).
  virtual const char* name() const = 0;

  // Initialise per-connection state; returns 0 (FreeBSD: errno on failure).
  virtual int cb_init(CcVar& ccv) = 0;
  // Release per-connection state.
  virtual void cb_destroy(CcVar& /*ccv*/) {}
  // Called by cc_conn_init once the initial window is set.
  virtual void conn_init(CcVar& /*ccv*/) {}
  // Called for every ACK the stack hands to CC (CC_ACK or CC_DUPACK).
  virtual void ack_received(CcVar& ccv, ccsignal_t type) = 0;
  // Called on a congestion signal (CC_NDUPACK, CC_ECN, CC_RTO, CC_RTO_ERR).
  virtual void cong_signal(CcVar& ccv, ccsignal_t type) = 0;
  // Called on the full ACK that ends fast recovery, before snd_una moves.
  virtual void post_recovery(CcVar& /*ccv*/) {}
  // Called by tcp_output after an idle period of at least one RTO.
  virtual void after_idle(CcVar& /*ccv*/) {}
  // HyStart++ round / RTT-sample hooks. Only the RACK and BBR stacks call
  // them; the base ("freebsd") stack never does.
  virtual void newround(CcVar& /*ccv*/, std::uint32_t /*round_cnt*/) {}
  virtual void rttsample(CcVar& /*ccv*/, std::uint32_t /*usec_rtt*/, std::uint32_t /*rxtcnt*/,
                         std::uint32_t /*fas*/) {}
};

}  // namespace netsim::cc
