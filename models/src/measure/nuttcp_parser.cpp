#include "nuttcp_parser.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

using report_text::Line;

// The "value label" pairs nuttcp may append (brief and interval variants);
// only some are used, the others are checked and skipped.
constexpr std::string_view kSkippedLabels[] = {"KB-cwnd",  "msMinJitter", "msAvgJitter", "msMaxJitter",
                                               "msMinOWD", "msAvgOWD",    "msMaxOWD",    "~%loss"};

struct NuttcpLine {
  double seconds = 0;
  double mbps = 0;
  std::optional<double> tx_pct, rx_pct;
  std::optional<std::uint64_t> retransmits;
  bool udp = false;
  bool final = false;  // carries %TX / %RX: the end-of-test line
};

class NuttcpReader {
 public:
  explicit NuttcpReader(const std::string& file) : file_(file) {}

  std::vector<MeasuredRun> read(std::string_view text) {
    for (const Line& line : report_text::split_lines(text)) {
      if (!looks_like_nuttcp_line(line.text)) continue;
      const NuttcpLine n = parse(line);
      if (first_line_ == 0) first_line_ = line.number;
      last_line_ = line.number;
      if (!n.final) {
        intervals_.push_back(n.mbps);
        continue;
      }
      MeasuredRun run;
      run.file = file_;
      run.line = first_line_;
      run.tool = "nuttcp";
      run.side = "client";
      run.protocol = n.udp ? "UDP" : "TCP";
      // nuttcp reports the receiver's view in client/server mode.
      run.receiver_mbps = n.mbps;
      run.throughput_mbps = n.mbps;
      run.retransmits = n.retransmits;
      run.cpu_sender_pct = n.tx_pct;
      run.cpu_receiver_pct = n.rx_pct;
      run.duration_s = n.seconds;
      run.interval_mbps = std::move(intervals_);
      intervals_.clear();
      runs_.push_back(std::move(run));
      first_line_ = 0;
    }
    if (first_line_ != 0) {
      throw MeasureError(file_, last_line_, "no final line ('... Mbps N %TX N %RX ...') after the interval lines (truncated?)");
    }
    return std::move(runs_);
  }

 private:
  NuttcpLine parse(const Line& line) const {
    auto fail = [&](const std::string& message) { throw MeasureError(file_, line.number, message); };
    const auto words = report_text::split_words(line.text);
    NuttcpLine out;
    // "X MB / Y sec = Z Mbps"; looks_like_nuttcp_line checked "X MB /".
    if (words.size() < 8 || words[4] != "sec" || words[5] != "=" || words[7] != "Mbps") {
      fail("malformed nuttcp line (expected 'MEGABYTES MB / SECONDS sec = RATE Mbps ...')");
    }
    if (!report_text::to_number(words[0])) fail("malformed megabytes '" + std::string(words[0]) + "'");
    const auto seconds = report_text::to_number(words[3]);
    if (!seconds) fail("malformed seconds '" + std::string(words[3]) + "'");
    const auto mbps = report_text::to_number(words[6]);
    if (!mbps) fail("malformed Mbps '" + std::string(words[6]) + "'");
    out.seconds = *seconds;
    out.mbps = *mbps;
    for (std::size_t i = 8; i < words.size();) {
      const std::string_view value = words[i];
      if (i + 1 >= words.size()) fail("'" + std::string(value) + "' without a label at the end of the line");
      const std::string_view label = words[i + 1];
      // UDP: "0 / 150000 drop/pkt" (interval lines: "~drop/pkt").
      if (label == "/") {
        if (i + 3 >= words.size() || (words[i + 3] != "drop/pkt" && words[i + 3] != "~drop/pkt") ||
            !report_text::to_count(value) || !report_text::to_count(words[i + 2])) {
          fail("malformed drop/pkt field (expected 'DROPPED / PACKETS drop/pkt')");
        }
        out.udp = true;
        i += 4;
        continue;
      }
      const auto number = report_text::to_number(value);
      if (!number) fail("malformed value '" + std::string(value) + "' before '" + std::string(label) + "'");
      if (label == "%TX" || label == "%RX") {
        (label == "%TX" ? out.tx_pct : out.rx_pct) = *number;
        out.final = true;
      } else if (label == "retrans") {
        out.retransmits = report_text::to_count(value);
        if (!out.retransmits) fail("malformed retrans count '" + std::string(value) + "'");
      } else if (label == "%loss") {
        out.udp = true;
      } else if (label != "msRTT" && std::find(std::begin(kSkippedLabels), std::end(kSkippedLabels), label) ==
                                         std::end(kSkippedLabels)) {
        fail("unknown field '" + std::string(label) + "'");
      }
      i += 2;
    }
    return out;
  }

  const std::string& file_;
  std::vector<double> intervals_;
  int first_line_ = 0;
  int last_line_ = 0;
  std::vector<MeasuredRun> runs_;
};

}  // namespace

bool looks_like_nuttcp_line(std::string_view text) {
  const auto words = report_text::split_words(text);
  return words.size() >= 3 && words[1] == "MB" && words[2] == "/";
}

std::vector<MeasuredRun> parse_nuttcp(std::string_view text, const std::string& file) {
  return NuttcpReader(file).read(text);
}

}  // namespace netsim::measure
