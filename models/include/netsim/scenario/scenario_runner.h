// Runs one scenario (one sweep cell, one seed) and collects its results.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_spec.h"
#include "netsim/sim/time.h"

namespace netsim {

struct RunOptions {
  // After `duration` the sources stop and the network drains for at most this
  // long, so datagrams still in flight are counted as received, not lost.
  SimTime drain = 1'000'000'000'000 / 10;  // 100 ms
  // When set, every TCP flow's sender writes one CSV row per processed ACK
  // and per RTO here (header first; see write_tcp_trace_header).
  std::ostream* tcp_trace = nullptr;
  // When set, every switch output port writes one CSV row per change of its
  // queue (enqueue, dequeue, tail drop; header first, see write_queue_trace_header).
  std::ostream* queue_trace = nullptr;
  // When set, pcap files go to this directory: the scenario's capture: block
  // points, or every host's points without one (overrides capture.dir).
  std::string pcap_dir;
  // When set, SIFTR logs go here: the log of the run's only SIFTR host, or
  // PATH's stem + ".<host>" + extension per host when there are several. A
  // scenario without `siftr:` gets SIFTR 1.3.0 (defaults) on every FreeBSD
  // host that sends TCP. Overrides siftr.log.
  std::string siftr_path;
};

// The log file of SIFTR host `host` for `netsim run --siftr PATH`.
std::string siftr_log_path(const std::string& path, const std::string& host, std::size_t siftr_hosts);

// The header row of the --trace-tcp CSV.
void write_tcp_trace_header(std::ostream& os);

// The header row of the --trace-queue CSV.
void write_queue_trace_header(std::ostream& os);

// Appends `in` to a results message's repeated overrides, in order.
void add_overrides(google::protobuf::RepeatedPtrField<results::Override>& out, const std::vector<Override>& in);

// The identity fields of a RunResult (version, scenario name and file, seed,
// overrides) as run_scenario fills them; also for a run that failed before
// its scenario could be loaded.
results::RunResult run_result_header(const std::string& scenario_name, const std::string& scenario_file,
                                     std::uint64_t seed, const std::vector<Override>& overrides);

// Builds, runs and measures. Throws ScenarioError for build-time input errors.
results::RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options = {});

}  // namespace netsim
