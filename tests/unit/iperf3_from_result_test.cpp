// End to end: a simulated iperf3 test (one T1 cell) rendered as iperf3 -J
// JSON, parsed back with protobuf's JSON parser, and its sums checked against
// the run's own counters.
#include <gtest/gtest.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <sstream>
#include <string>

#include "netsim/app/iperf3_from_result.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

const results::RunResult& t1_cell() {
  static const results::RunResult r = run_scenario(
      load_scenario(std::string(NETSIM_SOURCE_DIR) + "/scenarios/t1-loss-resilience.yaml",
                    {parse_override("hosts.sender.hz=100"), parse_override("traffic.iperf3.cc=cubic_d46046"),
                     parse_override("filters.drop.every=50")}));
  return r;
}

const Value& at(const Struct& s, const std::string& key) {
  const auto it = s.fields().find(key);
  if (it == s.fields().end()) throw std::runtime_error("missing key " + key);
  return it->second;
}

TEST(Iperf3FromResult, ClientJsonParsesAndSums) {
  const results::RunResult& r = t1_cell();
  ASSERT_EQ(r.iperf3_size(), 1);
  std::ostringstream json;
  app::write_iperf3_json(json, app::iperf3_test_from_result(r.iperf3(0), r.seed()), app::Iperf3Side::client);
  Struct doc;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.str(), &doc).ok()) << json.str();

  const Struct& start = at(doc, "start").struct_value();
  EXPECT_EQ(at(at(start, "connecting_to").struct_value(), "host").string_value(), "192.168.1.20");
  EXPECT_EQ(at(at(start, "test_start").struct_value(), "blksize").number_value(), 1048576.0);
  EXPECT_EQ(at(at(start, "test_start").struct_value(), "duration").number_value(), 10.0);
  EXPECT_EQ(at(start, "cookie").string_value().size(), 36u);

  const auto& intervals = at(doc, "intervals").list_value().values();
  ASSERT_EQ(intervals.size(), 10);
  double bytes = 0;
  double retransmits = 0;
  for (const Value& v : intervals) {
    const Struct& sum = at(v.struct_value(), "sum").struct_value();
    const Struct& stream = at(v.struct_value(), "streams").list_value().values(0).struct_value();
    EXPECT_EQ(at(sum, "bytes").number_value(), at(stream, "bytes").number_value());
    const double seconds = at(stream, "seconds").number_value();
    EXPECT_NEAR(at(stream, "bits_per_second").number_value(), at(stream, "bytes").number_value() * 8 / seconds,
                1e-6 * at(stream, "bits_per_second").number_value());
    bytes += at(stream, "bytes").number_value();
    retransmits += at(stream, "retransmits").number_value();
  }
  const Struct& end = at(doc, "end").struct_value();
  const Struct& sent = at(end, "sum_sent").struct_value();
  const Struct& received = at(end, "sum_received").struct_value();
  EXPECT_EQ(at(sent, "bytes").number_value(), bytes);
  EXPECT_EQ(at(sent, "retransmits").number_value(), retransmits);
  EXPECT_EQ(at(sent, "retransmits").number_value(), static_cast<double>(r.flows(0).retransmits()));
  EXPECT_EQ(at(received, "bytes").number_value(), static_cast<double>(r.flows(0).bytes_received()));
  // The receiver line's rate is the flow's receiver throughput.
  EXPECT_NEAR(at(received, "bits_per_second").number_value() / 1e6, r.flows(0).receiver_mbps(), 1e-6);
  EXPECT_EQ(at(end, "sender_tcp_congestion").string_value(), "cubic_d46046");
}

TEST(Iperf3FromResult, TextHasOneLinePerIntervalAndTheSummary) {
  const results::RunResult& r = t1_cell();
  std::ostringstream text;
  app::write_iperf3_text(text, app::iperf3_test_from_result(r.iperf3(0), r.seed()), app::Iperf3Side::client);
  const std::string s = text.str();
  int interval_lines = 0;
  std::istringstream lines(s);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("[  5] ", 0) == 0 && line.find(" sec ") != std::string::npos &&
        line.find("sender") == std::string::npos && line.find("receiver") == std::string::npos) {
      ++interval_lines;
    }
  }
  EXPECT_EQ(interval_lines, 10);
  EXPECT_NE(s.find("Connecting to host 192.168.1.20, port 5201"), std::string::npos);
  EXPECT_NE(s.find("  0.00-10.00  sec"), std::string::npos);
  EXPECT_NE(s.find("iperf Done."), std::string::npos);
}

TEST(Iperf3FromResult, CookieIsDeterministicAndSeedDependent) {
  const results::RunResult& r = t1_cell();
  const auto a = app::iperf3_test_from_result(r.iperf3(0), 1);
  const auto b = app::iperf3_test_from_result(r.iperf3(0), 1);
  const auto c = app::iperf3_test_from_result(r.iperf3(0), 2);
  EXPECT_EQ(a.cookie, b.cookie);
  EXPECT_NE(a.cookie, c.cookie);
  for (char ch : a.cookie) EXPECT_TRUE((ch >= 'a' && ch <= 'z') || (ch >= '2' && ch <= '7')) << ch;
}

}  // namespace
}  // namespace netsim
