// netsim command-line tool: run, validate and draw scenarios; sweep into result directories.
#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <optional>

#include "calibrate_command.h"
#include "cell_runs.h"
#include "cli_args.h"
#include "output_file.h"
#include "lab_command.h"
#include "plot_command.h"
#include "siftr_command.h"
#include "sweep_commands.h"
#include "netsim/app/iperf2_from_result.h"
#include "netsim/app/nuttcp_from_result.h"
#include "netsim/app/ping_report.h"
#include "netsim/app/iperf3_from_result.h"
#include "netsim/scenario/scenario_builder.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/version.h"

namespace netsim::cli {
namespace {

// Text adds the simulated-vs-measured table after the runs; CSV becomes one
// row per run of the compared flow with the measured value beside it.
// iperf3's own report of every iperf3 flow of every run: text blocks under a
// "== run" header when there are several, or -J JSON (one object, else an array).
void write_iperf3(std::ostream& out, const Options& o, const results::RunSet& set) {
  const app::Iperf3Side side = o.iperf3_server ? app::Iperf3Side::server : app::Iperf3Side::client;
  std::size_t count = 0;
  for (const auto& r : set.runs()) count += static_cast<std::size_t>(r.iperf3_size());
  if (count == 0) throw std::runtime_error("--format iperf3: the scenario has no flow with app: iperf3");
  const bool many = count > 1;
  if (o.iperf3 == Iperf3Format::json && many) out << "[\n";
  std::size_t n = 0;
  for (int i = 0; i < set.runs_size(); ++i) {
    const results::RunResult& r = set.runs(i);
    for (const results::Iperf3Result& x : r.iperf3()) {
      const app::Iperf3Test t = app::iperf3_test_from_result(x, r.seed());
      if (o.iperf3 == Iperf3Format::json) {
        if (n > 0) out << ",\n";
        app::write_iperf3_json(out, t, side);
      } else {
        if (many) {
          out << (n > 0 ? "\n" : "") << "== run " << (i + 1) << "/" << set.runs_size() << ": " << r.scenario_name()
              << " flow " << x.flow();
          for (const auto& ov : r.overrides()) out << "  " << ov.key() << "=" << ov.value();
          out << "\n";
        }
        app::write_iperf3_text(out, t, side);
      }
      ++n;
    }
  }
  if (o.iperf3 == Iperf3Format::json && many) out << "\n]\n";
}

// write(x) for every app record x of every run (records(run): its iperf2
// or ping results), under a "== run" header when there are several.
template <typename Records, typename Write>
void write_app_reports(std::ostream& out, const results::RunSet& set, Records records, Write write) {
  std::size_t count = 0;
  for (const auto& r : set.runs()) count += static_cast<std::size_t>(records(r).size());
  std::size_t n = 0;
  for (int i = 0; i < set.runs_size(); ++i) {
    const results::RunResult& r = set.runs(i);
    for (const auto& x : records(r)) {
      if (count > 1) {
        out << (n > 0 ? "\n" : "") << "== run " << (i + 1) << "/" << set.runs_size() << ": " << r.scenario_name()
            << " flow " << x.flow();
        for (const auto& ov : r.overrides()) out << "  " << ov.key() << "=" << ov.value();
        out << "\n";
      }
      write(x);
      ++n;
    }
  }
}

// iperf 2.1.8's -e report of every iperf2 flow of every run.
void write_iperf2(std::ostream& out, const Options& o, const results::RunSet& set) {
  const app::Iperf2Side side = o.iperf3_server ? app::Iperf2Side::server : app::Iperf2Side::client;
  std::size_t count = 0;
  for (const auto& r : set.runs()) count += static_cast<std::size_t>(r.iperf2_size());
  if (count == 0) throw std::runtime_error("--format iperf2: the scenario has no flow with app: iperf2");
  write_app_reports(
      out, set, [](const results::RunResult& r) -> const auto& { return r.iperf2(); },
      [&](const results::Iperf2Result& x) { app::write_iperf2_text(out, app::iperf2_test_from_result(x), side); });
}

// What the nuttcp client prints for every nuttcp flow of every run.
void write_nuttcp(std::ostream& out, const results::RunSet& set) {
  write_app_reports(
      out, set, [](const results::RunResult& r) -> const auto& { return r.nuttcp(); },
      [&](const results::NuttcpResult& x) { app::write_nuttcp_text(out, app::nuttcp_report_from_result(x)); });
}

// ping(8)'s output for every ping flow of every run.
void write_ping(std::ostream& out, const results::RunSet& set) {
  write_app_reports(
      out, set, [](const results::RunResult& r) -> const auto& { return r.ping(); },
      [&](const results::PingResult& x) { app::write_ping_text(out, x); });
}

void write_all(std::ostream& out, const Options& o, const results::RunSet& set, const std::optional<MeasuredSpec>& m) {
  if (o.ping) {
    write_ping(out, set);
    return;
  }
  if (o.iperf2) {
    write_iperf2(out, o, set);
    return;
  }
  if (o.nuttcp) {
    write_nuttcp(out, set);
    return;
  }
  if (o.iperf3 != Iperf3Format::none) {
    write_iperf3(out, o, set);
    return;
  }
  if (o.compare) {
    write_comparison_text(out, set, *m);
    return;
  }
  if (m && o.format == OutputFormat::csv) {
    write_comparison_csv(out, set, *m);
    return;
  }
  write_results(out, set, o.format);
  if (m && !m->cells.empty() && o.format == OutputFormat::text) write_comparison_text(out, set, *m);
}

int write_output(const Options& o, const results::RunSet& set, const std::optional<MeasuredSpec>& m) {
  if (!o.out_path) {
    write_all(std::cout, o, set, m);
    std::cout.flush();
    return std::cout ? kOk : kOutputError;
  }
  const bool written = write_or_rescue(*o.out_path, "results", [&](std::ostream& f) { write_all(f, o, set, m); });
  return written ? kOk : kOutputError;
}

int command_run(const Options& o) {
  std::vector<ScenarioSpec> cells = load_cells(o);
  ComparedCells compared = compared_cells(o, cells.front(), "run");
  if (compared.data_unusable) return kBadScenario;
  const std::optional<MeasuredSpec>& measured = compared.measured;
  if (o.compare && (!measured || measured->cells.empty())) {
    std::cerr << "netsim: --format compare: " << o.scenario_file << " has no measured: cells (and no --data)\n";
    return kUsage;
  }
  if (o.iperf3 != Iperf3Format::none) {
    const auto& flows = cells.front().tcp_flows;
    if (std::none_of(flows.begin(), flows.end(), [](const TcpFlowSpec& f) { return f.app == "iperf3"; })) {
      std::cerr << "netsim: --format iperf3: " << o.scenario_file << " has no flow with app: iperf3\n";
      return kUsage;
    }
  }
  if (o.ping && cells.front().ping_flows.empty()) {
    std::cerr << "netsim: --format ping: " << o.scenario_file << " has no flow with type: ping\n";
    return kUsage;
  }
  if (o.iperf2) {
    const auto& flows = cells.front().tcp_flows;
    if (std::none_of(flows.begin(), flows.end(), [](const TcpFlowSpec& f) { return f.app == "iperf2"; })) {
      std::cerr << "netsim: --format iperf2: " << o.scenario_file << " has no flow with app: iperf2\n";
      return kUsage;
    }
  }
  if (o.nuttcp) {
    const ScenarioSpec& c = cells.front();
    const bool any = std::any_of(c.tcp_flows.begin(), c.tcp_flows.end(), [](const TcpFlowSpec& f) { return f.app == "nuttcp"; }) ||
                     std::any_of(c.udp_flows.begin(), c.udp_flows.end(), [](const UdpFlowSpec& f) { return f.app == "nuttcp"; });
    if (!any) {
      std::cerr << "netsim: --format nuttcp: " << o.scenario_file << " has no flow with app: nuttcp\n";
      return kUsage;
    }
  }
  // Every file the run will write is checked now, not after the simulation.
  if (o.out_path) {
    if (const std::string why = cannot_write_atomically(*o.out_path); !why.empty()) {
      std::cerr << "netsim: cannot write " << *o.out_path << ": " << why << "\n";
      return kOutputError;
    }
  }
  for (const auto& [base, what] : {std::pair{o.trace_tcp_path, "TCP"}, std::pair{o.trace_queue_path, "queue"}}) {
    if (!base) continue;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string path = trace_path(*base, i, cells.size());
      if (const std::string why = cannot_create(path); !why.empty()) {
        std::cerr << "netsim: cannot write " << what << " trace " << path << ": " << why << "\n";
        return kOutputError;
      }
    }
  }
  const CellRunOptions ro = cell_run_options(o);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::optional<std::string> capture = cell_capture_dir(cells[i], ro, i, cells.size());
    if (!capture) continue;
    const std::string& dir = *capture;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string why = ec ? ec.message() : cannot_create(std::filesystem::path(dir) / ".netsim-probe");
    if (!why.empty()) {
      std::cerr << "netsim: cannot write captures into " << dir << ": " << why << "\n";
      return kOutputError;
    }
  }
  const results::RunSet set = run_cells(cells, o);
  const bool failed = std::any_of(set.runs().begin(), set.runs().end(),
                                  [](const results::RunResult& r) { return !r.error().empty(); });
  const int written = write_output(o, set, measured);
  if (written != kOk) return written;
  return failed ? kRunFailed : kOk;
}

int command_validate(const Options& o) {
  std::vector<ScenarioSpec> cells = load_cells(o);
  parse_measured(cells.front());  // a malformed measured block is an input error too
  for (const ScenarioSpec& spec : cells) build_scenario(spec);  // catches combination errors too
  std::cout << o.scenario_file << ": ok (" << cells.size() << (cells.size() == 1 ? " run" : " runs") << ")\n";
  return kOk;
}

int command_topo(const Options& o) {
  ScenarioSpec spec = load_scenario(o.scenario_file, o.overrides);
  build_topology(spec).write_dot(std::cout, spec.name);
  return kOk;
}

int dispatch(const std::vector<std::string>& args) {
  Options o;
  try {
    o = parse_args(args);
  } catch (const UsageError& e) {
    std::cerr << "netsim: " << e.what() << "\n" << "Try 'netsim --help'.\n";
    return kUsage;
  }
  if (o.command == "version") {
    std::cout << "netsim " << NETSIM_VERSION << "\n";
    return kOk;
  }
  if (o.command == "help" || o.help) {
    std::cout << usage(o.command);
    return kOk;
  }
  try {
    // The profile's parameters come first, so that --set still wins on the same key.
    o.overrides = with_profile(o.profile_path, std::move(o.overrides));
    if (o.command == "run") return command_run(o);
    if (o.command == "validate") return command_validate(o);
    if (o.command == "sweep") return command_sweep(o, args);
    if (o.command == "results") return command_results(o);
    if (o.command == "calibrate") return command_calibrate(o, args);
    if (o.command == "lab") return command_lab(o, args);
    if (o.command == "plot") return command_plot(o);
    if (o.command == "siftr") return command_siftr(o);
    return command_topo(o);
  } catch (const ScenarioError& e) {
    std::cerr << e.what() << "\n";
    return kBadScenario;
  }
}

}  // namespace
}  // namespace netsim::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return netsim::cli::dispatch(args);
  } catch (const std::exception& e) {
    std::cerr << "netsim: internal error: " << e.what() << "\n";
    return netsim::cli::kRunFailed;
  }
}
