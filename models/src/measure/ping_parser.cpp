#include "ping_parser.h"

#include <algorithm>
#include <array>
#include <utility>

#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::Line;
using Words = std::vector<std::string_view>;

// The statistics lines are lists joined by ", ".
std::vector<std::string_view> split_at(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// FreeBSD's ping -6 (ping6): "PING(56=40+8+8 bytes) fd00::2 --> fd00::3";
// older releases (the KAME ping6) print "PING6(..." (which release changed it
// was not checked).
bool is_ping6_banner(const Words& w) {
  return w.size() == 5 && (w[0].starts_with("PING(") || w[0].starts_with("PING6(")) && w[1] == "bytes)" &&
         w[3] == "-->";
}

// "PING host (addr): 56 data bytes" (FreeBSD, also "... from src: 56 data
// bytes" with -S), "PING host (addr) 56(84) bytes of data." (Linux),
// "PING host(addr) 56 data bytes" (Linux to an IPv6 host; recent iputils
// put a space before the parenthesis), or FreeBSD's ping6 banner.
bool is_banner(const Line& line, const Words& w) {
  const std::string_view text = report_text::trim(line.text);
  return (w.size() >= 3 && w[0] == "PING" && (text.ends_with(" data bytes") || text.ends_with(" bytes of data."))) ||
         is_ping6_banner(w);
}

// An address as ping prints it after "from" or in the banner's parentheses,
// without the punctuation that follows it: IPv6 if it has a colon.
bool is_ipv6_address(std::string_view word) {
  while (!word.empty() && (word.back() == ':' || word.back() == ',')) word.remove_suffix(1);
  return word.find(':') != std::string_view::npos;
}

// Whether a banner names an IPv6 destination.
bool banner_is_ipv6(const Line& line, const Words& w) {
  if (is_ping6_banner(w)) return true;
  const std::size_t open = line.text.find('(');
  const std::size_t close = line.text.find(')', open);
  return open != std::string_view::npos && close != std::string_view::npos &&
         is_ipv6_address(line.text.substr(open + 1, close - open - 1));
}

// "64 bytes from 192.168.50.89: icmp_seq=0 ttl=64 time=0.612 ms"; other ICMP
// messages ("92 bytes from ...: Destination Host Unreachable") carry no
// icmp_seq= and are not replies.
bool is_reply(const Words& w) {
  return w.size() >= 4 && report_text::to_count(w[0]) && w[1] == "bytes" && w[2] == "from" &&
         std::any_of(w.begin() + 3, w.end(), [](std::string_view word) { return word.starts_with("icmp_seq="); });
}

// "--- 192.168.50.89 ping statistics ---" (ping6: "ping6 statistics").
bool is_statistics(const Words& w) {
  return w.size() == 5 && w[0] == "---" && (w[2] == "ping" || w[2] == "ping6") && w[3] == "statistics" &&
         w[4] == "---";
}

// "2 packets transmitted, ..."
bool is_counts(const Words& w) { return w.size() >= 3 && w[1] == "packets" && w[2].starts_with("transmitted"); }

// "round-trip min/avg/max/stddev = ..." or "rtt min/avg/max/mdev = ...".
bool is_round_trip(const Words& w) {
  return w.size() >= 2 && (w[0] == "round-trip" || w[0] == "rtt") && w[1].starts_with("min/");
}

// Linux's figures after the round-trip ones, which it prints on a line of
// their own when there is no round-trip line ("pipe 4" after unanswered
// requests): "pipe N" (requests outstanding at once), "ipg/ewma A/B ms".
bool is_tail(const Words& w) { return !w.empty() && (w[0] == "pipe" || w[0] == "ipg/ewma"); }

class PingReader {
 public:
  explicit PingReader(const std::string& file) : file_(file) {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      const Words words = report_text::split_words(line.text);
      if (state_ == State::counts) {
        counts(line, words);
        continue;
      }
      if (state_ == State::round_trip) {
        // ping prints the counts and at most one line after them.
        state_ = State::none;
        if (is_round_trip(words)) {
          round_trip(line);
          finish();
          continue;
        }
        if (is_tail(words)) {
          tail(line, split_at(line.text, ','), 0);
          finish();
          continue;
        }
        finish();
      }
      if (is_banner(line, words)) {
        if (pending_) unfinished();
        pending_ = true;
        banner_line_ = last_line_ = line.number;
        ipv6_ = banner_is_ipv6(line, words);
      } else if (is_reply(words)) {
        reply(line, words);
        ipv6_ = ipv6_ || is_ipv6_address(words[3]);
        pending_ = true;
        last_line_ = line.number;
      } else if (is_statistics(words)) {
        start(line);
      } else if (is_counts(words) || is_round_trip(words)) {
        throw MeasureError(file_, line.number,
                           std::string(is_counts(words) ? "counts" : "round-trip") +
                               " line without a '--- HOST ping statistics ---' line before it");
      }
    }
    if (state_ == State::counts) no_counts();
    if (state_ == State::round_trip) finish();
    if (pending_) unfinished();
    return std::move(runs_);
  }

 private:
  enum class State { none, counts, round_trip };

  [[noreturn]] void fail(const Line& line, const std::string& message) const {
    throw MeasureError(file_, line.number, message);
  }
  [[noreturn]] void unfinished() const {
    throw MeasureError(file_, last_line_,
                       "ping output without its '--- HOST ping statistics ---' block after it (truncated?)");
  }
  [[noreturn]] void no_counts() const {
    throw MeasureError(file_, statistics_line_,
                       "ping statistics without the 'N packets transmitted, ...' line after them");
  }

  void start(const Line& line) {
    current_ = MeasuredRun{};
    current_.file = file_;
    current_.line = banner_line_ != 0 ? banner_line_ : line.number;
    current_.tool = "ping";
    current_.side = "";
    current_.protocol = ipv6_ ? "ICMPv6" : "ICMP";
    current_.has_rates = false;
    statistics_line_ = line.number;
    pending_ = false;
    banner_line_ = 0;
    ipv6_ = false;
    state_ = State::counts;
  }

  void finish() {
    runs_.push_back(std::move(current_));
    current_ = MeasuredRun{};
  }

  std::uint64_t count(const Line& line, std::string_view word, const std::string& what) const {
    const auto value = report_text::to_count(word);
    if (!value) fail(line, "malformed count '" + std::string(word) + "' of " + what);
    return *value;
  }

  double number(const Line& line, std::string_view word, const std::string& what) const {
    const auto value = report_text::to_number(word);
    if (!value || *value < 0) fail(line, "malformed " + what + " '" + std::string(word) + "'");
    return *value;
  }

  // The numbers of a reply line are checked so that a garbled paste is
  // noticed; the other words (address, "(DUP!)", ...) are left alone.
  void reply(const Line& line, const Words& w) const {
    for (std::size_t i = 3; i < w.size(); ++i) {
      if (w[i].starts_with("icmp_seq=")) count(line, w[i].substr(9), "icmp_seq");
      if (w[i].starts_with("ttl=")) count(line, w[i].substr(4), "ttl");
      if (w[i].starts_with("hlim=")) count(line, w[i].substr(5), "hlim");
      if (w[i].starts_with("time=")) {
        number(line, w[i].substr(5), "reply time");
        if (i + 1 >= w.size() || w[i + 1] != "ms") fail(line, "expected 'ms' after '" + std::string(w[i]) + "'");
      }
    }
  }

  // FreeBSD: "6 packets transmitted, 5 packets received, +1 duplicates, 16.7% packet loss"
  // Linux:   "6 packets transmitted, 5 received, +1 duplicates, +1 errors, 16.6667% packet loss, time 5006ms"
  void counts(const Line& line, const Words& words) {
    if (!is_counts(words)) no_counts();
    const auto parts = split_at(line.text, ',');
    const Words sent = report_text::split_words(parts[0]);
    const Words got = parts.size() > 1 ? report_text::split_words(parts[1]) : Words{};
    const bool got_ok = (got.size() == 3 && got[1] == "packets" && got[2] == "received") ||
                        (got.size() == 2 && got[1] == "received");
    if (sent.size() != 3 || sent[2] != "transmitted" || !got_ok) {
      fail(line, "malformed counts line (expected 'N packets transmitted, N [packets] received, ...')");
    }
    const std::uint64_t transmitted = count(line, sent[0], "packets transmitted");
    const std::uint64_t received = count(line, got[0], "packets received");
    // Duplicates are counted apart, so more replies than requests is a broken
    // report (FreeBSD then prints "-- somebody's printing up packets!").
    if (received > transmitted) {
      fail(line, std::to_string(received) + " replies received for " + std::to_string(transmitted) +
                     " requests transmitted");
    }
    for (std::size_t i = 2; i < parts.size(); ++i) {
      const Words w = report_text::split_words(parts[i]);
      // FreeBSD ends the line with ", " when nothing was transmitted.
      if (w.empty() && i + 1 == parts.size()) break;
      if (w.size() == 2 && (w[1] == "duplicates" || w[1] == "errors" || w[1] == "corrupted")) {
        count(line, w[0].starts_with('+') ? w[0].substr(1) : w[0], std::string(w[1]));
      } else if (w.size() == 3 && w[0].ends_with('%') && w[1] == "packet" && w[2] == "loss") {
        number(line, w[0].substr(0, w[0].size() - 1), "packet loss");
      } else if (w.size() == 2 && w[0] == "time" && w[1].ends_with("ms")) {
        count(line, w[1].substr(0, w[1].size() - 2), "time (ms)");
      } else {
        fail(line, "unknown part '" + std::string(report_text::trim(parts[i])) + "' of the counts line");
      }
    }
    current_.ping_transmitted = transmitted;
    current_.ping_received = received;
    state_ = State::round_trip;
  }

  // "round-trip min/avg/max/stddev = 0.612/0.706/0.799/0.094 ms" (FreeBSD;
  // its ping6 says "std-dev"), "rtt min/avg/max/mdev = ... ms, pipe 2" (Linux).
  void round_trip(const Line& line) {
    const auto parts = split_at(line.text, ',');
    const Words w = report_text::split_words(parts[0]);
    const bool labels = w.size() == 5 && w[2] == "=" && w[4] == "ms" &&
                        ((w[0] == "round-trip" && (w[1] == "min/avg/max/stddev" || w[1] == "min/avg/max/std-dev")) ||
                         (w[0] == "rtt" && w[1] == "min/avg/max/mdev"));
    if (!labels) {
      fail(line, "malformed round-trip line (expected 'round-trip min/avg/max/stddev = MIN/AVG/MAX/STDDEV ms' or "
                 "'rtt min/avg/max/mdev = MIN/AVG/MAX/MDEV ms')");
    }
    const auto names = split_at(w[1], '/');
    const auto values = split_at(w[3], '/');
    if (values.size() != 4) fail(line, "expected four values MIN/AVG/MAX/" + std::string(names[3]) + ", found '" +
                                           std::string(w[3]) + "'");
    std::array<double, 4> v{};
    for (std::size_t i = 0; i < 4; ++i) v[i] = number(line, values[i], "round-trip " + std::string(names[i]));
    if (*current_.ping_received == 0) fail(line, "round-trip figures without any reply received");
    if (v[0] > v[1] || v[1] > v[2]) {
      const std::size_t at = v[0] > v[1] ? 0 : 1;
      fail(line, "round-trip values out of order: " + std::string(names[at]) + " " + std::string(values[at]) +
                     " > " + std::string(names[at + 1]) + " " + std::string(values[at + 1]) +
                     " (expected min <= avg <= max)");
    }
    current_.rtt_min_ms = v[0];
    current_.rtt_avg_ms = v[1];
    current_.rtt_max_ms = v[2];
    current_.rtt_stddev_ms = v[3];
    tail(line, parts, 1);
  }

  void tail(const Line& line, const std::vector<std::string_view>& parts, std::size_t first) const {
    for (std::size_t i = first; i < parts.size(); ++i) {
      const Words w = report_text::split_words(parts[i]);
      if (w.size() == 2 && w[0] == "pipe") {
        count(line, w[1], "pipe");
      } else if (w.size() == 3 && w[0] == "ipg/ewma" && w[2] == "ms") {
        const auto values = split_at(w[1], '/');
        if (values.size() != 2) fail(line, "malformed ipg/ewma '" + std::string(w[1]) + "'");
        number(line, values[0], "ipg");
        number(line, values[1], "ewma");
      } else {
        fail(line, "unknown part '" + std::string(report_text::trim(parts[i])) +
                       "' (expected 'pipe N' or 'ipg/ewma IPG/EWMA ms')");
      }
    }
  }

  const std::string& file_;
  std::vector<MeasuredRun> runs_;
  MeasuredRun current_;
  State state_ = State::none;
  bool pending_ = false;    // a banner or reply lines whose statistics are still to come
  int banner_line_ = 0;     // the pending ping's banner, 0 if none
  bool ipv6_ = false;       // the pending ping's banner or replies name an IPv6 address
  int last_line_ = 0;       // the pending ping's last line
  int statistics_line_ = 0;  // the open block's statistics line
};

}  // namespace

bool looks_like_ping_line(std::string_view text) {
  const Words words = report_text::split_words(text);
  return is_banner(Line{0, text}, words) || is_reply(words) || is_statistics(words) || is_counts(words) ||
         is_round_trip(words);
}

std::vector<MeasuredRun> parse_ping(std::string_view text, const std::string& file) {
  return PingReader(file).read(text);
}

}  // namespace netsim::measure
