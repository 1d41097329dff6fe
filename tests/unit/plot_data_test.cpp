// The data and commands `netsim plot` hands to gnuplot, built without gnuplot.
#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

#include "netsim/plot/comparison_plot.h"
#include "netsim/plot/interval_plot.h"
#include "netsim/plot/tcp_trace_plot.h"

namespace netsim::plot {
namespace {

// One key, two cells (as a measured: block gives them), one metric.
MeasuredSpec rate_block() {
  MeasuredSpec m;
  m.keys = {{"rate", "traffic.f.rate"}};
  m.metrics = {MeasuredMetric{}};
  m.metrics[0].name = "value";
  for (auto [rate, value] : {std::pair{"100Mbps", 100.0}, {"200Mbps", 250.0}}) {
    MeasuredCell c;
    c.key_values = {rate};
    c.value = value;
    c.values = {value};
    m.cells.push_back(c);
  }
  return m;
}

results::RunSet comparison_runs() {
  results::RunSet set;
  // Two seeds of the 100 Mbit/s cell, none of the 200 Mbit/s one.
  for (auto [seed, mbps] : {std::tuple{1, 90.0}, {2, 110.0}}) {
    auto* r = set.add_runs();
    r->set_seed(seed);
    auto* o = r->add_overrides();
    o->set_key("traffic.f.rate");
    o->set_value("100Mbps");
    auto* f = r->add_flows();
    f->set_name("f");
    f->set_receiver_mbps(mbps);
  }
  return set;
}

TEST(PlotComparison, BarsOfEveryCellWithRangeAndBand) {
  const MeasuredSpec m = rate_block();
  const auto panels = comparison_panels("cmp", m, compare(comparison_runs(), m));
  ASSERT_EQ(panels.size(), 1u);
  const ComparisonPanel& p = panels[0];
  EXPECT_EQ(p.title, "cmp: receiver_mbps");
  EXPECT_EQ(p.y_label, "Mbit/s");
  ASSERT_EQ(p.bars.size(), 2u);
  EXPECT_EQ(p.bars[0].label, "rate=100Mbps");
  EXPECT_EQ(p.bars[0].sim_runs, 2u);
  EXPECT_DOUBLE_EQ(p.bars[0].sim_mean, 100.0);
  EXPECT_DOUBLE_EQ(p.bars[0].sim_min, 90.0);
  EXPECT_DOUBLE_EQ(p.bars[0].sim_max, 110.0);
  EXPECT_DOUBLE_EQ(p.bars[0].band_low, 85.0);
  EXPECT_DOUBLE_EQ(p.bars[0].band_high, 115.0);
  EXPECT_EQ(p.bars[1].sim_runs, 0u);
  EXPECT_DOUBLE_EQ(p.bars[1].measured, 250.0);
  // No run: no simulated bar; one measurement: no measured range.
  EXPECT_EQ(comparison_data(p),
            std::string("# index label sim_mean sim_min sim_max measured measured_min measured_max band_low band_high\n") +
            "0 \"rate=100Mbps\" 100 90 110 100 NaN NaN 85 " + gnuplot_number(100 * (1 + kMeasuredBand)) + "\n"
            "1 \"rate=200Mbps\" NaN NaN NaN 250 NaN NaN 212.5 287.5\n");
  const GnuplotPlot g = comparison_plot(panels);
  EXPECT_EQ(g.height, 700);
  ASSERT_EQ(g.data.size(), 1u);
  EXPECT_EQ(g.data[0].name, "panel1.dat");
  EXPECT_NE(g.commands.find("set title 'cmp: receiver_mbps'"), std::string::npos);
  EXPECT_NE(g.commands.find("simulated min-max"), std::string::npos);     // two seeds
  EXPECT_EQ(g.commands.find("measured min-max"), std::string::npos);      // measured once
  EXPECT_EQ(g.commands.find("multiplot"), std::string::npos);
}

TEST(PlotComparison, OnePanelPerMetricAndJainBandAtMostOne) {
  MeasuredSpec m;
  m.multi = true;
  m.keys = {{"hz", "hosts.s1.hz"}};
  MeasuredMetric s1;
  s1.name = "s1";
  s1.flow = "s1";
  MeasuredMetric jain;
  jain.name = "jain";
  jain.fairness = {"s1", "s2"};
  MeasuredMetric rtx;
  rtx.name = "rtx";
  rtx.metric = "retransmits";
  m.metrics = {s1, jain, rtx};
  MeasuredCell c;
  c.key_values = {"100"};
  c.values = {300, 0.95, 12};
  m.cells = {c};
  const auto panels = comparison_panels("t2", m, compare(results::RunSet{}, m));
  ASSERT_EQ(panels.size(), 3u);
  EXPECT_EQ(panels[0].title, "t2: s1 (receiver_mbps of s1)");
  EXPECT_EQ(panels[1].title, "t2: jain (Jain's index of s1, s2)");
  EXPECT_EQ(panels[1].y_label, "index");
  EXPECT_EQ(panels[2].y_label, "count");
  EXPECT_DOUBLE_EQ(panels[1].bars[0].band_high, 1.0);
  EXPECT_DOUBLE_EQ(panels[1].bars[0].band_low, 0.95 * 0.85);
  const GnuplotPlot g = comparison_plot(panels);
  EXPECT_EQ(g.data.size(), 3u);
  EXPECT_GT(g.height, 700);
  EXPECT_NE(g.commands.find("set multiplot layout 3,1"), std::string::npos);
}

TEST(PlotComparison, UnitsOfMetrics) {
  MeasuredMetric k;
  k.metric = "rtt_avg_ms";
  EXPECT_EQ(metric_unit(k), "ms");
  k.metric = "sender_mbps";
  EXPECT_EQ(metric_unit(k), "Mbit/s");
  k.metric = "rto_count";
  EXPECT_EQ(metric_unit(k), "count");
}

const char* kTrace =
    "flow,time_s,event,cwnd,ssthresh,snd_wnd,snd_una,snd_max,pipe,sacked_bytes,srtt_us,rttvar_us,rto_us,"
    "in_recovery,retransmits,recoveries,rtos\n"
    "f,0.001,ack,14480,4294967295,65535,1448,2896,0,0,1000,500,201000,0,0,0,0\n"
    "g,0.001,ack,2896,1073725440,65535,1448,2896,0,0,900,500,201000,0,0,0,0\n"
    "f,0.002,ack,20480,4294967295,65535,2896,8000,0,0,1100,500,201000,0,1,1,0\n"
    "f,0.003,ack,10240,10240,65535,2896,8000,0,0,1100,500,201000,1,3,1,0\n"
    "f,0.004,ack,10240,10240,65535,2896,8000,0,0,1100,500,201000,1,3,1,0\n"
    "f,0.300,rto,1448,5120,65535,2896,8000,0,0,1100,500,402000,0,4,1,1\n";

TEST(PlotTrace, FlowsAndLossMarkers) {
  std::istringstream in(kTrace);
  const auto flows = read_tcp_trace(in, "t.csv");
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].name, "f");
  EXPECT_EQ(flows[0].points.size(), 5u);
  EXPECT_EQ(flows[1].name, "g");
  const auto losses = trace_losses(flows[0]);
  ASSERT_EQ(losses.size(), 3u);
  EXPECT_EQ(losses[0].kind, LossKind::fast_retransmit);
  EXPECT_DOUBLE_EQ(losses[0].time_s, 0.002);
  EXPECT_DOUBLE_EQ(losses[0].cwnd_kb, 20.0);
  EXPECT_EQ(losses[1].kind, LossKind::fast_retransmit);
  EXPECT_DOUBLE_EQ(losses[1].time_s, 0.003);
  // The RTO's retransmission counts as the RTO, not as a fast retransmit too.
  EXPECT_EQ(losses[2].kind, LossKind::rto);
  EXPECT_DOUBLE_EQ(losses[2].time_s, 0.3);
  EXPECT_TRUE(trace_losses(flows[1]).empty());
}

TEST(PlotTrace, UnsetSsthreshIsAGapAndMarkersHaveTheirOwnFiles) {
  std::istringstream in(kTrace);
  const GnuplotPlot g = tcp_trace_plot(read_tcp_trace(in, "t.csv"), "trace");
  // f: samples, fast retransmits, RTOs; g: samples only (no loss, no ssthresh).
  ASSERT_EQ(g.data.size(), 4u);
  EXPECT_EQ(g.data[0].name, "flow1.dat");
  EXPECT_NE(g.data[0].content.find("0.001 14.140625 NaN 1\n"), std::string::npos);
  EXPECT_NE(g.data[0].content.find("0.003 10 10 1.1\n"), std::string::npos);
  EXPECT_EQ(g.data[1].name, "flow1-retransmit.dat");
  EXPECT_EQ(g.data[2].name, "flow1-rto.dat");
  EXPECT_EQ(g.data[2].content, "# time_s cwnd_kb\n0.3 1.4140625\n");
  EXPECT_EQ(g.data[3].name, "flow2.dat");
  EXPECT_NE(g.commands.find("'f ssthresh'"), std::string::npos);
  EXPECT_EQ(g.commands.find("'g ssthresh'"), std::string::npos);
  EXPECT_NE(g.commands.find("axes x1y2"), std::string::npos);
}

TEST(PlotTrace, ErrorsNameFileAndLine) {
  std::istringstream no_column("flow,time_s,event\nf,0,ack\n");
  EXPECT_THROW(
      {
        try {
          read_tcp_trace(no_column, "x.csv");
        } catch (const TraceReadError& e) {
          EXPECT_STREQ(e.what(), "x.csv:1: no column 'cwnd' (not a --trace-tcp CSV)");
          throw;
        }
      },
      TraceReadError);
  std::string bad = kTrace;
  bad += "f,0.4,ack,many,1,1,1,1,1,1,1,1,1,0,4,1,1\n";
  std::istringstream in(bad);
  try {
    read_tcp_trace(in, "x.csv");
    FAIL() << "no error";
  } catch (const TraceReadError& e) {
    EXPECT_STREQ(e.what(), "x.csv:8: column 'cwnd': not an unsigned integer: 'many'");
  }
}

TEST(PlotTrace, ThinningKeepsEveryPeakAndTrough) {
  TcpTraceFlow f;
  f.name = "f";
  for (int i = 0; i < 10000; ++i) {
    TcpTracePoint p;
    p.time_s = i * 0.001;
    p.cwnd = static_cast<std::uint64_t>(1000 + (i % 100) * 10);  // a sawtooth of period 100 samples
    f.points.push_back(p);
  }
  const auto thin = thinned_trace(f, 50);  // 200 samples per slice: two teeth each
  EXPECT_LE(thin.size(), 100u);
  for (std::size_t i = 1; i < thin.size(); ++i) EXPECT_LT(thin[i - 1].time_s, thin[i].time_s);
  for (std::size_t i = 0; i < thin.size(); i += 2) {
    EXPECT_EQ(std::min(thin[i].cwnd, thin[i + 1].cwnd), 1000u);
    EXPECT_EQ(std::max(thin[i].cwnd, thin[i + 1].cwnd), 1990u);
  }
}

results::RunSet interval_runs() {
  results::RunSet set;
  for (auto [every, seed] : {std::tuple{"50", 1}, {"100", 1}}) {
    auto* r = set.add_runs();
    r->set_scenario_name("s");
    r->set_seed(seed);
    for (auto [key, value] : {std::pair{"duration", "1s"}, {"filters.drop.every", every}}) {
      auto* o = r->add_overrides();
      o->set_key(key);
      o->set_value(value);
    }
    for (const char* flow : {"a", "b"}) {
      for (int k = 0; k < 2; ++k) {
        auto* s = r->add_intervals();
        s->set_flow(flow);
        s->set_start_ps(k * 500'000'000'000LL);
        s->set_end_ps((k + 1) * 500'000'000'000LL);
        s->set_mbps(100.0 * (k + 1));
      }
    }
  }
  return set;
}

TEST(PlotIntervals, OneSeriesPerRunAndFlowLabelledByWhatVaries) {
  const results::RunSet set = interval_runs();
  EXPECT_EQ(run_label(set, 0), "every=50");
  const auto series = interval_series(set);
  ASSERT_EQ(series.size(), 4u);
  EXPECT_EQ(series[0].label, "a, every=50");
  EXPECT_EQ(series[1].label, "b, every=50");
  EXPECT_EQ(series[3].label, "b, every=100");
  ASSERT_EQ(series[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(series[0].points[1].start_s, 0.5);
  EXPECT_DOUBLE_EQ(series[0].points[1].mbps, 200.0);
  const GnuplotPlot g = interval_plot(series, "s: throughput per interval");
  ASSERT_EQ(g.data.size(), 4u);
  EXPECT_EQ(g.data[0].content, "# time_s mbps\n0 100\n0.5 100\n0.5 200\n1 200\n");
  EXPECT_NE(g.commands.find("title 'b, every=100'"), std::string::npos);
}

TEST(PlotIntervals, SingleRunIsLabelledByFlowAndOnlySeedsDiffer) {
  results::RunSet one;
  *one.add_runs() = interval_runs().runs(0);
  EXPECT_EQ(run_label(one, 0), "");
  EXPECT_EQ(interval_series(one)[0].label, "a");
  results::RunSet seeds = one;
  *seeds.add_runs() = one.runs(0);
  seeds.mutable_runs(1)->set_seed(2);
  EXPECT_EQ(run_label(seeds, 1), "seed=2");
}

TEST(PlotGnuplot, FormatsAndQuoting) {
  PlotFormat f{};
  EXPECT_TRUE(plot_format_of("a/b.PNG", f));
  EXPECT_EQ(f, PlotFormat::png);
  EXPECT_TRUE(plot_format_of("b.svg", f));
  EXPECT_EQ(f, PlotFormat::svg);
  EXPECT_FALSE(plot_format_of("b.pdf", f));
  EXPECT_FALSE(plot_format_of("dir.svg/b", f));
  EXPECT_EQ(gnuplot_quoted("it's"), "'it''s'");
  EXPECT_EQ(gnuplot_data_string("a \"b\""), "\"a 'b'\"");
  EXPECT_EQ(gnuplot_terminal(PlotFormat::png, false, 700), "set terminal png size 1200,700 noenhanced");
  EXPECT_NE(gnuplot_terminal(PlotFormat::svg, true, 900).find("svg size 1200,900 dynamic"), std::string::npos);
}

}  // namespace
}  // namespace netsim::plot
