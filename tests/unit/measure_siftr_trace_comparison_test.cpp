// A measured SIFTR trace beside a simulated one: flows paired by start order
// or 4-tuple, bins either side has, errors in percent, and the text table.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/measure/siftr_trace_comparison.h"

namespace netsim::measure {
namespace {

using tcp::SiftrDirection;
using tcp::SiftrRecord;

constexpr auto kIn = SiftrDirection::in;
constexpr auto kOut = SiftrDirection::out;

// A record of host.1:lport -> host.2:5001 at 1000 s + us.
SiftrRecord rec(std::uint8_t host, std::uint16_t lport, SiftrDirection dir, std::int64_t us, std::uint32_t cwnd,
                std::uint32_t srtt, std::uint32_t flight) {
  SiftrRecord r;
  r.direction = dir;
  r.tv_sec = 1000 + us / 1'000'000;
  r.tv_usec = static_cast<std::int32_t>(us % 1'000'000);
  r.laddr.bytes = {10, host, 0, 1};
  r.faddr.bytes = {10, host, 0, 2};
  r.lport = lport;
  r.fport = 5001;
  r.snd_cwnd = cwnd;
  r.snd_ssthresh = 1073725440;
  r.srtt = srtt;
  r.sent_inflight_bytes = flight;
  return r;
}

// Measured: flow 32291 with bins 0 and 1, flow 58544 with bin 0.
std::vector<SiftrRecord> measured() {
  return {rec(1, 32291, kOut, 0, 10000, 1000, 0), rec(1, 32291, kIn, 50'000, 12000, 800, 2000),
          rec(1, 58544, kOut, 60'000, 10000, 1000, 0), rec(1, 32291, kOut, 150'000, 20000, 600, 4000),
          rec(1, 58544, kIn, 70'000, 14000, 900, 1000)};
}

// Simulated: other addresses and ports; the first flow has an extra bin 2.
std::vector<SiftrRecord> simulated() {
  return {rec(9, 49152, kOut, 0, 11000, 1100, 0),         rec(9, 49152, kIn, 40'000, 11000, 900, 2000),
          rec(9, 49152, kOut, 45'000, 11000, 900, 2000),  rec(9, 49153, kOut, 80'000, 10000, 1000, 0),
          rec(9, 49152, kOut, 130'000, 18000, 600, 3000), rec(9, 49152, kOut, 210'000, 19000, 700, 3500)};
}

TEST(MeasureSiftrTraceComparison, FlowsPairedByStartOrder) {
  const tcp::SiftrEnableLine enable;  // 1.3.0: srtt in microseconds
  const auto m = measured();
  const auto s = simulated();
  const SiftrTraceComparison c = compare_siftr_traces(m, enable, s, enable);
  EXPECT_EQ(c.records_in.measured, 2.0);
  EXPECT_EQ(c.records_in.simulated, 1.0);
  EXPECT_DOUBLE_EQ(*c.records_in.error_pct(), -50.0);
  EXPECT_EQ(c.records_out.measured, 3.0);
  EXPECT_EQ(c.records_out.simulated, 5.0);
  ASSERT_EQ(c.flows.size(), 2u);

  const SiftrFlowComparison& a = c.flows[0];
  ASSERT_TRUE(a.measured && a.simulated);
  EXPECT_EQ(a.measured->lport, 32291);
  EXPECT_EQ(a.simulated->lport, 49152);
  EXPECT_EQ(a.records_out.measured, 2.0);
  EXPECT_EQ(a.records_out.simulated, 4.0);
  ASSERT_EQ(a.bins.size(), 3u);
  const SiftrBinComparison& b0 = a.bins[0];
  EXPECT_EQ(b0.index, 0);
  EXPECT_EQ(b0.start_s, 0.0);
  EXPECT_EQ(b0.records.measured, 2.0);
  EXPECT_EQ(b0.records.simulated, 3.0);
  EXPECT_DOUBLE_EQ(*b0.cwnd.measured, 11000);
  EXPECT_DOUBLE_EQ(*b0.cwnd.simulated, 11000);
  EXPECT_DOUBLE_EQ(*b0.cwnd.error_pct(), 0);
  EXPECT_DOUBLE_EQ(*b0.srtt_us.measured, 900);
  EXPECT_DOUBLE_EQ(*b0.srtt_us.simulated, 2900.0 / 3);
  EXPECT_DOUBLE_EQ(*b0.flight.measured, 1000);
  EXPECT_DOUBLE_EQ(*b0.flight.error_pct(), (4000.0 / 3 - 1000) / 1000 * 100);
  EXPECT_DOUBLE_EQ(*b0.ssthresh.error_pct(), 0);
  const SiftrBinComparison& b1 = a.bins[1];
  EXPECT_DOUBLE_EQ(b1.start_s, 0.1);
  EXPECT_DOUBLE_EQ(*b1.cwnd.error_pct(), -10);
  // Bin 2 only in the simulation: nothing measured to compare with.
  const SiftrBinComparison& b2 = a.bins[2];
  EXPECT_EQ(b2.index, 2);
  EXPECT_FALSE(b2.records.measured.has_value());
  EXPECT_FALSE(b2.cwnd.measured.has_value());
  EXPECT_DOUBLE_EQ(*b2.cwnd.simulated, 19000);
  EXPECT_FALSE(b2.cwnd.error_pct().has_value());

  const SiftrFlowComparison& f2 = c.flows[1];
  EXPECT_EQ(f2.measured->lport, 58544);
  EXPECT_EQ(f2.simulated->lport, 49153);
  EXPECT_EQ(f2.records_in.measured, 1.0);
  EXPECT_EQ(f2.records_in.simulated, 0.0);
  EXPECT_DOUBLE_EQ(*f2.records_in.error_pct(), -100);
  ASSERT_EQ(f2.bins.size(), 1u);
  // A measured 0 has no relative error.
  EXPECT_EQ(f2.bins[0].flight.simulated, 0.0);
  EXPECT_DOUBLE_EQ(*f2.bins[0].flight.measured, 500);
  EXPECT_FALSE((SiftrCompared{0.0, 5.0}.error_pct().has_value()));
}

TEST(MeasureSiftrTraceComparison, FlowsPairedByTuple) {
  const tcp::SiftrEnableLine enable;
  const SiftrSummary m = summarize_siftr(measured(), enable);
  // The simulation ran the same 4-tuples, the second flow first, and one more.
  std::vector<SiftrRecord> sim = {rec(1, 58544, kOut, 0, 10000, 1000, 0), rec(1, 32291, kOut, 10, 10000, 1000, 0),
                                  rec(1, 40000, kOut, 20, 10000, 1000, 0)};
  const SiftrTraceComparison c = compare_siftr_traces(m, summarize_siftr(sim, enable), SiftrFlowPairing::by_tuple);
  ASSERT_EQ(c.flows.size(), 3u);
  EXPECT_EQ(c.flows[0].measured->lport, 32291);
  EXPECT_EQ(c.flows[0].simulated->lport, 32291);
  EXPECT_EQ(c.flows[1].measured->lport, 58544);
  EXPECT_EQ(c.flows[1].simulated->lport, 58544);
  EXPECT_FALSE(c.flows[2].measured.has_value());
  EXPECT_EQ(c.flows[2].simulated->lport, 40000);
  EXPECT_FALSE(c.flows[2].records_out.measured.has_value());
  // By order the same summaries pair differently and leave nothing over.
  const SiftrTraceComparison o =
      compare_siftr_traces(m, summarize_siftr(std::vector<SiftrRecord>(sim.begin(), sim.begin() + 1), enable));
  ASSERT_EQ(o.flows.size(), 2u);
  EXPECT_EQ(o.flows[0].simulated->lport, 58544);
  EXPECT_FALSE(o.flows[1].simulated.has_value());
}

TEST(MeasureSiftrTraceComparison, SummariesMustBeBinnedAlike) {
  const tcp::SiftrEnableLine enable;
  const SiftrSummary a = summarize_siftr(measured(), enable, {100 * kPicosPerMilli});
  const SiftrSummary b = summarize_siftr(simulated(), enable, {50 * kPicosPerMilli});
  EXPECT_THROW(compare_siftr_traces(a, b), std::invalid_argument);
  EXPECT_NO_THROW(compare_siftr_traces(a, rebin_siftr(b, 100 * kPicosPerMilli)));
  const SiftrSummary c = summarize_siftr(simulated(), enable, {100 * kPicosPerMilli, SiftrTimeOrigin::session_start});
  EXPECT_THROW(compare_siftr_traces(a, c), std::invalid_argument);
}

TEST(MeasureSiftrTraceComparison, TextTable) {
  const tcp::SiftrEnableLine enable;
  const auto m = measured();
  const auto s = simulated();
  const std::string text = render_siftr_trace_comparison(compare_siftr_traces(m, enable, s, enable));
  EXPECT_EQ(
      text,
      "SIFTR trace, simulated vs measured (bins of 0.1 s from each flow's first record; per bin the mean of its records):\n"
      "  records  measured  simulated  error %\n"
      "  in       2         1          -50.0\n"
      "  out      3         5          +66.7\n"
      "flow 1: measured 10.1.0.1:32291 -> 10.1.0.2:5001, simulated 10.9.0.1:49152 -> 10.9.0.2:5001\n"
      "  records  measured  simulated  error %\n"
      "  in       1         1          +0.0\n"
      "  out      2         4          +100.0\n"
      "  time s  records       cwnd                   ssthresh                         srtt us                flight\n"
      "          meas     sim  meas   sim    error %  meas        sim         error %  meas     sim  error %  meas    sim   error %\n"
      "  0.0     2        3    11000  11000  +0.0     1073725440  1073725440  +0.0     900      967  +7.4     1000    1333  +33.3\n"
      "  0.1     1        1    20000  18000  -10.0    1073725440  1073725440  +0.0     600      600  +0.0     4000    3000  -25.0\n"
      "  0.2     -        1    -      19000  -        -           1073725440  -        -        700  -        -       3500  -\n"
      "flow 2: measured 10.1.0.1:58544 -> 10.1.0.2:5001, simulated 10.9.0.1:49153 -> 10.9.0.2:5001\n"
      "  records  measured  simulated  error %\n"
      "  in       1         0          -100.0\n"
      "  out      1         1          +0.0\n"
      "  time s  records       cwnd                   ssthresh                         srtt us                 flight\n"
      "          meas     sim  meas   sim    error %  meas        sim         error %  meas     sim   error %  meas    sim  error %\n"
      "  0.0     2        1    12000  10000  -16.7    1073725440  1073725440  +0.0     950      1000  +5.3     500     0    -100.0\n");
}

}  // namespace
}  // namespace netsim::measure
