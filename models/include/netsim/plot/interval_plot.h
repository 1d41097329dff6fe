// `netsim plot intervals`: the per-interval throughput of every flow of a
// run set (RunResult.intervals, what `netsim run` prints under "intervals:"),
// one line per run and flow.
#pragma once

#include <string>
#include <vector>

#include "netsim/plot/gnuplot_plot.h"
#include "netsim/results/run_result.pb.h"

namespace netsim::plot {

struct IntervalPoint {
  double start_s = 0, end_s = 0;
  double mbps = 0;
};

struct IntervalSeries {
  std::string label;  // the flow; with several runs also what tells the run apart
  std::vector<IntervalPoint> points;  // in recorded order
};

// What tells run i apart from the others of the set: the overrides whose
// value is not the same in every run ("hz=1000 every=50", keys shortened to
// their last component), the seed when only seeds differ, else "run i".
// Empty for a set of one run.
std::string run_label(const results::RunSet& set, int i);

// One series per run and flow with interval samples, runs in set order,
// flows in order of first appearance; failed runs are left out.
std::vector<IntervalSeries> interval_series(const results::RunSet& set);

// Mbit/s over time, each series as a step line over its intervals.
GnuplotPlot interval_plot(const std::vector<IntervalSeries>& series, const std::string& title);

}  // namespace netsim::plot
