// SIFTR records reduced to per-flow series: bins from each flow's or the
// session's first record, means per bin, srtt in microseconds for both log
// versions, rebinning; hand-built records and the 1.2.4 sample.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "measure_test_support.h"
#include "netsim/measure/siftr_flow_series.h"
#include "netsim/measure/siftr_log.h"

namespace netsim::measure {
namespace {

using tcp::SiftrDirection;
using tcp::SiftrRecord;

constexpr std::int64_t kT0 = 1685191814;  // seconds

tcp::SiftrEnableLine enable_130() { return tcp::SiftrEnableLine{}; }

tcp::SiftrEnableLine enable_124(std::uint32_t hz) {
  tcp::SiftrEnableLine e;
  e.siftrver = "1.2.4";
  e.hz = hz;
  e.tcp_rtt_scale = 32;
  return e;
}

// A record of the flow 10.0.0.1:lport -> 10.0.0.2:5001 at kT0 + us.
SiftrRecord rec(SiftrDirection dir, std::int64_t us, std::uint16_t lport, std::uint32_t cwnd, std::uint32_t ssthresh,
                std::uint32_t srtt, std::uint32_t flight) {
  SiftrRecord r;
  r.direction = dir;
  r.tv_sec = kT0 + us / 1'000'000;
  r.tv_usec = static_cast<std::int32_t>(us % 1'000'000);
  r.laddr.bytes = {10, 0, 0, 1};
  r.faddr.bytes = {10, 0, 0, 2};
  r.lport = lport;
  r.fport = 5001;
  r.snd_cwnd = cwnd;
  r.snd_ssthresh = ssthresh;
  r.srtt = srtt;
  r.sent_inflight_bytes = flight;
  return r;
}

constexpr auto kIn = SiftrDirection::in;
constexpr auto kOut = SiftrDirection::out;

std::vector<SiftrRecord> two_flows() {
  return {
      rec(kOut, 0, 1000, 10000, 50000, 1000, 0),         rec(kIn, 40'000, 1000, 12000, 50000, 900, 3000),
      rec(kOut, 99'999, 1000, 14000, 50000, 800, 6000),   // still bin 0
      rec(kOut, 250'000, 2000, 20000, 30000, 500, 1000),  // the second flow starts
      rec(kIn, 260'000, 1000, 16000, 40000, 700, 2000),   // flow 1, bin 2
      rec(kIn, 300'000, 2000, 22000, 30000, 600, 2000),  rec(kOut, 420'000, 2000, 24000, 30000, 700, 3000),
  };
}

TEST(MeasureSiftrSeries, BinsFromEachFlowsFirstRecord) {
  const auto records = two_flows();
  const SiftrSummary s = summarize_siftr(records, enable_130());
  EXPECT_EQ(s.options.bin_width, 100 * kPicosPerMilli);
  EXPECT_EQ(s.records_in, 3u);
  EXPECT_EQ(s.records_out, 4u);
  ASSERT_EQ(s.flows.size(), 2u);

  const SiftrFlowSeries& a = s.flows[0];
  EXPECT_EQ(a.flow.lport, 1000);
  EXPECT_EQ(a.flow.fport, 5001);
  EXPECT_EQ(a.flow.laddr, records[0].laddr);
  EXPECT_EQ(a.records_in, 2u);
  EXPECT_EQ(a.records_out, 2u);
  EXPECT_EQ(a.first_us, kT0 * 1'000'000);
  EXPECT_EQ(a.last_us, kT0 * 1'000'000 + 260'000);
  EXPECT_EQ(a.origin_us, a.first_us);
  ASSERT_EQ(a.bins.size(), 2u);
  EXPECT_EQ(a.bins[0].index, 0);
  EXPECT_EQ(a.bins[0].records_in, 1u);
  EXPECT_EQ(a.bins[0].records_out, 2u);
  EXPECT_DOUBLE_EQ(a.bins[0].cwnd(), 12000);
  EXPECT_DOUBLE_EQ(a.bins[0].ssthresh(), 50000);
  EXPECT_DOUBLE_EQ(a.bins[0].srtt_us(), 900);
  EXPECT_DOUBLE_EQ(a.bins[0].flight(), 3000);
  EXPECT_EQ(a.bins[1].index, 2);  // no records in bin 1: not there
  EXPECT_EQ(a.bins[1].records(), 1u);
  EXPECT_DOUBLE_EQ(a.bins[1].cwnd(), 16000);

  // The second flow's bin 0 starts at its own first record (250 ms).
  const SiftrFlowSeries& b = s.flows[1];
  EXPECT_EQ(b.flow.lport, 2000);
  EXPECT_EQ(b.origin_us, kT0 * 1'000'000 + 250'000);
  ASSERT_EQ(b.bins.size(), 2u);
  EXPECT_EQ(b.bins[0].index, 0);
  EXPECT_EQ(b.bins[0].records(), 2u);
  EXPECT_DOUBLE_EQ(b.bins[0].cwnd(), 21000);
  EXPECT_DOUBLE_EQ(b.bins[0].srtt_us(), 550);
  EXPECT_EQ(b.bins[1].index, 1);
  EXPECT_DOUBLE_EQ(b.bins[1].flight(), 3000);
}

TEST(MeasureSiftrSeries, BinsFromTheSessionsFirstRecord) {
  const auto records = two_flows();
  const SiftrSummary s = summarize_siftr(records, enable_130(), {50 * kPicosPerMilli, SiftrTimeOrigin::session_start});
  ASSERT_EQ(s.flows.size(), 2u);
  const SiftrFlowSeries& b = s.flows[1];
  EXPECT_EQ(b.origin_us, kT0 * 1'000'000);
  ASSERT_EQ(b.bins.size(), 3u);
  EXPECT_EQ(b.bins[0].index, 5);  // 250 ms
  EXPECT_EQ(b.bins[1].index, 6);  // 300 ms
  EXPECT_EQ(b.bins[2].index, 8);  // 420 ms
  EXPECT_EQ(s.flows[0].bins.front().index, 0);
  EXPECT_EQ(s.flows[0].bins.back().index, 5);  // 260 ms
}

TEST(MeasureSiftrSeries, RecordsOutOfOrderGoBeforeTheOrigin) {
  // Two CPUs' records reach the log's queue slightly out of time order.
  const std::vector<SiftrRecord> records = {rec(kOut, 1'000, 1000, 10, 10, 10, 10),
                                            rec(kIn, 500, 1000, 20, 20, 20, 20)};
  const SiftrSummary s = summarize_siftr(records, enable_130(), {1 * kPicosPerMilli});
  ASSERT_EQ(s.flows.size(), 1u);
  ASSERT_EQ(s.flows[0].bins.size(), 2u);
  EXPECT_EQ(s.flows[0].bins[0].index, -1);
  EXPECT_EQ(s.flows[0].bins[1].index, 0);
  EXPECT_EQ(s.flows[0].first_us, kT0 * 1'000'000 + 500);
}

TEST(MeasureSiftrSeries, SrttInMicrosecondsForBothVersions) {
  // 1.2.4 logs t_srtt, ticks << 5: at hz 1000, 28 is 0.875 ticks = 875 us.
  const std::vector<SiftrRecord> r = {rec(kOut, 0, 1, 0, 0, 28, 0), rec(kOut, 10, 1, 0, 0, 36, 0)};
  EXPECT_DOUBLE_EQ(summarize_siftr(r, enable_124(1000)).flows[0].bins[0].srtt_us(), 1000);
  // At hz 100 a tick is 10 ms: 32 is one tick.
  EXPECT_DOUBLE_EQ(summarize_siftr(r, enable_124(100)).flows[0].bins[0].srtt_us(), 10000);
  // 1.3.0 logs microseconds.
  EXPECT_DOUBLE_EQ(summarize_siftr(r, enable_130()).flows[0].bins[0].srtt_us(), 32);
  EXPECT_DOUBLE_EQ(siftr_srtt_us_per_unit(enable_124(1000)), 1000.0 / 32);

  // The hand-written 1.2.4 log: its IPv4 flow's first two records (srtt 32
  // and 28) are 1 ms apart, the third (25) 14 ms later.
  const auto sessions = load_siftr_log(test_support::kData + "siftr-1.2.4.log");
  ASSERT_EQ(sessions.size(), 1u);
  const SiftrSummary s = summarize_siftr(sessions[0], {10 * kPicosPerMilli});
  ASSERT_EQ(s.flows.size(), 2u);
  ASSERT_EQ(s.flows[0].bins.size(), 2u);
  EXPECT_DOUBLE_EQ(s.flows[0].bins[0].srtt_us(), (1000 + 875) / 2.0);
  EXPECT_DOUBLE_EQ(s.flows[0].bins[1].srtt_us(), 781.25);
  EXPECT_EQ(s.flows[1].flow.laddr.family, IpVersion::v6);
}

TEST(MeasureSiftrSeries, BadOptionsAndEnableLines) {
  const auto records = two_flows();
  EXPECT_THROW(summarize_siftr(records, enable_130(), {0}), std::invalid_argument);
  EXPECT_THROW(summarize_siftr(records, enable_130(), {1500 * kPicosPerNano}), std::invalid_argument);
  EXPECT_THROW(summarize_siftr(records, enable_124(0)), std::invalid_argument);
  tcp::SiftrEnableLine other;
  other.siftrver = "1.1.0";
  EXPECT_THROW(summarize_siftr(records, other), std::invalid_argument);
}

TEST(MeasureSiftrSeries, RebinMergesWholeBins) {
  const auto records = two_flows();
  const SiftrSummary fine = summarize_siftr(records, enable_130(), {50 * kPicosPerMilli});
  const SiftrSummary coarse = rebin_siftr(fine, 200 * kPicosPerMilli);
  const SiftrSummary direct = summarize_siftr(records, enable_130(), {200 * kPicosPerMilli});
  EXPECT_EQ(coarse.options.bin_width, 200 * kPicosPerMilli);
  ASSERT_EQ(coarse.flows.size(), direct.flows.size());
  for (std::size_t f = 0; f < coarse.flows.size(); ++f) {
    ASSERT_EQ(coarse.flows[f].bins.size(), direct.flows[f].bins.size());
    for (std::size_t i = 0; i < coarse.flows[f].bins.size(); ++i) {
      const SiftrBin& x = coarse.flows[f].bins[i];
      const SiftrBin& y = direct.flows[f].bins[i];
      EXPECT_EQ(x.index, y.index);
      EXPECT_EQ(x.records_in, y.records_in);
      EXPECT_EQ(x.records_out, y.records_out);
      EXPECT_DOUBLE_EQ(x.cwnd_sum, y.cwnd_sum);
      EXPECT_DOUBLE_EQ(x.srtt_us_sum, y.srtt_us_sum);
    }
  }
  EXPECT_THROW(rebin_siftr(fine, 120 * kPicosPerMilli), std::invalid_argument);
}

TEST(MeasureSiftrSeries, BuilderRecordByRecord) {
  const auto records = two_flows();
  SiftrSummaryBuilder b(enable_130());
  for (const SiftrRecord& r : records) b.add(r);
  const SiftrSummary s = std::move(b).finish();
  const SiftrSummary t = summarize_siftr(records, enable_130());
  ASSERT_EQ(s.flows.size(), t.flows.size());
  EXPECT_EQ(s.flows[1].bins.size(), t.flows[1].bins.size());
  EXPECT_TRUE(summarize_siftr(std::vector<SiftrRecord>{}, enable_130()).flows.empty());
}

}  // namespace
}  // namespace netsim::measure
