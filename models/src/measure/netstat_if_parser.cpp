#include "netstat_if_parser.h"

#include <optional>

#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::Line;

// intpr's header: Name, Mtu, Network, Address, then the counter columns.
bool is_header(const std::vector<std::string_view>& w) {
  return w.size() > 5 && w[0] == "Name" && w[1] == "Mtu" && w[2] == "Network" && w[3] == "Address" &&
         w[4] == "Ipkts";
}

bool is_link_line(const std::vector<std::string_view>& w) { return w.size() > 3 && w[2].starts_with("<Link#"); }

struct Snapshot {
  int line = 0;            // of its header
  std::string interface;   // "" until its <Link#N> line
  std::uint64_t drops = 0;
};

class NetstatIfReader {
 public:
  explicit NetstatIfReader(const std::string& file) : file_(file) {}

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
    if (pending_) {
      throw MeasureError(file_, pending_->line,
                         "this snapshot has no pair: give netstat -I IFACE -d before and after each run");
    }
    return std::move(runs_);
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
    current_ = Snapshot{line.number, "", 0};
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
    current_.drops = *value;
  }

  // Ends the open snapshot: the first of a pair waits, the second makes a run.
  void close() {
    if (!open_) return;
    open_ = false;
    if (current_.interface.empty()) {
      throw MeasureError(file_, current_.line, "no <Link#N> line after this header: the interface's counters");
    }
    if (!pending_) {
      pending_ = current_;
      return;
    }
    const Snapshot before = *pending_;
    pending_.reset();
    if (before.interface != current_.interface) {
      throw MeasureError(file_, current_.line,
                         "the snapshot after the run is of " + current_.interface + ", the one before it (line " +
                             std::to_string(before.line) + ") of " + before.interface);
    }
    if (current_.drops < before.drops) {
      throw MeasureError(file_, current_.line,
                         "the Drop counter went down (" + std::to_string(before.drops) + " -> " +
                             std::to_string(current_.drops) + "): the interface was reset between the snapshots");
    }
    MeasuredRun run;
    run.file = file_;
    run.line = before.line;
    run.tool = "netstat-if";
    run.side = "sender";
    run.has_rates = false;
    run.tx_drops = current_.drops - before.drops;
    runs_.push_back(std::move(run));
  }

  const std::string& file_;
  std::size_t counters_ = 0;
  std::size_t drop_from_end_ = 0;
  bool open_ = false;
  Snapshot current_;
  std::optional<Snapshot> pending_;
  std::vector<MeasuredRun> runs_;
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
