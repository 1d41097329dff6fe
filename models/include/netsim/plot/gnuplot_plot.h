// A picture for gnuplot: the commands that draw it and the data files they
// read, built without running gnuplot (so that tests can check them), and
// the terminal line that turns it into PNG or SVG.
//
// The commands name their data files relative to the directory the files are
// written to; the renderer (tools/gnuplot_renderer.h) writes them into a
// temporary directory, changes into it and prepends the terminal and output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace netsim::plot {

struct GnuplotDataFile {
  std::string name;     // a plain file name, no directory
  std::string content;  // whitespace-separated columns, strings in double quotes, NaN for a gap
};

struct GnuplotPlot {
  std::string commands;  // set ..., plot ... (after the terminal and the output)
  std::vector<GnuplotDataFile> data;
  int height = 700;  // pixels; the width is always 1200 (taller for several panels)
};

enum class PlotFormat { png, svg };

// The format named by a path's extension (.png or .svg, any case); false for any other.
bool plot_format_of(std::string_view path, PlotFormat& format);

// `set terminal ...` for the format: pngcairo (or libgd's png when gnuplot
// has no cairo) or svg with dynamic sizing; noenhanced everywhere, so that
// the underscores of names (receiver_mbps, cubic_d46046) stay underscores.
std::string gnuplot_terminal(PlotFormat format, bool have_pngcairo, int height);

// A gnuplot string literal: single quotes, in which only '' needs escaping.
std::string gnuplot_quoted(std::string_view text);
// A field of a data file: a double-quoted string (double quotes in `text`
// become single ones, as data files have no escapes).
std::string gnuplot_data_string(std::string_view text);
// A number of a data file or script: shortest round-trip text, locale-free;
// NaN (a gap gnuplot skips) for non-finite values.
std::string gnuplot_number(double v);
// The start of a chart over time: its title, "time (s)" below, `y_label`
// beside a y axis from 0, a grid, the key above.
std::string gnuplot_time_chart(const std::string& title, const std::string& y_label);
// "plot A, \ (newline) B, ...": one plot command of the items, one per line.
std::string gnuplot_plot_command(const std::vector<std::string>& items);

}  // namespace netsim::plot
