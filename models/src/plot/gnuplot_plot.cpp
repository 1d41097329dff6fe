#include "netsim/plot/gnuplot_plot.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "netsim/results/result_writers.h"

namespace netsim::plot {

bool plot_format_of(std::string_view path, PlotFormat& format) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return false;
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "png") {
    format = PlotFormat::png;
    return true;
  }
  if (ext == "svg") {
    format = PlotFormat::svg;
    return true;
  }
  return false;
}

std::string gnuplot_terminal(PlotFormat format, bool have_pngcairo, int height) {
  const std::string size = " size 1200," + std::to_string(height);
  if (format == PlotFormat::svg) return "set terminal svg" + size + " dynamic noenhanced font 'Arial,12'";
  if (have_pngcairo) return "set terminal pngcairo" + size + " noenhanced font 'Arial,11'";
  return "set terminal png" + size + " noenhanced";
}

std::string gnuplot_quoted(std::string_view text) {
  std::string s = "'";
  for (char c : text) {
    if (c == '\'') s += '\'';
    s += c;
  }
  return s + "'";
}

std::string gnuplot_data_string(std::string_view text) {
  std::string s = "\"";
  for (char c : text) s += c == '"' ? '\'' : (c == '\n' || c == '\r' ? ' ' : c);
  return s + "\"";
}

std::string gnuplot_number(double v) { return std::isfinite(v) ? format_double_roundtrip(v) : "NaN"; }

std::string gnuplot_time_chart(const std::string& title, const std::string& y_label) {
  return "set title " + gnuplot_quoted(title) + "\n" + "set xlabel 'time (s)'\n" + "set ylabel " +
         gnuplot_quoted(y_label) + "\n" + "set yrange [0:*]\n" + "set grid xtics ytics\n" +
         "set key tmargin horizontal\n";
}

std::string gnuplot_plot_command(const std::vector<std::string>& items) {
  std::string s = "plot ";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i > 0 ? ", \\\n     " : "") + items[i];
  return s + "\n";
}

}  // namespace netsim::plot
