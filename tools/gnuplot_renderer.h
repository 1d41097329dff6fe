// Running gnuplot on a plot::GnuplotPlot: data files and script in a
// temporary directory (removed afterwards), gnuplot as a child process with
// its default settings (no ~/.gnuplot, so that the picture depends on the
// input alone), the picture written to OUT.tmp and renamed to OUT.
#pragma once

#include <filesystem>
#include <string>

#include "netsim/plot/gnuplot_plot.h"

namespace netsim::cli {

struct GnuplotInstall {
  bool found = false;      // `gnuplot` runs
  bool pngcairo = false;   // it has the cairo PNG terminal (else libgd's png)
  std::string why;         // when not found: what happened
};

// Asks `gnuplot -e "set terminal"` (in PATH) which terminals it has.
GnuplotInstall find_gnuplot();

// Renders `plot` into `out` in `format`; "" on success, else why not (the
// temporary output removed). gnuplot's own messages are part of the reason.
std::string render_with_gnuplot(const plot::GnuplotPlot& plot, plot::PlotFormat format, const GnuplotInstall& gnuplot,
                                const std::filesystem::path& out);

}  // namespace netsim::cli
