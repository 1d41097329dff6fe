#include "iperf2_text_parser.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::BandwidthLine;
using report_text::contains;
using report_text::Line;

enum class Layout { none, plain, client_enhanced, server_enhanced };

struct Entry {
  int line = 0;
  double start_s = 0;
  double end_s = 0;
  double mbps = 0;
  std::optional<std::uint64_t> retransmits;
};

struct RunText {
  int start_line = 0;
  std::string side;
  std::string congestion;
  Layout layout = Layout::none;
  std::map<std::string, std::vector<Entry>> lines;  // by id: "1", "2", ..., "SUM"
  int last_data_line = 0;

  bool has_data() const { return last_data_line != 0; }
};

// "224/0" (writes/errors) or "40637=8:9:7:6:6:6:3:40592" (reads=histogram).
bool counts(std::string_view word, char first_separator, char separator) {
  const std::size_t split = word.find(first_separator);
  if (split == std::string_view::npos || !report_text::to_count(word.substr(0, split))) return false;
  std::string_view rest = word.substr(split + 1);
  while (true) {
    const std::size_t next = rest.find(separator);
    if (!report_text::to_count(rest.substr(0, next))) return false;
    if (next == std::string_view::npos) return true;
    rest.remove_prefix(next + 1);
  }
}

class Iperf2TextReader {
 public:
  explicit Iperf2TextReader(const std::string& file) : file_(file) {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) take(line);
    finish();
    return std::move(runs_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& message) const { throw MeasureError(file_, line, message); }

  void begin(int line, std::string side) {
    const Layout layout = run_.layout;
    const std::string congestion = run_.congestion;
    finish();
    run_ = RunText{};
    run_.start_line = line;
    run_.side = std::move(side);
    // A server prints its banner (and header) once for all the tests it serves.
    if (run_.side == "server") {
      run_.layout = layout;
      run_.congestion = congestion;
    }
  }

  void take(const Line& line) {
    const std::string_view t = line.text;
    const auto words = report_text::split_words(t);
    if (words.empty()) return;
    if (t.starts_with("Client connecting to ")) {
      if (contains(t, ", UDP port")) fail(line.number, "iperf2 UDP reports are not supported");
      begin(line.number, "client");
    } else if (t.starts_with("Server listening on ")) {
      if (contains(t, " UDP port")) fail(line.number, "iperf2 UDP reports are not supported");
      begin(line.number, "server");
    } else if (t.starts_with("TCP congestion control set to ") && words.size() == 6) {
      run_.congestion = std::string(words[5]);
    } else if (report_text::is_header_line(t)) {
      header(line);
    } else if (report_text::looks_like_bandwidth_line(t)) {
      bandwidth(line);
    } else if (words[0].starts_with("[") && contains(t, " local ") && contains(t, " connected with ")) {
      if (run_.has_data()) begin(line.number, run_.side);
      if (run_.start_line == 0) run_.start_line = line.number;
    }
  }

  void header(const Line& line) {
    const std::string_view t = line.text;
    if (contains(t, "Jitter") || contains(t, "Datagrams") || contains(t, "PPS")) {
      fail(line.number, "iperf2 UDP reports are not supported");
    }
    if (!contains(t, " Interval") || !contains(t, " Transfer") || !contains(t, " Bandwidth")) {
      fail(line.number, "malformed header (expected '[ ID] Interval Transfer Bandwidth ...')");
    }
    if (run_.has_data()) begin(line.number, run_.side);
    if (run_.start_line == 0) run_.start_line = line.number;
    run_.layout = contains(t, "Write/Err")    ? Layout::client_enhanced
                  : contains(t, "Reads=Dist") ? Layout::server_enhanced
                                              : Layout::plain;
  }

  void bandwidth(const Line& line) {
    const BandwidthLine b = report_text::parse_bandwidth_line(line, file_);
    if (run_.layout == Layout::none) fail(line.number, "bandwidth line before any '[ ID] Interval ...' header");
    if (run_.start_line == 0) run_.start_line = line.number;
    Entry e{line.number, b.start_s, b.end_s, b.mbps, std::nullopt};
    const auto& tail = b.tail;
    auto unexpected = [&](std::size_t i) {
      fail(line.number, "unexpected '" + std::string(tail[i]) + "' after the bandwidth");
    };
    switch (run_.layout) {
      case Layout::none:
      case Layout::plain:
        if (!tail.empty()) unexpected(0);
        break;
      case Layout::client_enhanced:
        // "224/0          3      241K/2178(1007) us  53921", or "[SUM] ... 5057/0        41".
        if (tail.size() < 2) fail(line.number, "the line ends before the Write/Err and Rtry columns (truncated?)");
        if (!counts(tail[0], '/', '/')) fail(line.number, "malformed Write/Err '" + std::string(tail[0]) + "'");
        e.retransmits = report_text::to_count(tail[1]);
        if (!e.retransmits) fail(line.number, "malformed Rtry '" + std::string(tail[1]) + "'");
        if (b.id == "SUM" && tail.size() > 2) unexpected(2);
        break;
      case Layout::server_enhanced:
        if (tail.empty()) fail(line.number, "the line ends before the Reads=Dist column (truncated?)");
        if (!counts(tail[0], '=', ':')) fail(line.number, "malformed Reads=Dist '" + std::string(tail[0]) + "'");
        break;
    }
    run_.lines[b.id].push_back(e);
    run_.last_data_line = line.number;
  }

  // A stream's final line is its last 0-END line, END being the latest time
  // the stream reported (its interval lines start at 0 too, but end earlier).
  const Entry& final_line(const std::string& id, const std::vector<Entry>& entries) const {
    double latest = 0;
    for (const Entry& e : entries) latest = std::max(latest, e.end_s);
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      if (it->start_s == 0 && it->end_s >= latest) return *it;
    }
    fail(entries.back().line, "no final (0.0-END) line for [" + id + "] after its interval lines (truncated?)");
  }

  void finish() {
    if (!run_.has_data()) return;
    const RunText r = std::move(run_);
    run_ = RunText{};
    MeasuredRun run;
    run.file = file_;
    run.line = r.start_line;
    run.tool = "iperf2";
    run.side = r.side;
    const int streams = static_cast<int>(r.lines.size() - r.lines.count("SUM"));
    run.streams = std::max(streams, 1);
    std::string id = "SUM";
    if (streams == 1) {
      id = r.lines.begin()->first;  // digits sort before "SUM"
    } else if (r.lines.count("SUM") == 0) {
      fail(r.last_data_line, "no [SUM] final line for the " + std::to_string(streams) + " streams (truncated?)");
    }
    const std::vector<Entry>& entries = r.lines.at(id);
    const Entry& total = final_line(id, entries);
    // Every stream must have ended, even when the [SUM] line carries the figures.
    for (const auto& [stream, stream_entries] : r.lines) final_line(stream, stream_entries);
    run.throughput_mbps = total.mbps;
    if (run.side == "client") run.sender_mbps = total.mbps;
    if (run.side == "server") run.receiver_mbps = total.mbps;
    run.retransmits = total.retransmits;
    run.duration_s = total.end_s - total.start_s;
    for (const Entry& e : entries) {
      if (&e != &total) run.interval_mbps.push_back(e.mbps);
    }
    if (run.side == "client") run.congestion = r.congestion;
    runs_.push_back(std::move(run));
  }

  const std::string& file_;
  RunText run_;
  std::vector<MeasuredRun> runs_;
};

}  // namespace

std::vector<MeasuredRun> parse_iperf2_text(std::string_view text, const std::string& file) {
  return Iperf2TextReader(file).read(text);
}

}  // namespace netsim::measure
