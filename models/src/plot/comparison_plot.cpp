#include "netsim/plot/comparison_plot.h"

#include <algorithm>
#include <cmath>

namespace netsim::plot {
namespace {

constexpr std::size_t kSlantedLabelsUpTo = 10;  // groups

std::string metric_title(const MeasuredSpec& m, const MeasuredMetric& k) {
  if (!m.multi) return k.metric + (m.flow.empty() ? "" : " (" + m.flow + ")");
  if (k.is_fairness()) {
    std::string flows;
    for (const std::string& f : k.fairness) flows += (flows.empty() ? "" : ", ") + f;
    return k.name + " (Jain's index of " + flows + ")";
  }
  return k.name + " (" + k.metric + (k.flow.empty() ? "" : " of " + k.flow) + ")";
}

bool any_of_bars(const ComparisonPanel& p, bool (*has)(const ComparisonBar&)) {
  return std::any_of(p.bars.begin(), p.bars.end(), has);
}

// One panel's commands; the data file is `data`.
std::string panel_commands(const ComparisonPanel& p, const std::string& data) {
  const std::string n = std::to_string(p.bars.size());
  std::string s;
  s += "set title " + gnuplot_quoted(p.title) + "\n";
  s += "set ylabel " + gnuplot_quoted(p.y_label) + "\n";
  s += "set xrange [-0.6:" + n + "-0.4]\n";
  // Slanted labels spill sideways past the plot's edges; with many groups
  // (T1's 24) only upright ones fit.
  if (p.bars.size() > kSlantedLabelsUpTo) {
    s += "set xtics rotate by 90 right\nset lmargin\nset rmargin\n";
  } else {
    // The first label reaches left of the plot by its length x cos 30 degrees.
    const std::size_t first = p.bars.empty() ? 0 : p.bars.front().label.size();
    s += "set xtics rotate by 30 right\nset rmargin 4\nset lmargin " +
         std::to_string(std::clamp<std::size_t>(first * 8 / 10, 10, 60)) + "\n";
  }
  // Simulated left of centre, measured right; the band spans the group.
  std::vector<std::string> items;
  items.push_back(gnuplot_quoted(data) + " using ($1-0.19):3 with boxes lc rgb '#4472c4' title 'simulated (mean)'");
  if (any_of_bars(p, [](const ComparisonBar& b) { return b.sim_runs > 1; })) {
    items.push_back("'' using ($1-0.19):3:4:5 with yerrorbars lc rgb '#1f1f1f' pt 0 ps 0 title 'simulated min-max'");
  }
  items.push_back("'' using ($1+0.19):6:xtic(2) with boxes lc rgb '#ed7d31' title 'measured'");
  if (any_of_bars(p, [](const ComparisonBar& b) { return b.measured_runs > 1; })) {
    items.push_back("'' using ($1+0.19):6:7:8 with yerrorbars lc rgb '#7f3f00' pt 0 ps 0 title 'measured min-max'");
  }
  items.push_back(
      "'' using 1:(($9+$10)/2):($1-0.45):($1+0.45):9:10 with boxxyerror fs transparent solid 0.15 border "
      "lc rgb '#2ca02c' fc rgb '#2ca02c' title 'measured ±15%'");
  return s + gnuplot_plot_command(items);
}

}  // namespace

std::string cell_label(const MeasuredSpec& m, const std::vector<std::string>& key_values) {
  std::string s;
  for (std::size_t k = 0; k < key_values.size() && k < m.keys.size(); ++k) {
    s += (k > 0 ? " " : "") + m.keys[k].first + "=" + key_values[k];
  }
  return s;
}

std::string metric_unit(const MeasuredMetric& k) {
  if (k.is_fairness()) return "index";
  if (k.is_count()) return "count";
  if (is_rtt_metric(k.metric)) return "ms";
  if (k.metric.starts_with("cpu_")) return "%";
  return "Mbit/s";
}

std::vector<ComparisonPanel> comparison_panels(const std::string& scenario_name, const MeasuredSpec& m,
                                               const std::vector<ComparisonRow>& rows) {
  std::vector<ComparisonPanel> panels;
  for (std::size_t i = 0; i < m.metrics.size(); ++i) {
    const MeasuredMetric& k = m.metrics[i];
    ComparisonPanel p;
    p.title = scenario_name + ": " + metric_title(m, k);
    p.y_label = metric_unit(k);
    for (const ComparisonRow& row : rows) {
      const MetricComparison& c = row.metrics[i];
      ComparisonBar b;
      b.label = cell_label(m, row.key_values);
      b.sim_runs = c.runs;
      b.sim_mean = c.sim_mean;
      b.sim_min = c.sim_min;
      b.sim_max = c.sim_max;
      b.measured_runs = c.measured_runs;
      b.measured = c.measured;
      b.measured_min = c.measured_min;
      b.measured_max = c.measured_max;
      b.band_low = c.measured * (1 - kMeasuredBand);
      b.band_high = c.measured * (1 + kMeasuredBand);
      if (k.is_fairness()) b.band_high = std::min(b.band_high, 1.0);
      p.bars.push_back(std::move(b));
    }
    panels.push_back(std::move(p));
  }
  return panels;
}

std::string comparison_data(const ComparisonPanel& p) {
  const double nan = std::nan("");
  std::string s = "# index label sim_mean sim_min sim_max measured measured_min measured_max band_low band_high\n";
  for (std::size_t i = 0; i < p.bars.size(); ++i) {
    const ComparisonBar& b = p.bars[i];
    const bool sim = b.sim_runs > 0, sim_range = b.sim_runs > 1, measured_range = b.measured_runs > 1;
    for (const std::string& field :
         {std::to_string(i), gnuplot_data_string(b.label), gnuplot_number(sim ? b.sim_mean : nan),
          gnuplot_number(sim_range ? b.sim_min : nan), gnuplot_number(sim_range ? b.sim_max : nan),
          gnuplot_number(b.measured), gnuplot_number(measured_range ? b.measured_min : nan),
          gnuplot_number(measured_range ? b.measured_max : nan), gnuplot_number(b.band_low),
          gnuplot_number(b.band_high)}) {
      s += field + " ";
    }
    s.back() = '\n';  // the last separator
  }
  return s;
}

GnuplotPlot comparison_plot(const std::vector<ComparisonPanel>& panels) {
  GnuplotPlot g;
  g.height = panels.size() <= 1 ? 700 : 480 * static_cast<int>(panels.size());
  std::string& s = g.commands;
  s += "set encoding utf8\n";
  s += "set style fill solid 0.85 border -1\n";
  s += "set boxwidth 0.36\n";
  s += "set xtics nomirror\n";
  s += "set ytics nomirror\n";
  s += "set yrange [0:*]\n";
  s += "set grid ytics\n";
  s += "set key tmargin horizontal\n";
  if (panels.size() > 1) s += "set multiplot layout " + std::to_string(panels.size()) + ",1\n";
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const std::string name = "panel" + std::to_string(i + 1) + ".dat";
    g.data.push_back({name, comparison_data(panels[i])});
    s += panel_commands(panels[i], name);
  }
  if (panels.size() > 1) s += "unset multiplot\n";
  return g;
}

}  // namespace netsim::plot
