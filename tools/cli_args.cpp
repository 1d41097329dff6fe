#include "cli_args.h"

#include <charconv>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::cli {
namespace {

const char* const kMainUsage = R"(netsim - packet-level discrete-event network simulator

Usage:
  netsim run FILE [--set KEY=VALUE]... [--seed S] [--format text|json|csv|pb|iperf3|iperf3-json|iperf2]
                  [--app-side client|server] [--out PATH] [--trace-tcp PATH] [-j N]
  netsim validate FILE [--set KEY=VALUE]...
  netsim topo FILE --dot [--set KEY=VALUE]...
  netsim --version
  netsim COMMAND --help

Commands:
  run        run every cell of the scenario's sweep (one cell if it has none) and print the results
  validate   check a scenario and its overrides without running it
  topo       print the scenario's topology as a Graphviz graph

Results go to stdout (or --out), diagnostics to stderr.

Exit codes:
  0  success
  1  a run failed (results of the other runs are still written)
  2  bad command-line usage
  3  invalid scenario or override (the message names file, line, column and field)
  4  results could not be written
)";

const char* const kRunUsage = R"(Usage: netsim run FILE [options]

Runs the scenario; with sweep axes, every cell of their cartesian product, in parallel.

Options:
  --set KEY=VALUE   override a scenario field, e.g. --set links.wan.delay=300us (repeatable;
                    applied in order, before validation; overrides sweep values of the same key)
  --seed S          same as --set seed=S
  --format F        text (default), json (Protobuf JSON mapping), csv (one row per run and flow),
                    pb (binary netsim.results.RunSet), iperf3 (what iperf3 3.17.1 prints for each
                    `app: iperf3` flow), iperf3-json (its -J JSON: one object, or an array of
                    objects when there are several runs or flows), iperf2 (what iperf 2.1.8 -e prints
                    for each `app: iperf2` flow)
  --app-side S      client (default: the -c side's report) or server (the -s side's), for the
                    iperf3, iperf3-json and iperf2 formats; --iperf3-side S is the same
  --out PATH        write results to PATH (atomically) instead of stdout
  --trace-tcp PATH  write every TCP sender's state after each ACK and RTO as CSV (cwnd,
                    ssthresh, pipe, srtt, rto, recovery, ...); with several runs, one file
                    per run: PATH with ".<run>" before its extension (run numbers from 1)
  -j, --jobs N      worker threads for sweep cells (default: all cores)
  -h, --help        this help
)";

const char* const kValidateUsage = R"txt(Usage: netsim validate FILE [--set KEY=VALUE]...

Parses and checks the scenario (and every sweep cell) without running it.
Prints "FILE: ok (N runs)" and exits 0, or prints the first error and exits 3.
)txt";

const char* const kTopoUsage = R"(Usage: netsim topo FILE --dot [--set KEY=VALUE]...

Prints the topology in Graphviz DOT (render with: netsim topo FILE --dot | dot -Tpng -o topo.png).
)";

}  // namespace

std::string usage(const std::string& command) {
  if (command == "run") return kRunUsage;
  if (command == "validate") return kValidateUsage;
  if (command == "topo") return kTopoUsage;
  return kMainUsage;
}

Options parse_args(const std::vector<std::string>& args) {
  Options o;
  if (args.empty()) throw UsageError("missing command");
  const std::string& first = args[0];
  if (first == "--version" || first == "version") {
    o.command = "version";
    return o;
  }
  if (first == "--help" || first == "-h" || first == "help") {
    o.command = "help";
    if (args.size() > 1) {
      o.command = args[1];
      o.help = true;
    }
    return o;
  }
  if (first != "run" && first != "validate" && first != "topo") throw UsageError("unknown command '" + first + "'");
  o.command = first;

  auto value_of = [&args](std::size_t& i) -> const std::string& {
    if (i + 1 >= args.size()) throw UsageError("option " + args[i] + " needs a value");
    return args[++i];
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--set") {
      try {
        o.overrides.push_back(parse_override(value_of(i)));
      } catch (const ScenarioError& e) {
        throw UsageError(std::string("--set: ") + e.what());
      }
    } else if (a == "--seed" && o.command == "run") {
      const std::string& v = value_of(i);
      std::uint64_t seed = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
      if (ec != std::errc{} || end != v.data() + v.size()) throw UsageError("--seed needs an unsigned integer, got '" + v + "'");
      o.overrides.push_back({"seed", v});
    } else if (a == "--format" && o.command == "run") {
      const std::string& v = value_of(i);
      o.iperf2 = v == "iperf2";
      if (v == "iperf3" || v == "iperf3-json") {
        o.iperf3 = v == "iperf3" ? Iperf3Format::text : Iperf3Format::json;
      } else if (v == "iperf2") {
        o.iperf3 = Iperf3Format::none;
      } else {
        auto f = parse_output_format(v);
        if (!f) throw UsageError("--format must be text, json, csv, pb, iperf3, iperf3-json or iperf2, got '" + v + "'");
        o.format = *f;
        o.iperf3 = Iperf3Format::none;
      }
    } else if ((a == "--iperf3-side" || a == "--app-side") && o.command == "run") {
      const std::string& v = value_of(i);
      if (v != "client" && v != "server") throw UsageError(a + " must be client or server, got '" + v + "'");
      o.iperf3_server = v == "server";
    } else if (a == "--out" && o.command == "run") {
      o.out_path = value_of(i);
    } else if (a == "--trace-tcp" && o.command == "run") {
      o.trace_tcp_path = value_of(i);
    } else if ((a == "-j" || a == "--jobs") && o.command == "run") {
      const std::string& v = value_of(i);
      unsigned n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc{} || end != v.data() + v.size() || n == 0) throw UsageError(a + " needs a positive integer, got '" + v + "'");
      o.jobs = n;
    } else if (a == "--dot" && o.command == "topo") {
      o.dot = true;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "' for '" + o.command + "'");
    } else if (o.scenario_file.empty()) {
      o.scenario_file = a;
    } else {
      throw UsageError("unexpected argument '" + a + "' (only one scenario file)");
    }
  }
  if (o.help) return o;
  if (o.scenario_file.empty()) throw UsageError("'" + o.command + "' needs a scenario FILE");
  if (o.command == "topo" && !o.dot) throw UsageError("'topo' needs --dot (the only output format so far)");
  return o;
}

}  // namespace netsim::cli
