// Progress of a sweep on stderr: a redrawn bar on a terminal (runs done/total,
// rate, ETA, failures), plain periodic lines otherwise (logs, Slurm output
// files), nothing when quiet. Only wall-clock presentation: it never touches
// results.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>

namespace netsim::sweep {

enum class ProgressStyle { none, bar, lines };

// bar when `fd` is a terminal, else lines.
ProgressStyle progress_style_for(int fd);

class Progress {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic; injectable for tests

  // `total` runs; `line_period` is the spacing of plain lines.
  Progress(std::ostream& out, ProgressStyle style, std::size_t total, double line_period_s = 10.0,
           Clock clock = {});

  // The word after "netsim: " in plain lines ("sweep" unless set, e.g. "lab").
  void set_label(std::string label) { label_ = std::move(label); }
  // Runs found already recorded: counted as done, but not in the rate.
  void add_skipped(std::size_t n, std::size_t failed);
  // One run finished now. Thread-safe.
  void run_done(bool failed);
  // A message on its own line (the bar is redrawn below it). Thread-safe.
  void note(const std::string& text);
  // The final state, on its own line.
  void finish();

  // "57/216 (26%)  3.1 runs/s  ETA 0:51  1 failed", the text of both styles.
  std::string status() const;

 private:
  void draw(bool force);  // with mu_ held

  std::ostream& out_;
  ProgressStyle style_;
  std::size_t total_;
  double line_period_;
  Clock clock_;
  mutable std::mutex mu_;
  double start_;
  double last_draw_ = -1e300;
  std::size_t done_ = 0;
  std::size_t ran_ = 0;     // done in this process: the rate's numerator
  std::size_t failed_ = 0;
  bool bar_shown_ = false;
  std::string label_ = "sweep";
};

}  // namespace netsim::sweep
