// Command-line parsing for the `netsim` tool.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_spec.h"
#include "netsim/sweep/sweep.h"

namespace netsim::cli {

// Documented exit codes (see `netsim --help`).
enum ExitCode : int {
  kOk = 0,
  kRunFailed = 1,      // at least one run failed; the others' results were still written
  kUsage = 2,          // bad command-line syntax
  kBadScenario = 3,    // the scenario file or an override is invalid
  kOutputError = 4,    // results could not be written
  kLabUnavailable = 5, // lab: not root, no network namespaces, or a tool missing
  kToolMissing = 5,    // plot: gnuplot cannot be run (the same code as lab's missing tools)
  kInterrupted = 130,  // sweep stopped by SIGINT/SIGTERM (128 + SIGINT, as shells report it); rerun to resume
};

// A command-line mistake; what() is the message, printed with a hint to --help.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --format iperf3 / iperf3-json: what iperf3 itself would print (per iperf3 flow).
enum class Iperf3Format { none, text, json };

struct Options {
  std::string command;  // run | validate | topo | sweep | results | calibrate | lab | plot | help | version
  std::string scenario_file;  // results: the result directory; plot trace: the CSV; plot intervals: the run set
  std::vector<Override> overrides;  // --set and --seed, in command-line order
  OutputFormat format = OutputFormat::text;
  std::optional<std::string> out_path;
  std::optional<std::string> trace_tcp_path;
  std::optional<std::string> trace_queue_path;  // --trace-queue: switch port occupancy, CSV
  std::optional<std::string> pcap_dir;          // --pcap: capture files (netsim/scenario/scenario_captures.h)
  std::optional<std::string> siftr_path;        // --siftr: SIFTR logs (netsim/tcp/freebsd/siftr.h)
  Iperf3Format iperf3 = Iperf3Format::none;
  bool ping = false;           // --format ping: what ping(8) prints (per ping flow)
  bool compare = false;        // --format compare: only the simulated-vs-measured table and claims
  bool nuttcp = false;         // --format nuttcp: what nuttcp prints (per nuttcp flow)
  bool iperf2 = false;         // --format iperf2: what iperf 2.1.8 prints (per iperf2 flow)
  bool iperf3_server = false;  // --app-side server (or --iperf3-side server): the server's report (iperf3 and iperf2)  // --iperf3-side server  // --trace-tcp: per-ACK sender state, CSV
  bool dot = false;
  bool help = false;
  unsigned jobs = 0;  // 0: all cores

  // sweep
  std::vector<sweep::AxisArg> axes;  // --axis, in command-line order
  std::uint64_t seeds = 0;           // --seeds N; 0: the scenario's own seeds
  std::optional<sweep::Shard> shard;
  sweep::ResumeMode resume = sweep::ResumeMode::resume;
  bool emit_slurm = false;
  std::size_t slurm_shards = 0;      // --shards; 0: the default
  std::string progress = "auto";     // auto | bar | lines | none

  std::optional<std::string> profile_path;  // --profile: a calibration profile's parameters, before --set

  // calibrate
  std::vector<std::string> data;  // --data PATH or PATH:key=value,...; repeatable (run too)
  int max_evaluations = 0;        // --max-evaluations; 0: the scenario's
  int starts = 0;                 // --starts; 0: the scenario's
  int check_seeds = -1;           // --check-seeds; -1: the scenario's

  // lab
  int reps = 1;
  bool dry_run = false;
  bool clean = false;
  bool clean_all = false;

  // plot
  std::string siftr_simulated;              // siftr compare: the second log
  std::optional<std::string> siftr_bin;     // siftr compare --bin
  int siftr_session = 1;                    // siftr compare --session (1-based, both files)
  bool siftr_pair_by_tuple = false;         // siftr compare --pair tuple
  std::string plot_kind;                    // compare | trace | intervals
  std::optional<std::string> results_path;  // plot compare --results: a run set instead of running

  // results
  std::vector<std::string> group_by;  // --by
  std::vector<std::string> metrics;   // --metric, repeatable
};

Options parse_args(const std::vector<std::string>& args);

// "netsim ARG..." with each argument quoted for a POSIX shell where needed:
// the command to print for a resume hint or record in a profile.
std::string command_line(const std::vector<std::string>& args);
std::string usage(const std::string& command);

}  // namespace netsim::cli
