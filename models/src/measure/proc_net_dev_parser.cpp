#include "proc_net_dev_parser.h"

#include <optional>

#include "netsim/measure/measure_error.h"
#include "report_text.h"
#include "snapshot_pairs.h"

namespace netsim::measure {
namespace {

using report_text::Line;

// dev_seq_printf_stats prints 8 receive and 8 transmit counters.
constexpr std::size_t kCounters = 16;
constexpr std::size_t kReceiveDrop = 3;  // rx_dropped + rx_missed_errors

// The header's first line starts a snapshot; its second (" face |bytes
// packets ...") only names the columns.
bool is_first_header_line(std::string_view text) { return report_text::trim(text).starts_with("Inter-|"); }

bool is_second_header_line(std::string_view text) {
  const std::string_view t = report_text::trim(text);
  return t.starts_with("face |") && report_text::contains(t, "packets");
}

struct InterfaceLine {
  std::string_view name;
  std::vector<std::string_view> counts;
};

// "  eno1: 9876 6543 ..." (older kernels glue the first count to the colon).
std::optional<InterfaceLine> interface_line(std::string_view text) {
  const std::string_view t = report_text::trim(text);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view name = t.substr(0, colon);
  if (name.find_first_of(" \t|") != std::string_view::npos) return std::nullopt;
  InterfaceLine line{name, report_text::split_words(t.substr(colon + 1))};
  if (line.counts.empty() || !report_text::to_count(line.counts.front())) return std::nullopt;
  return line;
}

class ProcNetDevReader {
 public:
  explicit ProcNetDevReader(const std::string& file)
      : file_(file), pairs_(file, "proc-net-dev", "receiver", &MeasuredRun::rx_drops, "/proc/net/dev", "drop") {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      if (is_first_header_line(line.text)) {
        close();
        open_ = true;
        current_ = InterfaceSnapshot{line.number, "", 0};
        continue;
      }
      const auto l = interface_line(line.text);
      if (open_ && l) interface(line, *l);
    }
    close();
    return pairs_.take();
  }

 private:
  void interface(const Line& line, const InterfaceLine& l) {
    if (l.counts.size() != kCounters) {
      throw MeasureError(file_, line.number,
                         "an interface line with " + std::to_string(l.counts.size()) + " counts (expected 16)");
    }
    for (std::string_view c : l.counts) {
      if (!report_text::to_count(c)) throw MeasureError(file_, line.number, "malformed count '" + std::string(c) + "'");
    }
    const std::string name(l.name);
    if (!current_.interface.empty()) {
      throw MeasureError(file_, line.number,
                         "a second interface (" + current_.interface + ", " + name +
                             ") in one snapshot: keep one, e.g. grep -E '^ *(Inter|face|" + current_.interface +
                             ":)' /proc/net/dev");
    }
    current_.interface = name;
    current_.count = *report_text::to_count(l.counts[kReceiveDrop]);
  }

  void close() {
    if (!open_) return;
    open_ = false;
    if (current_.interface.empty()) {
      throw MeasureError(file_, current_.line, "no interface line after this header");
    }
    pairs_.add(current_);
  }

  const std::string& file_;
  SnapshotPairs pairs_;
  bool open_ = false;
  InterfaceSnapshot current_;
};

}  // namespace

bool looks_like_proc_net_dev_line(std::string_view text) {
  if (is_first_header_line(text) || is_second_header_line(text)) return true;
  const auto l = interface_line(text);
  return l && l->counts.size() == kCounters;
}

std::vector<MeasuredRun> parse_proc_net_dev(std::string_view text, const std::string& file) {
  return ProcNetDevReader(file).read(text);
}

}  // namespace netsim::measure
