// `netsim plot compare`: simulated beside measured as grouped bars, one
// group per measured cell and one panel per compared metric.
//
// Each group has the simulated mean (an error bar from the lowest to the
// highest run when several seeds ran), the measured value (its range when it
// was measured repeatedly, from --data) and a shaded band of +-15% around the
// measured value: the tolerance docs/t1.md and docs/calibration.md count cells
// "within".
#pragma once

#include <string>
#include <vector>

#include "netsim/plot/gnuplot_plot.h"
#include "netsim/scenario/measured_comparison.h"

namespace netsim::plot {

inline constexpr double kMeasuredBand = 0.15;  // the band's half-width, relative to measured

struct ComparisonBar {
  std::string label;         // the cell's key values, "hz=100 every=50"
  std::size_t sim_runs = 0;  // 0: no run matched the cell (no simulated bar)
  double sim_mean = 0, sim_min = 0, sim_max = 0;
  std::size_t measured_runs = 1;
  double measured = 0, measured_min = 0, measured_max = 0;
  double band_low = 0, band_high = 0;  // measured -+15%; Jain's index: at most 1
};

struct ComparisonPanel {
  std::string title;    // "<scenario>: <metric>"
  std::string y_label;  // the metric's unit
  std::vector<ComparisonBar> bars;
};

// "hz=100 every=50": the block's key names with the cell's values.
std::string cell_label(const MeasuredSpec& m, const std::vector<std::string>& key_values);
// Mbit/s for a throughput, ms for a ping's RTT, count for a counter,
// index for Jain's, % for CPU.
std::string metric_unit(const MeasuredMetric& k);

// One panel per metric of the block (a single-metric block: one), its bars
// in the order of the rows (the block's cells).
std::vector<ComparisonPanel> comparison_panels(const std::string& scenario_name, const MeasuredSpec& m,
                                               const std::vector<ComparisonRow>& rows);

// A panel's data file: index, "label", sim mean, min, max, measured, min,
// max, band low, high; NaN where there is nothing to draw (no run, one run,
// one measurement).
std::string comparison_data(const ComparisonPanel& p);

// All panels in one picture (gnuplot multiplot, one row each).
GnuplotPlot comparison_plot(const std::vector<ComparisonPanel>& panels);

}  // namespace netsim::plot
