#include "gnuplot_renderer.h"

#include <cstdlib>
#include <fstream>
#include <system_error>

#include "netsim/lab/child_process.h"

namespace netsim::cli {
namespace {

constexpr std::chrono::milliseconds kGnuplotTimeout{120000};

// A fresh directory under the system's temporary directory, removed with
// everything in it when this goes out of scope.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "netsim-plot.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "cannot create a temporary directory " + pattern);
    }
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// "" when written, else why not.
std::string write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.flush();
  return f ? "" : "cannot write " + path.string();
}

}  // namespace

GnuplotInstall find_gnuplot() {
  GnuplotInstall g;
  const lab::CommandResult r = lab::run_command({"gnuplot", "-d", "-e", "set terminal"});
  if (r.status != 0) {
    g.why = r.status < 0 ? r.output : "gnuplot -e \"set terminal\" exited with " + std::to_string(r.status);
    return g;
  }
  g.found = true;
  g.pngcairo = r.output.find("pngcairo") != std::string::npos;
  return g;
}

std::string render_with_gnuplot(const plot::GnuplotPlot& plot, plot::PlotFormat format, const GnuplotInstall& gnuplot,
                                const std::filesystem::path& out) {
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::absolute(out, ec);
  if (ec) return "cannot resolve " + out.string() + ": " + ec.message();
  const std::filesystem::path tmp = target.string() + ".tmp";
  std::string why;
  try {
    TemporaryDirectory dir;
    for (const plot::GnuplotDataFile& d : plot.data) {
      why = write_text_file(dir.path() / d.name, d.content);
      if (!why.empty()) return why;
    }
    const std::string script = plot::gnuplot_terminal(format, gnuplot.pngcairo, plot.height) + "\n" +
                               "set output " + plot::gnuplot_quoted(tmp.string()) + "\n" +
                               "cd " + plot::gnuplot_quoted(dir.path().string()) + "\n" + plot.commands +
                               "unset output\n";
    const std::filesystem::path script_path = dir.path() / "plot.gp";
    why = write_text_file(script_path, script);
    if (!why.empty()) return why;
    const lab::CommandResult r = lab::run_command({"gnuplot", "-d", script_path.string()}, kGnuplotTimeout);
    if (r.status != 0) {
      why = "gnuplot failed (exit " + std::to_string(r.status) + ")" + (r.output.empty() ? "" : ":\n" + r.output);
    } else if (!std::filesystem::is_regular_file(tmp, ec) || std::filesystem::file_size(tmp, ec) == 0) {
      why = "gnuplot wrote nothing to " + tmp.string() + (r.output.empty() ? "" : ":\n" + r.output);
    } else {
      std::filesystem::rename(tmp, target, ec);
      if (ec) why = "cannot rename " + tmp.string() + " to " + target.string() + ": " + ec.message();
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) std::filesystem::remove(tmp, ec);
  return why;
}

}  // namespace netsim::cli
