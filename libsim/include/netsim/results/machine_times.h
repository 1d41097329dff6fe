// The RunResult fields that depend on the machine: the wall-clock times.
// Everything else is bit-identical for the same scenario and seed, which is
// what comparing two results with these cleared checks.
#pragma once

#include "netsim/results/run_result.pb.h"

namespace netsim::results {

inline void clear_machine_times(RunResult& r) {
  r.clear_wall_time_s();
  r.clear_startup_time_s();
  r.clear_load_time_s();
}

}  // namespace netsim::results
