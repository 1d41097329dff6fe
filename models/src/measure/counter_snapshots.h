// The runs of a file of counter snapshots (nstat, netstat -s): one run per
// snapshot, with no rate, attributed to the end whose stack the counters are.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

class CounterSnapshots {
 public:
  CounterSnapshots(const std::string& file, std::string tool, std::string side)
      : file_(file), tool_(std::move(tool)), side_(std::move(side)) {}

  // Ends the open snapshot, if any, and starts one at `line`; its counters
  // are for the caller to set (to 0 where the tool omits zero counters).
  MeasuredRun& start(int line) {
    finish();
    open_ = true;
    current_ = MeasuredRun{};
    current_.file = file_;
    current_.line = line;
    current_.tool = tool_;
    current_.side = side_;
    current_.has_rates = false;
    return current_;
  }
  void finish() {
    if (open_) runs_.push_back(std::move(current_));
    open_ = false;
  }
  bool open() const { return open_; }
  MeasuredRun& current() { return current_; }
  std::vector<MeasuredRun> take() {
    finish();
    return std::move(runs_);
  }

 private:
  const std::string& file_;
  std::string tool_, side_;
  bool open_ = false;
  MeasuredRun current_;
  std::vector<MeasuredRun> runs_;
};

}  // namespace netsim::measure
