// The CPU time an ESXi host spends on VMXNET3 traffic between its VMs
// (netsim/net/vswitch.h): the vNIC backend's own world, not the guests'.
#pragma once

#include "netsim/sim/time.h"

namespace netsim {

// The hypervisor's time per event; all zero: the vSwitch takes no time.
struct HypervisorCosts {
  SimTime frame = 0;         // one frame taken from a vNIC's transmit ring and delivered
  SimTime segment = 0;       // one MTU segment cut from a TSO frame
  SimTime copy_per_kib = 0;  // copying 1024 bytes into the receiving guest's buffers
  double speed = 1.0;        // the host's speed relative to the one the costs were taken on (HostCpuCosts::speed)
  bool any() const { return frame > 0 || segment > 0 || copy_per_kib > 0; }
};

}  // namespace netsim
