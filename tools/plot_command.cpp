// `netsim plot`: the data and commands come from netsim::plot, gnuplot draws.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "cell_runs.h"
#include "gnuplot_renderer.h"
#include "output_file.h"
#include "plot_command.h"
#include "netsim/plot/comparison_plot.h"
#include "netsim/plot/interval_plot.h"
#include "netsim/plot/tcp_trace_plot.h"
#include "netsim/results/result_writers.h"

namespace netsim::cli {
namespace {

// Opens an input file, or says on stderr why it cannot be read.
bool open_input(std::ifstream& in, const std::string& path) {
  in.open(path, std::ios::binary);
  if (in) return true;
  std::cerr << "netsim: plot: cannot read " << path << ": "
            << (std::filesystem::exists(path) ? "cannot open it" : "no such file") << "\n";
  return false;
}

// A run set written by `netsim run --format pb --out PATH`, or nothing after
// saying on stderr why it cannot be read.
std::optional<results::RunSet> read_run_set(const std::string& path) {
  std::ifstream in;
  if (!open_input(in, path)) return std::nullopt;
  try {
    return read_pb(in);
  } catch (const std::exception& e) {
    std::cerr << "netsim: plot: " << path << ": not a run set (netsim run --format pb --out PATH): " << e.what() << "\n";
    return std::nullopt;
  }
}

// A picture to draw and the exit status of what made it (runs may have failed).
struct Drawing {
  plot::GnuplotPlot picture;
  int status = kOk;
};

// Checks the output and gnuplot (before any simulation), then draws make()'s picture.
int draw(const Options& o, const std::function<Drawing()>& make) {
  const std::string& out = *o.out_path;
  if (const std::string why = cannot_write_atomically(out); !why.empty()) {
    std::cerr << "netsim: cannot write " << out << ": " << why << "\n";
    return kOutputError;
  }
  const GnuplotInstall gnuplot = find_gnuplot();
  if (!gnuplot.found) {
    std::cerr << "netsim: plot needs gnuplot (Debian: apt-get install gnuplot-nox), which cannot be run here"
              << (gnuplot.why.empty() ? "" : ": " + gnuplot.why) << "\n";
    return kToolMissing;
  }
  plot::PlotFormat format = plot::PlotFormat::png;
  plot::plot_format_of(out, format);  // checked by parse_args
  const Drawing d = make();
  if (const std::string why = render_with_gnuplot(d.picture, format, gnuplot, out); !why.empty()) {
    std::cerr << "netsim: cannot draw " << out << ": " << why << "\n";
    return kOutputError;
  }
  std::cerr << "plot: " << out << " written\n";
  return d.status;
}

int plot_compare(const Options& o) {
  const std::vector<ScenarioSpec> cells = load_cells(o);
  const ComparedCells compared = compared_cells(o, cells.front(), "plot");
  if (compared.data_unusable) return kBadScenario;
  if (!compared.measured) {
    std::cerr << o.scenario_file << ": no measured: block, nothing to compare with (docs/scenario-format.md, "
              << "\"Measured values\")\n";
    return kBadScenario;
  }
  const MeasuredSpec& m = *compared.measured;
  if (m.cells.empty()) {
    std::cerr << o.scenario_file << ": the measured: block has no cells; give the measurements with --data\n";
    return kBadScenario;
  }
  std::optional<results::RunSet> given;
  if (o.results_path) {
    given = read_run_set(*o.results_path);
    if (!given) return kBadScenario;
  }
  return draw(o, [&] {
    const results::RunSet set = given ? *given : run_cells(cells, o);
    const std::vector<ComparisonRow> rows = compare(set, m);
    const std::size_t matched = static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const ComparisonRow& r) { return r.runs > 0; }));
    if (matched < rows.size()) {
      std::cerr << "plot: " << (rows.size() - matched) << " of " << rows.size()
                << " measured cells have no simulated run" << (o.results_path ? " in " + *o.results_path : "")
                << " (no bar drawn)\n";
    }
    const bool failed = std::any_of(set.runs().begin(), set.runs().end(),
                                    [](const results::RunResult& r) { return !r.error().empty(); });
    return Drawing{plot::comparison_plot(plot::comparison_panels(cells.front().name, m, rows)),
                   failed ? kRunFailed : kOk};
  });
}

int plot_trace(const Options& o) {
  std::ifstream in;
  if (!open_input(in, o.scenario_file)) return kBadScenario;
  std::vector<plot::TcpTraceFlow> flows;
  try {
    flows = plot::read_tcp_trace(in, o.scenario_file);
  } catch (const plot::TraceReadError& e) {
    std::cerr << e.what() << "\n";
    return kBadScenario;
  }
  const std::string title = "TCP sender state: " + std::filesystem::path(o.scenario_file).filename().string();
  return draw(o, [&] { return Drawing{plot::tcp_trace_plot(flows, title)}; });
}

int plot_intervals(const Options& o) {
  const std::optional<results::RunSet> set = read_run_set(o.scenario_file);
  if (!set) return kBadScenario;
  const std::vector<plot::IntervalSeries> series = plot::interval_series(*set);
  if (series.empty()) {
    std::cerr << o.scenario_file << ": no interval samples (run the scenario with an interval, e.g. "
              << "--set interval=100ms)\n";
    return kBadScenario;
  }
  const std::string title = set->runs(0).scenario_name() + ": throughput per interval";
  return draw(o, [&] { return Drawing{plot::interval_plot(series, title)}; });
}

}  // namespace

int command_plot(const Options& o) {
  if (o.plot_kind == "compare") return plot_compare(o);
  if (o.plot_kind == "trace") return plot_trace(o);
  return plot_intervals(o);
}

}  // namespace netsim::cli
