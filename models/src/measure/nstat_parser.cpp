#include "nstat_parser.h"

#include <algorithm>
#include <set>

#include "counter_snapshots.h"
#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::Line;

// The counter families nstat prints (/proc/net/snmp, netstat, snmp6, and
// sctp/mptcp where built in).
constexpr std::string_view kFamilies[] = {"Ip", "Icmp", "Tcp", "Udp", "UdpLite", "Sctp", "MPTcp", "Mptcp"};

bool is_counter_name(std::string_view word) {
  if (word.empty()) return false;
  const bool family = std::any_of(std::begin(kFamilies), std::end(kFamilies),
                                  [word](std::string_view f) { return word.starts_with(f); });
  if (!family) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool starts_with_digit(std::string_view word) { return !word.empty() && word.front() >= '0' && word.front() <= '9'; }

class NstatReader {
 public:
  explicit NstatReader(const std::string& file) : file_(file), snapshots_(file, "nstat", "receiver") {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      const auto words = report_text::split_words(line.text);
      if (words.size() == 1 && words[0] == "#kernel") {
        start(line.number);
        continue;
      }
      if (words.size() < 2 || !is_counter_name(words[0]) || !starts_with_digit(words[1])) continue;
      if (!snapshots_.open()) start(line.number);
      counter(line, words);
    }
    return snapshots_.take();
  }

 private:
  void start(int line) {
    snapshots_.start(line).receiver_delayed_acks = 0;  // nstat omits zero counters
    seen_.clear();
  }

  void counter(const Line& line, const std::vector<std::string_view>& words) {
    auto fail = [&](const std::string& message) { throw MeasureError(file_, line.number, message); };
    // "NAME VALUE RATE"; the rate column is absent in some pasted excerpts.
    if (words.size() > 3) fail("malformed nstat line (expected 'COUNTER VALUE RATE')");
    const auto value = report_text::to_count(words[1]);
    if (!value) fail("malformed value '" + std::string(words[1]) + "' of " + std::string(words[0]));
    if (words.size() == 3 && !report_text::to_number(words[2])) {
      fail("malformed rate '" + std::string(words[2]) + "' of " + std::string(words[0]));
    }
    if (!seen_.insert(std::string(words[0])).second) {
      fail(std::string(words[0]) + " appears twice in one snapshot (a new one starts with '#kernel')");
    }
    if (words[0] == "TcpExtDelayedACKs") snapshots_.current().receiver_delayed_acks = *value;
  }

  const std::string& file_;
  CounterSnapshots snapshots_;
  std::set<std::string> seen_;
};

}  // namespace

bool looks_like_nstat_line(std::string_view text) {
  const auto words = report_text::split_words(text);
  if (words.size() == 1 && words[0] == "#kernel") return true;
  return words.size() >= 2 && is_counter_name(words[0]) && starts_with_digit(words[1]);
}

std::vector<MeasuredRun> parse_nstat(std::string_view text, const std::string& file) {
  return NstatReader(file).read(text);
}

}  // namespace netsim::measure
