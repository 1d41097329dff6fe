#include "ethtool_stats_parser.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "netsim/measure/measure_error.h"
#include "report_text.h"
#include "snapshot_pairs.h"

namespace netsim::measure {
namespace {

using report_text::Line;

constexpr std::array<std::string_view, 4> kTxPauseCounters{"tx_flow_control_xon", "tx_flow_control_xoff",
                                                           "tx_pause_frames", "tx_pause_ctrl_phy"};

bool is_header(std::string_view text) { return report_text::trim(text) == "NIC statistics:"; }

class EthtoolStatsReader {
 public:
  explicit EthtoolStatsReader(const std::string& file)
      : file_(file),
        pairs_(file, "ethtool-s", "receiver", &MeasuredRun::pause_frames_sent, "ethtool -S",
               "transmitted-PAUSE") {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      if (is_header(line.text)) {
        close();
        open_ = true;
        current_ = InterfaceSnapshot{line.number, "", 0};
        names_.clear();
        found_ = false;
        continue;
      }
      if (!open_ || report_text::trim(line.text).empty()) continue;
      // ethtool prints every statistic indented ("     %s: %llu"); anything
      // else (a shell prompt, the next command) ends the snapshot.
      if (line.text.front() == ' ' || line.text.front() == '\t') {
        statistic(line);
      } else {
        close();
      }
    }
    close();
    return pairs_.take();
  }

 private:
  void statistic(const Line& line) {
    const std::string_view t = report_text::trim(line.text);
    const std::size_t colon = t.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      throw MeasureError(file_, line.number, "expected 'name: value' in ethtool -S output");
    }
    const std::string name(report_text::trim(t.substr(0, colon)));
    const std::string_view value = report_text::trim(t.substr(colon + 1));
    const auto count = report_text::to_count(value);
    if (!count) throw MeasureError(file_, line.number, "malformed count '" + std::string(value) + "' for " + name);
    if (!names_.insert(name).second) {
      throw MeasureError(file_, line.number, name + " appears twice in one snapshot: keep one ethtool -S per snapshot");
    }
    if (std::find(kTxPauseCounters.begin(), kTxPauseCounters.end(), name) != kTxPauseCounters.end()) {
      current_.count += *count;
      found_ = true;
    }
  }

  void close() {
    if (!open_) return;
    open_ = false;
    if (!found_) {
      throw MeasureError(file_, current_.line,
                         "this snapshot has no transmitted-PAUSE counter (tx_flow_control_xon/_xoff, "
                         "tx_pause_frames, tx_pause_ctrl_phy): the driver may not count PAUSE frames");
    }
    pairs_.add(current_);
  }

  const std::string& file_;
  SnapshotPairs pairs_;
  bool open_ = false;
  bool found_ = false;
  InterfaceSnapshot current_;
  std::set<std::string> names_;
};

}  // namespace

bool looks_like_ethtool_stats_line(std::string_view text) { return is_header(text); }

std::vector<MeasuredRun> parse_ethtool_stats(std::string_view text, const std::string& file) {
  return EthtoolStatsReader(file).read(text);
}

}  // namespace netsim::measure
