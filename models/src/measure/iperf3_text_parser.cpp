#include "iperf3_text_parser.h"

#include <map>
#include <optional>
#include <set>
#include <utility>

#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::BandwidthLine;
using report_text::contains;
using report_text::Line;

struct Summary {
  double mbps = 0;
  double end_s = 0;
  std::optional<std::uint64_t> retransmits;
};

struct CpuPart {
  std::string who;   // "local" | "remote"
  std::string role;  // "sender" | "receiver"
  double pct = 0;
};

// What one iperf3 output has shown so far.
struct RunText {
  int start_line = 0;
  std::string side;
  bool reverse = false;
  bool header_seen = false;
  bool header_retr = false;
  bool header_cwnd = false;
  std::set<std::string> stream_ids;
  std::vector<std::pair<std::string, double>> intervals;  // id, Mbit/s (omitted ones left out)
  std::map<std::pair<std::string, std::string>, Summary> summaries;  // (id, "sender"/"receiver")
  std::vector<CpuPart> cpu;
  std::string congestion;
  int last_data_line = 0;

  bool has_data() const { return last_data_line != 0; }
};

class Iperf3TextReader {
 public:
  explicit Iperf3TextReader(const std::string& file) : file_(file) {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) take(line);
    finish();
    return std::move(runs_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& message) const { throw MeasureError(file_, line, message); }

  void begin(int line, std::string side) {
    finish();
    run_ = RunText{};
    run_.start_line = line;
    run_.side = std::move(side);
  }

  void take(const Line& line) {
    const std::string_view t = line.text;
    const auto words = report_text::split_words(t);
    if (words.empty()) return;
    if (t.starts_with("Connecting to host ")) {
      begin(line.number, "client");
    } else if (t.starts_with("Accepted connection from ")) {
      if (run_.has_data() || run_.start_line == 0) begin(line.number, "server");
      run_.side = "server";
    } else if (t.starts_with("Server listening on ")) {
      begin(line.number, "server");
    } else if (t.starts_with("iperf Done.")) {
      finish();
    } else if (t.starts_with("Reverse mode, remote host ")) {
      run_.reverse = true;
    } else if (report_text::is_header_line(t)) {
      header(line, words);
    } else if (t.starts_with("CPU Utilization:")) {
      cpu(line);
    } else if (words[0] == "snd_tcp_congestion" && words.size() == 2) {
      run_.congestion = std::string(words[1]);
    } else if (report_text::looks_like_bandwidth_line(t)) {
      bandwidth(line);
    } else if (words[0].starts_with("[") && contains(t, " local ") && contains(t, " connected to ")) {
      if (run_.has_data()) begin(line.number, run_.side);
      if (run_.start_line == 0) run_.start_line = line.number;
    }
  }

  void header(const Line& line, const std::vector<std::string_view>& words) {
    if (contains(line.text, "[Role]")) fail(line.number, "bidirectional (--bidir) reports are not supported");
    if (contains(line.text, "Jitter") || contains(line.text, "Datagrams")) {
      fail(line.number, "UDP reports are not supported in iperf3 text (use -J)");
    }
    if (words.size() < 5 || words[2] != "Interval" || words[3] != "Transfer" ||
        (words[4] != "Bitrate" && words[4] != "Bandwidth")) {
      fail(line.number, "malformed header (expected '[ ID] Interval Transfer Bitrate [Retr [Cwnd]]')");
    }
    if (!run_.summaries.empty()) begin(line.number, run_.side);
    if (run_.start_line == 0) run_.start_line = line.number;
    run_.header_seen = true;
    run_.header_retr = contains(line.text, " Retr");
    run_.header_cwnd = contains(line.text, " Cwnd");
  }

  // "CPU Utilization: local/sender 5.2% (0.2%u/5.0%s), remote/receiver 20.1% (0.9%u/19.2%s)"
  void cpu(const Line& line) {
    const std::string malformed =
        "malformed CPU Utilization line (expected 'CPU Utilization: local/ROLE P% (U%u/S%s), remote/ROLE P% (U%u/S%s)')";
    std::string_view rest = line.text.substr(std::string_view("CPU Utilization:").size());
    const std::size_t comma = rest.find(", ");
    if (comma == std::string_view::npos) fail(line.number, malformed);
    for (std::string_view part : {rest.substr(0, comma), rest.substr(comma + 2)}) {
      const auto words = report_text::split_words(part);
      if (words.size() != 3) fail(line.number, malformed);
      const std::size_t slash = words[0].find('/');
      CpuPart p;
      p.who = std::string(words[0].substr(0, slash == std::string_view::npos ? 0 : slash));
      p.role = std::string(words[0].substr(slash == std::string_view::npos ? 0 : slash + 1));
      const auto pct = words[1].ends_with('%') ? report_text::to_number(words[1].substr(0, words[1].size() - 1))
                                               : std::nullopt;
      if ((p.who != "local" && p.who != "remote") || (p.role != "sender" && p.role != "receiver") || !pct ||
          !words[2].starts_with('(') || !words[2].ends_with(')')) {
        fail(line.number, malformed);
      }
      p.pct = *pct;
      run_.cpu.push_back(p);
    }
  }

  void bandwidth(const Line& line) {
    const BandwidthLine b = report_text::parse_bandwidth_line(line, file_);
    if (!run_.header_seen) fail(line.number, "bandwidth line before any '[ ID] Interval ...' header");
    std::vector<std::string_view> tail = b.tail;
    std::string tag;
    if (!tail.empty() && (tail.back() == "sender" || tail.back() == "receiver" || tail.back() == "(omitted)")) {
      tag = std::string(tail.back());
      tail.pop_back();
    }
    std::optional<std::uint64_t> retransmits;
    if (!tail.empty()) {
      if (!run_.header_retr) fail(line.number, "unexpected '" + std::string(tail[0]) + "' (the header has no Retr column)");
      retransmits = report_text::to_count(tail[0]);
      if (!retransmits) fail(line.number, "malformed Retr '" + std::string(tail[0]) + "'");
    }
    if (tail.size() == 3) {
      const auto cwnd = report_text::to_number(tail[1]);
      if (!run_.header_cwnd || !cwnd || !report_text::bytes_of(*cwnd, tail[2])) {
        fail(line.number, "malformed Cwnd '" + std::string(tail[1]) + " " + std::string(tail[2]) + "'");
      }
    } else if (tail.size() > 1) {
      fail(line.number, "unexpected '" + std::string(tail.back()) + "' at the end of the line");
    }
    if (b.id != "SUM") run_.stream_ids.insert(b.id);
    run_.last_data_line = line.number;
    if (tag == "sender" || tag == "receiver") {
      auto [it, fresh] = run_.summaries.emplace(std::pair{b.id, tag}, Summary{b.mbps, b.end_s, retransmits});
      if (!fresh) fail(line.number, "a second '" + tag + "' summary for [" + b.id + "] in one run");
    } else {
      if (!run_.summaries.empty()) fail(line.number, "interval line after the summary lines");
      if (tag.empty()) run_.intervals.emplace_back(b.id, b.mbps);
    }
  }

  void finish() {
    if (!run_.has_data()) return;
    const RunText r = std::move(run_);
    run_ = RunText{};
    if (r.summaries.empty()) {
      fail(r.last_data_line, "no summary line ('... sender' or '... receiver') after the interval lines (truncated?)");
    }
    MeasuredRun run;
    run.file = file_;
    run.line = r.start_line;
    run.tool = "iperf3-text";
    run.side = r.side;
    run.reverse = r.reverse;
    run.streams = r.stream_ids.empty() ? 1 : static_cast<int>(r.stream_ids.size());
    const std::string id = run.streams > 1 ? "SUM" : *r.stream_ids.begin();
    auto summary = [&](const std::string& tag) -> const Summary* {
      const auto it = r.summaries.find({id, tag});
      return it == r.summaries.end() ? nullptr : &it->second;
    };
    const Summary* sender = summary("sender");
    const Summary* receiver = summary("receiver");
    if (sender == nullptr && receiver == nullptr) {
      fail(r.last_data_line, "no [" + id + "] summary line for the " + std::to_string(run.streams) + " streams");
    }
    if (sender != nullptr) {
      run.sender_mbps = sender->mbps;
      run.retransmits = sender->retransmits;
    }
    if (receiver != nullptr) run.receiver_mbps = receiver->mbps;
    run.throughput_mbps = receiver != nullptr ? receiver->mbps : sender->mbps;
    run.duration_s = receiver != nullptr ? receiver->end_s : sender->end_s;
    for (const auto& [interval_id, mbps] : r.intervals) {
      if (interval_id == id) run.interval_mbps.push_back(mbps);
    }
    for (const CpuPart& p : r.cpu) {
      // A server prints the remote CPU as 0: it has not received it yet.
      if (p.who == "remote" && run.side == "server") continue;
      (p.role == "sender" ? run.cpu_sender_pct : run.cpu_receiver_pct) = p.pct;
    }
    run.congestion = r.congestion;
    runs_.push_back(std::move(run));
  }

  const std::string& file_;
  RunText run_;
  std::vector<MeasuredRun> runs_;
};

}  // namespace

std::vector<MeasuredRun> parse_iperf3_text(std::string_view text, const std::string& file) {
  return Iperf3TextReader(file).read(text);
}

}  // namespace netsim::measure
