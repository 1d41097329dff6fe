// Interface counters count since boot, so a run's figure is the increase
// between two snapshots taken before and after it (FreeBSD netstat -I,
// Linux /proc/net/dev), kept one after the other in one file. SnapshotPairs
// takes the snapshots in file order and makes each pair one run with no
// rate, whose `field` is the counter's increase.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netsim/measure/measure_error.h"
#include "netsim/measure/measured_run.h"

namespace netsim::measure {

struct InterfaceSnapshot {
  int line = 0;           // where the snapshot starts
  std::string interface;  // whose counter it is
  std::uint64_t count = 0;
};

class SnapshotPairs {
 public:
  // `command` and `counter` name the tool and the column in errors
  // ("netstat -I IFACE -d", "Drop").
  SnapshotPairs(const std::string& file, std::string tool, std::string side, std::optional<std::uint64_t> MeasuredRun::*field,
                std::string command, std::string counter)
      : file_(file), tool_(std::move(tool)), side_(std::move(side)), field_(field), command_(std::move(command)),
        counter_(std::move(counter)) {}

  // Throws MeasureError at the second snapshot of a pair whose interface
  // differs from the first's or whose count is lower.
  void add(const InterfaceSnapshot& s) {
    if (!before_) {
      before_ = s;
      return;
    }
    const InterfaceSnapshot before = *before_;
    before_.reset();
    if (before.interface != s.interface) {
      throw MeasureError(file_, s.line,
                         "the snapshot after the run is of " + s.interface + ", the one before it (line " +
                             std::to_string(before.line) + ") of " + before.interface);
    }
    if (s.count < before.count) {
      throw MeasureError(file_, s.line,
                         "the " + counter_ + " counter went down (" + std::to_string(before.count) + " -> " +
                             std::to_string(s.count) + "): the interface was reset between the snapshots");
    }
    MeasuredRun run;
    run.file = file_;
    run.line = before.line;
    run.tool = tool_;
    run.side = side_;
    run.has_rates = false;
    run.*field_ = s.count - before.count;
    runs_.push_back(std::move(run));
  }

  // The runs; throws MeasureError at a last snapshot without its pair.
  std::vector<MeasuredRun> take() {
    if (before_) {
      throw MeasureError(file_, before_->line,
                         "this snapshot has no pair: give " + command_ + " before and after each run");
    }
    return std::move(runs_);
  }

 private:
  const std::string& file_;
  std::string tool_, side_;
  std::optional<std::uint64_t> MeasuredRun::*field_;
  std::string command_, counter_;
  std::optional<InterfaceSnapshot> before_;
  std::vector<MeasuredRun> runs_;
};

}  // namespace netsim::measure
