#include "netstat_tcp_parser.h"

#include <array>
#include <optional>

#include "counter_snapshots.h"
#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::Line;

enum class Counter { retransmits, rto_count, recovery_episodes };

bool is_tcp_header(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text == "tcp:";
}

bool is_one_of(std::string_view word, std::string_view singular, std::string_view plural) {
  return word == singular || word == plural;
}

// Which counter a line's label (the words after its count) names, if any of ours.
std::optional<Counter> counter_of(const std::vector<std::string_view>& w) {
  if (w.size() == 3 && w[1] == "retransmit" && is_one_of(w[2], "timeout", "timeouts")) return Counter::rto_count;
  if (w.size() == 4 && w[1] == "SACK" && w[2] == "recovery" && is_one_of(w[3], "episode", "episodes")) {
    return Counter::recovery_episodes;
  }
  if (w.size() == 6 && w[1] == "data" && is_one_of(w[2], "packet", "packets") && w[3].starts_with("(") &&
      is_one_of(w[4], "byte)", "bytes)") && w[5] == "retransmitted") {
    return Counter::retransmits;
  }
  return std::nullopt;
}

const char* name_of(Counter c) {
  switch (c) {
    case Counter::retransmits: return "'data packets (...) retransmitted'";
    case Counter::rto_count: return "'retransmit timeouts'";
    case Counter::recovery_episodes: return "'SACK recovery episodes'";
  }
  return "?";
}

class NetstatTcpReader {
 public:
  explicit NetstatTcpReader(const std::string& file) : file_(file), snapshots_(file, "netstat-tcp", "sender") {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      if (is_tcp_header(line.text)) {
        start(line.number);
        continue;
      }
      if (!snapshots_.open()) continue;
      // The section is its indented lines; the next protocol's header ends it.
      if (!line.text.empty() && line.text.front() != ' ' && line.text.front() != '\t') {
        snapshots_.finish();
        continue;
      }
      const auto words = report_text::split_words(line.text);
      if (const auto c = counter_of(words)) counter(line, words, *c);
    }
    return snapshots_.take();
  }

 private:
  void start(int line) {
    MeasuredRun& run = snapshots_.start(line);
    // netstat -ss omits zero counters.
    run.retransmits = 0;
    run.rto_count = 0;
    run.recovery_episodes = 0;
    seen_ = {};
  }

  void counter(const Line& line, const std::vector<std::string_view>& words, Counter c) {
    auto fail = [&](const std::string& message) { throw MeasureError(file_, line.number, message); };
    const auto value = report_text::to_count(words[0]);
    if (!value) fail("malformed count '" + std::string(words[0]) + "' of " + name_of(c));
    if (c == Counter::retransmits && !report_text::to_count(words[3].substr(1))) {
      fail("malformed byte count '" + std::string(words[3].substr(1)) + "' of " + name_of(c));
    }
    bool& seen = seen_[static_cast<std::size_t>(c)];
    if (seen) fail(std::string(name_of(c)) + " appears twice in one tcp: section");
    seen = true;
    MeasuredRun& run = snapshots_.current();
    switch (c) {
      case Counter::retransmits: run.retransmits = *value; break;
      case Counter::rto_count: run.rto_count = *value; break;
      case Counter::recovery_episodes: run.recovery_episodes = *value; break;
    }
  }

  const std::string& file_;
  CounterSnapshots snapshots_;
  std::array<bool, 3> seen_{};
};

}  // namespace

bool looks_like_netstat_tcp_line(std::string_view text) {
  if (is_tcp_header(text)) return true;
  if (text.empty() || (text.front() != ' ' && text.front() != '\t')) return false;
  return counter_of(report_text::split_words(text)).has_value();
}

std::vector<MeasuredRun> parse_netstat_tcp(std::string_view text, const std::string& file) {
  return NetstatTcpReader(file).read(text);
}

}  // namespace netsim::measure
