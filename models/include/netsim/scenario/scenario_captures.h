// The pcap captures of one run: a scenario's `capture:` block (or, for
// `netsim run --pcap DIR` without one, every host at every point) turned
// into PcapCapture objects on the built network.
//
// Files: DIR/<host>.<point>.pcap for host points, DIR/<link>.<from>.pcap for
// a link direction (the frames `from` transmits on it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netsim/capture/pcap_capture.h"
#include "netsim/capture/wire_frame.h"
#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim {

// The capture of `netsim run --pcap DIR` on a scenario without a block.
CaptureSpec default_capture(const ScenarioSpec& spec);

// Name of a host capture point in file names and YAML ("wire_in", ...).
const char* host_capture_point_name(HostCapturePoint p);

class ScenarioCaptures {
 public:
  // Creates `dir` (and parents) and opens every file. Throws
  // std::runtime_error naming the path when a file cannot be created.
  ScenarioCaptures(BuiltScenario& b, const CaptureSpec& spec, const std::string& dir);
  ScenarioCaptures(const ScenarioCaptures&) = delete;
  ScenarioCaptures& operator=(const ScenarioCaptures&) = delete;

  // Closes every file (all of them, even after a failure) and adds one
  // CaptureStats per file to `out`; throws the first write error.
  void finish(results::RunResult& out);

 private:
  PcapCapture& open(const std::string& point, bool at_far_end);

  BuiltScenario& b_;
  std::string dir_;
  std::uint32_t snaplen_;
  WireAddressBook book_;
  std::vector<std::unique_ptr<PcapCapture>> captures_;
};

}  // namespace netsim
