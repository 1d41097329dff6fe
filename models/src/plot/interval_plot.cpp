#include "netsim/plot/interval_plot.h"

#include <algorithm>

namespace netsim::plot {
namespace {

constexpr double kPicosecondsPerSecond = 1e12;

std::string value_of(const results::RunResult& r, const std::string& key) {
  std::string v;
  for (const auto& o : r.overrides()) {
    if (o.key() == key) v = o.value();  // the last one applied wins
  }
  return v;
}

// "hosts.sender.hz" -> "hz": short enough for a legend; the full key when
// that is all there is.
std::string short_key(const std::string& key) {
  const std::size_t dot = key.find_last_of('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

}  // namespace

std::string run_label(const results::RunSet& set, int i) {
  if (set.runs_size() <= 1) return "";
  std::vector<std::string> keys;
  for (const auto& r : set.runs()) {
    for (const auto& o : r.overrides()) {
      if (std::find(keys.begin(), keys.end(), o.key()) == keys.end()) keys.push_back(o.key());
    }
  }
  const results::RunResult& run = set.runs(i);
  std::string label;
  for (const std::string& k : keys) {
    const std::string v = value_of(run, k);
    const bool varies = std::any_of(set.runs().begin(), set.runs().end(),
                                    [&](const results::RunResult& r) { return value_of(r, k) != v; });
    if (varies) label += (label.empty() ? "" : " ") + short_key(k) + "=" + v;
  }
  if (!label.empty()) return label;
  const bool seeds_differ = std::any_of(set.runs().begin(), set.runs().end(),
                                        [&](const results::RunResult& r) { return r.seed() != run.seed(); });
  return seeds_differ ? "seed=" + std::to_string(run.seed()) : "run " + std::to_string(i + 1);
}

std::vector<IntervalSeries> interval_series(const results::RunSet& set) {
  std::vector<IntervalSeries> out;
  for (int i = 0; i < set.runs_size(); ++i) {
    const results::RunResult& r = set.runs(i);
    if (!r.error().empty()) continue;
    const std::string run = run_label(set, i);
    std::vector<std::string> flows;
    for (const auto& s : r.intervals()) {
      if (std::find(flows.begin(), flows.end(), s.flow()) == flows.end()) flows.push_back(s.flow());
    }
    for (const std::string& flow : flows) {
      IntervalSeries series;
      series.label = run.empty() ? flow : flow + ", " + run;
      for (const auto& s : r.intervals()) {
        if (s.flow() != flow) continue;
        series.points.push_back({static_cast<double>(s.start_ps()) / kPicosecondsPerSecond,
                                 static_cast<double>(s.end_ps()) / kPicosecondsPerSecond, s.mbps()});
      }
      out.push_back(std::move(series));
    }
  }
  return out;
}

GnuplotPlot interval_plot(const std::vector<IntervalSeries>& series, const std::string& title) {
  GnuplotPlot g;
  std::string& s = g.commands;
  s += gnuplot_time_chart(title, "Mbit/s");
  std::vector<std::string> items;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string name = "series" + std::to_string(i + 1) + ".dat";
    // Each interval as a horizontal segment from its start to its end: the
    // rate held over it, with the steps between intervals drawn vertically.
    std::string data = "# time_s mbps\n";
    for (const IntervalPoint& p : series[i].points) {
      data += gnuplot_number(p.start_s) + " " + gnuplot_number(p.mbps) + "\n";
      data += gnuplot_number(p.end_s) + " " + gnuplot_number(p.mbps) + "\n";
    }
    g.data.push_back({name, data});
    items.push_back(gnuplot_quoted(name) + " using 1:2 with lines lw 1.5 lc " + std::to_string(i + 1) +
                    " title " + gnuplot_quoted(series[i].label));
  }
  s += gnuplot_plot_command(items);
  return g;
}

}  // namespace netsim::plot
