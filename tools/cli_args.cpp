#include "cli_args.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

#include "netsim/plot/gnuplot_plot.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sweep/slurm_script.h"

namespace netsim::cli {
namespace {

const char* const kMainUsage = R"(netsim - packet-level discrete-event network simulator

Usage:
  netsim run FILE [--set KEY=VALUE]... [--seed S] [--format text|json|csv|pb|iperf3|iperf3-json|iperf2|nuttcp|ping|compare]
                  [--app-side client|server] [--out PATH] [--trace-tcp PATH] [--trace-queue PATH] [--pcap DIR] [--siftr PATH] [-j N]
                  [--profile FILE] [--data PATH[:KEY=VALUE,...]]...
  netsim validate FILE [--set KEY=VALUE]...
  netsim topo FILE --dot [--set KEY=VALUE]...
  netsim sweep FILE --out DIR [--axis KEY=V1,V2,...]... [--seeds N] [--set KEY=VALUE]... [-j N]
                    [--shard I/N] [--resume|--retry-failed|--force] [--emit-slurm [--shards N]]
  netsim results DIR [--by KEY,...] [--metric NAME]... [--format text|csv]
  netsim calibrate FILE [--data PATH[:KEY=VALUE,...]]... [--set KEY=VALUE]... [-j N] [--out PROFILE]
  netsim lab FILE [--out DIR] [--reps N] [--set KEY=VALUE]... [--axis KEY=V1,...]... [--dry-run]
                  [--resume|--retry-failed|--force]
  netsim lab --clean [--all]
  netsim plot compare FILE --out OUT.png|OUT.svg [--set KEY=VALUE]... [--profile FILE]
                      [--data PATH[:KEY=VALUE,...]]... [--results RUNS] [-j N]
  netsim plot trace TRACE.csv --out OUT.png|OUT.svg
  netsim plot intervals RUNS --out OUT.png|OUT.svg
  netsim siftr compare MEASURED.log SIMULATED.log [--bin DURATION] [--session N] [--pair order|tuple]
  netsim --version
  netsim COMMAND --help

Commands:
  run        run every cell of the scenario's sweep (one cell if it has none) and print the results
  validate   check a scenario and its overrides without running it
  topo       print the scenario's topology as a Graphviz graph
  sweep      run a parameter sweep into a resumable result directory (one record per run)
  results    merge and summarize a sweep's result directory
  calibrate  fit the scenario's free parameters (calibrate:) on measured cells, predict the rest
  lab        run the scenario's cells on this machine's real Linux kernel (namespaces, veth, htb,
             iptables, iperf3), writing the measurements `run --data` and `calibrate --data` read
  plot       draw with gnuplot (PNG or SVG): simulated beside measured, a --trace-tcp CSV,
             or the per-interval throughput of a run set
  siftr      compare two SIFTR logs (a FreeBSD host's siftr.log and one `run --siftr` wrote)

run, validate, topo, sweep, calibrate and plot compare take --profile PROFILE.yaml: the fitted
parameters of a calibration profile, applied before any --set.

Results go to stdout (or --out), diagnostics to stderr.

Exit codes:
  0  success
  1  a run failed (results of the other runs are still written)
  2  bad command-line usage
  3  invalid scenario or override (the message names file, line, column and field)
  4  results or a trace could not be written (checked before anything runs; a write that
     still fails at the end puts the results on stdout instead)
  5  lab: this machine cannot run the lab (not root, no network namespaces, a tool missing);
     plot: gnuplot cannot be run
  130  sweep or lab interrupted by SIGINT or SIGTERM (rerun the same command to resume)
)";

const char* const kLabUsage = R"(Usage: netsim lab FILE [options]
       netsim lab --clean [--all]

Runs every cell of the scenario's sweep on this machine's Linux kernel: two
network namespaces joined by a veth pair, htb at the link's rate with its
Ethernet framing, the link's delay from netsim-nfq-delay (NFQUEUE), the
scenario's nth/random filters as iptables statistic rules on the same hook,
the offloads the scenario gives (sender TSO/GSO, receiver GRO), and the real
iperf3 or iperf for each flow. Every repetition gets fresh namespaces, rules
and counters. Fields the lab cannot reproduce are errors (docs/lab.md lists
what it honours). Needs root.

DIR gets cells/<key>/rep<k>/ with the raw outputs (iperf3 JSON, nstat, ss
samples, qdisc and rule counters, the delay daemon's stats, every command
run), summary.csv, environment.json and measurements.yaml, the mapping file
for `netsim run FILE --data DIR/measurements.yaml` and `netsim calibrate`.
Rerunning the same command skips finished repetitions.

Options:
  --out DIR          result directory (default: lab-<scenario name>)
  --reps N           repetitions of every cell (default 1)
  --set KEY=VALUE    pin a field in every cell (drops an axis of the same key)
  --axis KEY=V1,...  an extra or replacing sweep axis, as for sweep
  --dry-run          print each cell's commands and exit (no root needed)
  --resume           skip finished repetitions, failed ones included (the default)
  --retry-failed     redo failed repetitions
  --force            redo every repetition
  --progress P       auto, bar, lines, none
  --clean            remove namespaces left by a lab that was killed (netsim-lab-*, their
                     processes included); --all also those of labs still running
  -h, --help         this help

Exit codes: 0 every repetition succeeded, 1 some failed (recorded with their
error), 2 usage, 3 invalid scenario or a field the lab does not honour,
4 DIR cannot be written, 5 the lab cannot run here (not root, no network
namespaces, a tool missing), 130 interrupted (teardown done; rerun to resume).
See docs/lab.md.
)";

const char* const kSiftrUsage = R"(Usage: netsim siftr compare MEASURED.log SIMULATED.log [--bin DURATION] [--session N] [--pair order|tuple]

Reads two SIFTR logs (siftr.log of FreeBSD's siftr(4), 1.2.4 or 1.3.0; one
measured, one written by `netsim run --siftr PATH`) with the same reader and
prints, per flow and time bin, the mean cwnd, ssthresh, srtt and flight size
of both with the error, and the record counts per direction. See docs/siftr.md.

Options:
  --bin DURATION    bin width, whole microseconds (default 100ms); bins start at each flow's first record
  --session N       the N-th enable..disable session of each file (default 1)
  --pair order|tuple  pair flows by start order (default) or by equal addresses and ports
)";

const char* const kPlotUsage = R"(Usage: netsim plot compare FILE --out OUT.png|OUT.svg [options]
       netsim plot trace TRACE.csv --out OUT.png|OUT.svg
       netsim plot intervals RUNS --out OUT.png|OUT.svg

Draws with gnuplot (Debian: gnuplot-nox), 1200 pixels wide; OUT's extension
picks PNG (cairo) or SVG. See docs/plots.md.

  compare    simulated beside measured for every cell of the scenario's measured: block (or
             of --data, as for run): per cell the simulated mean with its min-max over the
             runs, the measured value with its range, and the +-15% band around it; one panel
             per metric of a metrics: block. Runs the cells as run does, unless --results
             gives a run set: RUNS from `netsim run FILE --format pb --out RUNS`.
  trace      a --trace-tcp CSV: cwnd and ssthresh (KB) and srtt (ms, right axis) over time,
             per flow, with fast retransmits and RTOs marked
  intervals  the per-interval throughput (Mbit/s) of every flow of a run set, one line per
             run and flow (RUNS from `netsim run FILE --set interval=100ms --format pb --out RUNS`)

Options:
  --out PATH        the picture, PATH ending in .png or .svg (written atomically; required)
  --results RUNS    compare: plot these runs instead of running the cells
  --set KEY=VALUE, --profile FILE, --data PATH[:KEY=VALUE,...], -j N
                    compare: as for run
  -h, --help        this help

Exit codes: 0 drawn, 1 a run failed (drawn without it), 2 usage, 3 invalid scenario, no
measured cells, or a trace or run set that cannot be read, 4 OUT cannot be written
(checked before anything runs), 5 gnuplot cannot be run.
)";

const char* const kRunUsage = R"(Usage: netsim run FILE [options]

Runs the scenario; with sweep axes, every cell of their cartesian product, in parallel.

Options:
  --set KEY=VALUE   override a scenario field, e.g. --set links.wan.delay=300us (repeatable;
                    applied in order, before validation; overrides sweep values of the same key);
                    a YAML flow map or list replaces a whole field: --set 'F.match={src_port: 5201}'
  --seed S          same as --set seed=S
  --format F        text (default), json (Protobuf JSON mapping), csv (one row per run and flow),
                    pb (binary netsim.results.RunSet), iperf3 (what iperf3 3.17.1 prints for each
                    `app: iperf3` flow), iperf3-json (its -J JSON: one object, or an array of
                    objects when there are several runs or flows), iperf2 (what iperf 2.1.8 -e prints
                    for each `app: iperf2` flow), nuttcp (what the nuttcp client prints for each
                    `app: nuttcp` flow, 6.x layout or the flow's `version`), ping (what ping(8)
                    prints for each `type: ping`
                    flow, in the flow's `output` layout: freebsd or linux), compare (only the
                    table of simulated beside measured cells and the claims, for a scenario with
                    a measured: block or --data)
  --app-side S      client (default: the -c side's report) or server (the -s side's), for the
                    iperf3, iperf3-json and iperf2 formats; --iperf3-side S is the same
  --out PATH        write results to PATH (atomically) instead of stdout
  --trace-tcp PATH  write every TCP sender's state after each ACK, RTO and persist timeout as
                    CSV (cwnd, ssthresh, pipe, srtt, rto, recovery, ...); with several runs, one
                    file per run: PATH with ".<run>" before its extension (run numbers from 1)
  --trace-queue PATH  write every switch output port's queue after each enqueue, dequeue and
                    tail drop as CSV (time, packets, bytes, drops so far); several runs as
                    for --trace-tcp
  --pcap DIR        write pcap files (nanosecond timestamps, Ethernet headers) into DIR: the
                    scenario's capture: points, or every host's wire_in, ingress (before the
                    ingress filters), accepted, egress and wire_out without one; with several
                    runs, one directory per run: DIR/run-<run>
  --siftr PATH      write the SIFTR log (siftr.log) of the scenario's SIFTR host to PATH (several
                    SIFTR hosts: PATH's stem + ".<host>" + its extension); a scenario without
                    siftr: gets SIFTR 1.3.0 on every FreeBSD host that sends TCP; several runs
                    as for --trace-tcp
  --profile FILE    apply a calibration profile's parameters (before --set)
  --data PATH[:KEY=VALUE,...]
                    compare with measurement files instead of the scenario's measured cells:
                    a mapping file or one file with its cell's keys, as for calibrate (iperf3,
                    iperf2, nuttcp, nstat, netstat -s -p tcp; repeatable); the measured: block
                    still says the keys and the metric (--set measured.metric=rto_count ...)
  -j, --jobs N      worker threads for sweep cells (default: all cores)
  -h, --help        this help
)";

const char* const kCalibrateUsage = R"(Usage: netsim calibrate FILE [options]

Fits the free parameters the scenario declares in its calibrate: block on the
measured cells its fit_on filter selects, then runs every measured cell with the
fitted values. Prints the report (fitted values; every cell with measured,
simulated, error, fitted or predicted; the MAPE of each group) on stdout,
progress on stderr, and writes a calibration profile that `netsim run
--profile` applies. See docs/calibration.md.

Options:
  --data PATH[:KEY=VALUE,...]
                     measured data instead of the scenario's measured cells: a mapping
                     file (YAML, runs: [{file, params}]) or one measurement file (iperf3 -J,
                     iperf3 text, iperf2 -e, nuttcp; Linux nstat or FreeBSD netstat -s -p tcp
                     counters) with the cell's key values (repeatable)
  --set KEY=VALUE    pin a field in every run (not a fitted one)
  --profile FILE     apply another profile first
  --max-evaluations N  replaces calibrate.max_evaluations
  --starts N         replaces calibrate.starts: minimizer runs from the start and Halton points
  --check-seeds N    replaces calibrate.check_seeds: after the fit, every cell on N seeds the fit
                     never ran (0: none)
  --out FILE         where the profile goes (default: <scenario>.profile.yaml here)
  -j, --jobs N       worker threads for the runs of one evaluation (default: all cores)
  -h, --help         this help

SIGINT/SIGTERM stop after the evaluation in flight: the best point so far is
reported and written, exit 130 (a second signal aborts).

Exit codes: 0 done, 1 a run failed, 2 usage, 3 invalid scenario, calibrate block,
data or profile, 4 the profile cannot be written (checked before fitting; a write that
fails at the end prints it on stdout instead), 130 interrupted.
)";

const char* const kValidateUsage = R"txt(Usage: netsim validate FILE [--set KEY=VALUE]...

Parses and checks the scenario (and every sweep cell) without running it.
Prints "FILE: ok (N runs)" and exits 0, or prints the first error and exits 3.
)txt";

const char* const kTopoUsage = R"(Usage: netsim topo FILE --dot [--set KEY=VALUE]...

Prints the topology in Graphviz DOT (render with: netsim topo FILE --dot | dot -Tpng -o topo.png).
)";

const char* const kSweepUsage = R"(Usage: netsim sweep FILE --out DIR [options]

Runs every combination of the scenario's sweep axes, the --axis axes and the
--seeds seeds, each run single-threaded and deterministic, on -j worker threads.
Each run's record is written to DIR/runs/<key>.pb atomically as soon as the run
ends; DIR/results.jsonl and DIR/results.csv are merged from them at the end.
Rerunning the same command skips recorded runs (failed ones included) and runs
the rest, so an interrupted or killed sweep loses only the runs in flight.

Options:
  --out DIR          result directory (created if missing); required
  --axis KEY=V1,...  an extra sweep axis, e.g. --axis hosts.sender.hz=100,1000 (repeatable;
                     replaces the file's axis of the same key; each value is checked first)
  --seeds N          run every cell with N seeds: S, S+1, ..., S+N-1 (S: the scenario's seed)
  --set KEY=VALUE    pin a field in every run (drops an axis of the same key)
  -j, --jobs N       worker threads (default: all cores)
  --shard I/N        run only runs whose index is I mod N (0 <= I < N); shards may share DIR
  --resume           skip recorded runs (the default)
  --retry-failed     skip recorded successes, redo recorded failures
  --force            redo every run, replacing its record
  --progress P       auto (default: a bar on a terminal, else a line every 10 s), bar, lines, none
  --emit-slurm       do not run: write DIR/sweep.sbatch, a Slurm job array of --shards tasks
                     (default 16, at most the number of runs), each running one shard with
                     -j N CPUs (default 1); submit it with: sbatch DIR/sweep.sbatch
  --shards N         array size for --emit-slurm
  -h, --help         this help

Exit codes: 0 all runs succeeded, 1 some runs failed (recorded with their
error), 2 usage, 3 invalid scenario or --set/--axis value, 4 DIR cannot be
written, 130 interrupted (SIGINT/SIGTERM: runs in flight finish and are recorded).
See docs/sweeps.md.
)";

const char* const kResultsUsage = R"(Usage: netsim results DIR [options]

Merges the records in DIR/runs/ (from any number of sweeps and shards) into
DIR/results.jsonl and DIR/results.csv, then prints a summary: one row per
group of axis values and flow, with the mean, min and max of each metric over
the group's runs (usually its seeds).

Options:
  --by KEY,...      parameter keys to group by (default: every parameter that varies, except seed)
  --metric NAME     a numeric flow field: receiver_mbps (default), sender_mbps, retransmits,
                    loss_pct, packets_lost, rto_count, ... (repeatable)
  --format F        text (default, an aligned table) or csv
  -h, --help        this help

Exit codes: 0 all recorded runs succeeded, 1 some recorded runs failed,
2 usage or unknown --by/--metric, 4 DIR cannot be read or written.
)";

// What `netsim plot` needs beyond the options' own syntax.
void check_plot_args(const Options& o) {
  const std::string& kind = o.plot_kind;
  if (kind.empty()) throw UsageError("'plot' needs what to draw: compare, trace or intervals");
  if (kind != "compare" && kind != "trace" && kind != "intervals") {
    throw UsageError("unknown plot '" + kind + "' (compare, trace or intervals)");
  }
  if (o.scenario_file.empty()) {
    throw UsageError("'plot " + kind + "' needs " +
                     (kind == "compare" ? "a scenario FILE" : kind == "trace" ? "a --trace-tcp CSV" : "a run set RUNS"));
  }
  if (!o.out_path) throw UsageError("'plot' needs --out OUT.png or OUT.svg");
  plot::PlotFormat format{};
  if (!plot::plot_format_of(*o.out_path, format)) {
    throw UsageError("--out must end in .png or .svg (the picture's format), got '" + *o.out_path + "'");
  }
  if (kind != "compare" && (!o.overrides.empty() || o.profile_path || !o.data.empty() || o.results_path || o.jobs != 0)) {
    throw UsageError("--set, --profile, --data, --results and -j are for 'plot compare'");
  }
}

}  // namespace

std::string usage(const std::string& command) {
  if (command == "run") return kRunUsage;
  if (command == "validate") return kValidateUsage;
  if (command == "topo") return kTopoUsage;
  if (command == "sweep") return kSweepUsage;
  if (command == "results") return kResultsUsage;
  if (command == "calibrate") return kCalibrateUsage;
  if (command == "lab") return kLabUsage;
  if (command == "plot") return kPlotUsage;
  if (command == "siftr") return kSiftrUsage;
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
  if (first != "run" && first != "validate" && first != "topo" && first != "sweep" && first != "results" &&
      first != "calibrate" && first != "lab" && first != "plot" && first != "siftr") {
    throw UsageError("unknown command '" + first + "'");
  }
  o.command = first;

  auto value_of = [&args](std::size_t& i) -> const std::string& {
    if (i + 1 >= args.size()) throw UsageError("option " + args[i] + " needs a value");
    return args[++i];
  };
  // The whole text as an unsigned decimal, or nothing.
  auto parse_unsigned = [](const std::string& v) -> std::optional<std::uint64_t> {
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size()) return std::nullopt;
    return n;
  };
  auto positive = [&parse_unsigned](const std::string& opt, const std::string& v) {
    const std::optional<std::uint64_t> n = parse_unsigned(v);
    if (!n || *n == 0) throw UsageError(opt + " needs a positive integer, got '" + v + "'");
    return *n;
  };
  const bool sweep = o.command == "sweep";
  const bool results = o.command == "results";
  const bool calibrate = o.command == "calibrate";
  const bool lab = o.command == "lab";
  const bool plot = o.command == "plot";
  const bool siftr = o.command == "siftr";
  std::string siftr_what;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--set" && !results) {
      try {
        o.overrides.push_back(parse_override(value_of(i)));
      } catch (const ScenarioError& e) {
        throw UsageError(std::string("--set: ") + e.what());
      }
    } else if (a == "--seed" && o.command == "run") {
      const std::string& v = value_of(i);
      if (!parse_unsigned(v)) throw UsageError("--seed needs an unsigned integer, got '" + v + "'");
      o.overrides.push_back({"seed", v});
    } else if (a == "--format" && o.command == "run") {
      const std::string& v = value_of(i);
      o.iperf2 = v == "iperf2";
      o.nuttcp = v == "nuttcp";
      o.ping = v == "ping";
      o.compare = v == "compare";
      if (v == "iperf3" || v == "iperf3-json") {
        o.iperf3 = v == "iperf3" ? Iperf3Format::text : Iperf3Format::json;
      } else if (v == "iperf2" || v == "nuttcp" || v == "ping" || v == "compare") {
        o.iperf3 = Iperf3Format::none;
      } else {
        auto f = parse_output_format(v);
        if (!f) {
          throw UsageError("--format must be text, json, csv, pb, iperf3, iperf3-json, iperf2, nuttcp, ping or compare, got '" + v + "'");
        }
        o.format = *f;
        o.iperf3 = Iperf3Format::none;
      }
    } else if ((a == "--iperf3-side" || a == "--app-side") && o.command == "run") {
      const std::string& v = value_of(i);
      if (v != "client" && v != "server") throw UsageError(a + " must be client or server, got '" + v + "'");
      o.iperf3_server = v == "server";
    } else if (a == "--reps" && lab) {
      const std::uint64_t n = positive(a, value_of(i));
      if (n > 1000) throw UsageError("--reps needs a positive integer up to 1000");
      o.reps = static_cast<int>(n);
    } else if (a == "--dry-run" && lab) {
      o.dry_run = true;
    } else if (a == "--clean" && lab) {
      o.clean = true;
    } else if (a == "--all" && lab) {
      o.clean_all = true;
    } else if (a == "--axis" && (sweep || lab)) {
      try {
        o.axes.push_back(sweep::parse_axis(value_of(i)));
      } catch (const sweep::SweepUsageError& e) {
        throw UsageError(e.what());
      }
    } else if (a == "--seeds" && sweep) {
      o.seeds = positive(a, value_of(i));
    } else if (a == "--shard" && sweep) {
      try {
        o.shard = sweep::parse_shard(value_of(i));
      } catch (const sweep::SweepUsageError& e) {
        throw UsageError(e.what());
      }
    } else if ((a == "--resume" || a == "--retry-failed" || a == "--force") && (sweep || lab)) {
      o.resume = a == "--resume" ? sweep::ResumeMode::resume
                 : a == "--force" ? sweep::ResumeMode::force
                                  : sweep::ResumeMode::retry_failed;
    } else if (a == "--emit-slurm" && sweep) {
      o.emit_slurm = true;
    } else if (a == "--shards" && sweep) {
      o.slurm_shards = static_cast<std::size_t>(positive(a, value_of(i)));
    } else if (a == "--progress" && (sweep || lab)) {
      o.progress = value_of(i);
      if (o.progress != "auto" && o.progress != "bar" && o.progress != "lines" && o.progress != "none") {
        throw UsageError("--progress must be auto, bar, lines or none, got '" + o.progress + "'");
      }
    } else if (a == "--by" && results) {
      const std::string& v = value_of(i);
      for (std::size_t start = 0; start <= v.size();) {
        const std::size_t comma = std::min(v.find(',', start), v.size());
        if (comma == start) throw UsageError("--by needs KEY[,KEY...], got '" + v + "'");
        o.group_by.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--metric" && results) {
      o.metrics.push_back(value_of(i));
    } else if (a == "--format" && results) {
      const std::string& v = value_of(i);
      if (v != "text" && v != "csv") throw UsageError("--format must be text or csv for 'results', got '" + v + "'");
      o.format = v == "csv" ? OutputFormat::csv : OutputFormat::text;
    } else if (a == "--profile" && !results) {
      if (o.profile_path) throw UsageError("--profile given twice (one profile per run)");
      o.profile_path = value_of(i);
    } else if (a == "--data" && (calibrate || plot || o.command == "run")) {
      o.data.push_back(value_of(i));
    } else if (a == "--max-evaluations" && calibrate) {
      const std::uint64_t n = positive(a, value_of(i));
      if (n > 100000) throw UsageError("--max-evaluations needs a positive integer up to 100000");
      o.max_evaluations = static_cast<int>(n);
    } else if (a == "--starts" && calibrate) {
      const std::uint64_t n = positive(a, value_of(i));
      if (n > 64) throw UsageError("--starts needs a positive integer up to 64");
      o.starts = static_cast<int>(n);
    } else if (a == "--check-seeds" && calibrate) {
      const std::string& v = value_of(i);
      const std::optional<std::uint64_t> n = parse_unsigned(v);
      if (!n || *n > 1000) throw UsageError("--check-seeds needs an integer from 0 to 1000, got '" + v + "'");
      o.check_seeds = static_cast<int>(*n);
    } else if (a == "--results" && plot) {
      o.results_path = value_of(i);
    } else if (a == "--out" && (o.command == "run" || sweep || calibrate || lab || plot)) {
      o.out_path = value_of(i);
    } else if (a == "--trace-tcp" && o.command == "run") {
      o.trace_tcp_path = value_of(i);
    } else if (a == "--trace-queue" && o.command == "run") {
      o.trace_queue_path = value_of(i);
    } else if (a == "--siftr" && o.command == "run") {
      o.siftr_path = value_of(i);
      if (o.siftr_path->empty()) throw UsageError("--siftr needs a file name");
    } else if (a == "--pcap" && o.command == "run") {
      o.pcap_dir = value_of(i);
      if (o.pcap_dir->empty()) throw UsageError("--pcap needs a directory");
    } else if ((a == "-j" || a == "--jobs") && (o.command == "run" || sweep || calibrate || plot)) {
      const std::uint64_t n = positive(a, value_of(i));
      if (n > 4096) throw UsageError(a + " needs a positive integer up to 4096, got '" + args[i] + "'");
      o.jobs = static_cast<unsigned>(n);
    } else if (a == "--dot" && o.command == "topo") {
      o.dot = true;
    } else if (siftr && a == "--bin") {
      o.siftr_bin = value_of(i);
    } else if (siftr && a == "--session") {
      const std::uint64_t n = positive(a, value_of(i));
      if (n > 1000000) throw UsageError("--session needs a positive integer");
      o.siftr_session = static_cast<int>(n);
    } else if (siftr && a == "--pair") {
      const std::string& v = value_of(i);
      if (v != "order" && v != "tuple") throw UsageError("--pair must be order or tuple, got '" + v + "'");
      o.siftr_pair_by_tuple = v == "tuple";
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "' for '" + o.command + "'");
    } else if (siftr && siftr_what.empty()) {
      siftr_what = a;
      if (a != "compare") throw UsageError("unknown siftr command '" + a + "' (compare)");
    } else if (siftr && !o.scenario_file.empty() && o.siftr_simulated.empty()) {
      o.siftr_simulated = a;
    } else if (plot && o.plot_kind.empty()) {
      o.plot_kind = a;
    } else if (o.scenario_file.empty()) {
      o.scenario_file = a;
    } else {
      throw UsageError("unexpected argument '" + a + "' (only one scenario file)");
    }
  }
  if (o.help) return o;
  if (lab && o.clean) {
    if (!o.scenario_file.empty()) throw UsageError("'lab --clean' takes no scenario FILE");
    return o;
  }
  if (o.clean_all) throw UsageError("--all goes with --clean");
  if (plot) check_plot_args(o);
  if (siftr && (siftr_what.empty() || o.siftr_simulated.empty())) {
    throw UsageError("'siftr' needs: compare MEASURED.log SIMULATED.log");
  }
  if (o.scenario_file.empty()) throw UsageError("'" + o.command + "' needs " + (results ? "a result DIR" : "a scenario FILE"));
  if (sweep && !o.out_path) throw UsageError("'sweep' needs --out DIR (where the run records go)");
  if (o.slurm_shards != 0 && !o.emit_slurm) throw UsageError("--shards is for --emit-slurm; to run one shard use --shard I/N");
  if (o.emit_slurm && o.shard) throw UsageError("--emit-slurm writes a script for all shards; drop --shard");
  if (o.command == "topo" && !o.dot) throw UsageError("'topo' needs --dot (the only output format so far)");
  return o;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string s = "netsim";
  for (const auto& a : args) s += " " + sweep::shell_quote(a);
  return s;
}

}  // namespace netsim::cli
