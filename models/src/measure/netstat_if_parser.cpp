#include "netstat_if_parser.h"

#include "netsim/measure/measure_error.h"
#include "report_text.h"
#include "snapshot_pairs.h"

namespace netsim::measure {
namespace {

using report_text::Line;

// intpr's header: Name, Mtu, Network, Address, then the counter columns.
bool is_header(const std::vector<std::string_view>& w) {
  return w.size() > 5 && w[0] == "Name" && w[1] == "Mtu" && w[2] == "Network" && w[3] == "Address" &&
         w[4] == "Ipkts";
}

bool is_link_line(const std::vector<std::string_view>& w) { return w.size() > 3 && w[2].starts_with("<Link#"); }

class NetstatIfReader {
 public:
  explicit NetstatIfReader(const std::string& file)
      : file_(file), pairs_(file, "netstat-if", "sender", &MeasuredRun::tx_drops, "netstat -I IFACE -d", "Drop") {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      const auto words = report_text::split_words(line.text);
      if (is_header(words)) {
        header(line, words);
      } else if (open_ && is_link_line(words)) {
        link(line, words);
      }
    }
    close();
    return pairs_.take();
  }

 private:
  void header(const Line& line, const std::vector<std::string_view>& words) {
    close();
    // The counter columns, after Address: the last words of each line.
    counters_ = words.size() - 4;
    drop_from_end_ = 0;
    bool has_drop = false;
    for (std::size_t i = 4; i < words.size(); ++i) {
      if (words[i] == "Drop") {
        has_drop = true;
        drop_from_end_ = words.size() - 1 - i;
      }
    }
    if (!has_drop) throw MeasureError(file_, line.number, "no Drop column: run netstat -I IFACE -d");
    open_ = true;
    current_ = InterfaceSnapshot{line.number, "", 0};
  }

  void link(const Line& line, const std::vector<std::string_view>& words) {
    // Name, Mtu, Network, (Address: blank for an interface without one), counters.
    if (words.size() < 3 + counters_) {
      throw MeasureError(file_, line.number, "a <Link#N> line with fewer counters than its header");
    }
    const std::string name(words[0]);
    if (!current_.interface.empty() && current_.interface != name) {
      throw MeasureError(file_, line.number,
                         "a second interface (" + current_.interface + ", " + name +
                             ") in one snapshot: netstat -I IFACE shows one");
    }
    const std::string_view drop = words[words.size() - 1 - drop_from_end_];
    const auto value = report_text::to_count(drop);
    if (!value) throw MeasureError(file_, line.number, "malformed Drop count '" + std::string(drop) + "'");
    current_.interface = name;
    current_.count = *value;
  }

  // Ends the open snapshot and hands it to the pairs.
  void close() {
    if (!open_) return;
    open_ = false;
    if (current_.interface.empty()) {
      throw MeasureError(file_, current_.line, "no <Link#N> line after this header: the interface's counters");
    }
    pairs_.add(current_);
  }

  const std::string& file_;
  SnapshotPairs pairs_;
  std::size_t counters_ = 0;
  std::size_t drop_from_end_ = 0;
  bool open_ = false;
  InterfaceSnapshot current_;
};

}  // namespace

bool looks_like_netstat_if_line(std::string_view text) {
  const auto words = report_text::split_words(text);
  return is_header(words) || is_link_line(words);
}

std::vector<MeasuredRun> parse_netstat_if(std::string_view text, const std::string& file) {
  return NetstatIfReader(file).read(text);
}

}  // namespace netsim::measure
