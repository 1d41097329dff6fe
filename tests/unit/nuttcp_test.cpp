// The nuttcp application model (`app: nuttcp`, docs/nuttcp.md): the report's
// exact lines in both layouts, the round trip through the project's nuttcp
// parser, %TX/%RX from a hand-built host CPU, the setsockopt buffer rule, the
// scenario keys and their errors, and simulated TCP (-N, -w, -i) and UDP
// (-u -R) tests formatted and parsed back.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "netsim/app/nuttcp_cpu.h"
#include "netsim/app/nuttcp_from_result.h"
#include "netsim/app/nuttcp_report.h"
#include "netsim/host/host_cpu.h"
#include "netsim/measure/measurement_file.h"
#include "netsim/scenario/measured_comparison.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/simulation.h"
#include "netsim/sim/tick_clock.h"
#include "netsim/sim/units.h"
#include "netsim/tcp/socket_buffer.h"

namespace netsim {
namespace {

using namespace netsim::literals;

constexpr std::uint64_t kMiB = 1024 * 1024;

// ---------------------------------------------------------------------------
// The report's lines (widths and precision of nuttcp's brief formats)

app::NuttcpReport tcp_report(int version) {
  app::NuttcpReport r;
  r.version = version;
  r.intervals.push_back({1.0, 0, 117047296, 3, 0, 0});
  r.total = {3.0, 0, 352000000, 3, 0, 0};
  r.tx_cpu_pct = 12;
  r.rx_cpu_pct = 29;
  r.rtt_ms = 0.39;
  return r;
}

TEST(NuttcpReport, TcpLinesOfVersion6) {
  const app::NuttcpReport r = tcp_report(6);
  EXPECT_EQ(app::nuttcp_interval_line(r, r.intervals[0]), "  111.6250 MB /   1.00 sec =  936.3784 Mbps     3 retrans");
  EXPECT_EQ(app::nuttcp_final_line(r),
            "  335.6934 MB /   3.00 sec =  938.6667 Mbps 12 %TX 29 %RX 3 retrans 0.39 msRTT");
  std::ostringstream out;
  app::write_nuttcp_text(out, r);
  EXPECT_EQ(out.str(),
            "  111.6250 MB /   1.00 sec =  936.3784 Mbps     3 retrans\n"
            "\n"
            "  335.6934 MB /   3.00 sec =  938.6667 Mbps 12 %TX 29 %RX 3 retrans 0.39 msRTT\n");
}

TEST(NuttcpReport, TcpLinesOfVersion5EndAfterTheCpu) {
  app::NuttcpReport r = tcp_report(5);
  EXPECT_EQ(app::nuttcp_interval_line(r, r.intervals[0]), "  111.6250 MB /   1.00 sec =  936.3784 Mbps");
  r.intervals.clear();
  r.total = {10.0, 0, 6709837824, 0, 0, 0};
  r.tx_cpu_pct = 99;
  r.rx_cpu_pct = 45;
  std::ostringstream out;
  app::write_nuttcp_text(out, r);
  EXPECT_EQ(out.str(), " 6399.0000 MB /  10.00 sec = 5367.8703 Mbps 99 %TX 45 %RX\n");  // no blank line without -i
}

TEST(NuttcpReport, UdpLines) {
  app::NuttcpReport r;
  r.udp = true;
  r.buffer_len = 8192;
  r.intervals.push_back({1.0, 0, 82400ull * 8192, 0, 82412, 82400});
  r.total = {3.0, 247204ull * 8192, (247204ull - 12) * 8192, 0, 0, 0};
  r.tx_cpu_pct = 99;
  r.rx_cpu_pct = 58;
  EXPECT_EQ(app::nuttcp_interval_line(r, r.intervals[0]),
            "  643.7500 MB /   1.00 sec = 5400.1664 Mbps    12 / 82412 ~drop/pkt  0.01 ~%loss");
  EXPECT_EQ(app::nuttcp_final_line(r),
            " 1931.1875 MB /   3.00 sec = 5399.9916 Mbps 99 %TX 58 %RX 12 / 247204 drop/pkt 0.00 %loss");
}

// ---------------------------------------------------------------------------
// %TX / %RX

constexpr SimTime ms(std::int64_t n) { return n * kPicosPerMilli; }

TEST(NuttcpCpu, TheProcessIsUserAndSystemTimeNotInterrupts) {
  Simulation sim{1};
  TickClock clock{sim, 1000, 500_us};
  HostCpu cpu(clock, HostCpuCosts{.tx_segment = 1_us});
  app::NuttcpCpuMeter meter;
  meter.set_cpu(&cpu);
  meter.start();
  cpu.run(ms(30), CpuContext::user);
  cpu.run(ms(20), CpuContext::system);
  cpu.run(ms(50), CpuContext::interrupt);
  sim.run_until(ms(200));
  meter.stop();
  ASSERT_TRUE(meter.cpu_time());
  EXPECT_EQ(*meter.cpu_time(), ms(50));
  EXPECT_EQ(app::nuttcp_process_cpu_time(cpu), ms(50));
  EXPECT_EQ(app::nuttcp_cpu_percent(*meter.cpu_time(), ms(200)), 25);
  EXPECT_DOUBLE_EQ(app::nuttcp_cpu_percent_exact(*meter.cpu_time(), ms(200)), 25.0);
  app::NuttcpCpuMeter none;
  none.start();
  none.stop();
  EXPECT_FALSE(none.cpu_time());  // no CPU model: nothing to report
}

TEST(NuttcpCpu, PercentIsTruncatedInCentiseconds) {
  // prusage: t and ms in centiseconds, (int)(t * 100 / ms).
  EXPECT_EQ(app::nuttcp_cpu_percent(ms(129) + 999_us, 1_s), 12);
  EXPECT_EQ(app::nuttcp_cpu_percent(ms(999), 1_s), 99);
  EXPECT_EQ(app::nuttcp_cpu_percent(ms(9), 1_s), 0);
  EXPECT_EQ(app::nuttcp_cpu_percent(ms(20), ms(5)), 200);  // ms 0 counts as 1 centisecond
}

// ---------------------------------------------------------------------------
// -w: setsockopt's buffer

TEST(NuttcpWindow, LinuxDoublesFreeBsdDoesNot) {
  using tcp::SocketBufferOs;
  EXPECT_EQ(tcp::setsockopt_buffer_bytes(SocketBufferOs::linux, true, 2 * kMiB), 4 * kMiB);
  EXPECT_EQ(tcp::setsockopt_buffer_bytes(SocketBufferOs::linux, false, 2 * kMiB), 4 * kMiB);
  EXPECT_EQ(tcp::setsockopt_buffer_bytes(SocketBufferOs::linux, true, 2 * kMiB, 212992), 2 * 212992u);
  EXPECT_EQ(tcp::setsockopt_buffer_bytes(SocketBufferOs::linux, true, 100), tcp::kLinuxSockMinSndbuf);
  EXPECT_EQ(tcp::setsockopt_buffer_bytes(SocketBufferOs::freebsd, true, 2 * kMiB), 2 * kMiB);
  EXPECT_EQ(tcp::linux_window_from_rcvbuf(4 * kMiB), 2 * kMiB);     // tcp_adv_win_scale 1
  EXPECT_EQ(tcp::linux_window_from_rcvbuf(4 * kMiB, 2), 3 * kMiB);  // 2 (before Linux 3.4)
}

// ---------------------------------------------------------------------------
// Scenario keys

std::string scenario(const std::string& flow, const std::string& duration = "2s") {
  return "name: nuttcp\n"
         "duration: " + duration + "\n"
         "hosts:\n"
         "  a: { address: 10.0.0.1, os: linux }\n"
         "  b: { address: 10.0.0.2 }\n"
         "links:\n"
         "  a-b: { ends: [a, b], rate: 1Gbps, delay: 100us }\n"
         "traffic:\n"
         "  n: " + flow + "\n";
}

// The error a nuttcp flow's keys give: at the flow's line (9), naming the field.
void expect_error(const std::string& flow, const std::string& field, const std::string& fragment) {
  SCOPED_TRACE(flow);
  try {
    parse_scenario_text(scenario(flow), "inline.yaml");
    ADD_FAILURE() << "loaded without error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.loc.file, "inline.yaml");
    EXPECT_EQ(e.loc.line, 9) << e.what();
    EXPECT_EQ(e.field, field) << e.what();
    EXPECT_NE(e.message.find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("inline.yaml:9:"), std::string::npos) << e.what();
  }
}

TEST(NuttcpScenario, Defaults) {
  const ScenarioSpec t = parse_scenario_text(scenario("{ type: tcp, app: nuttcp, from: a, to: b }"), "inline.yaml");
  ASSERT_EQ(t.tcp_flows.size(), 1u);
  EXPECT_EQ(t.tcp_flows[0].length, 65536u);
  EXPECT_EQ(t.tcp_flows[0].dst_port, 5101);
  EXPECT_EQ(t.tcp_flows[0].parallel, 1);
  EXPECT_EQ(t.tcp_flows[0].nuttcp.time, 10_s);
  EXPECT_EQ(t.tcp_flows[0].nuttcp.window, 0u);
  EXPECT_EQ(t.tcp_flows[0].nuttcp.version, 6);
  const ScenarioSpec u = parse_scenario_text(scenario("{ type: udp, app: nuttcp, from: a, to: b, time: 1s }"), "inline.yaml");
  ASSERT_EQ(u.udp_flows.size(), 1u);
  EXPECT_EQ(u.udp_flows[0].payload_bytes, 0);  // the builder's: the largest 2^n within the MSS
  ASSERT_TRUE(u.udp_flows[0].rate);
  EXPECT_EQ(*u.udp_flows[0].rate, DataRate::mbps(1));
  EXPECT_EQ(u.udp_flows[0].stop, std::optional<SimTime>(1_s));
  const ScenarioSpec w = parse_scenario_text(
      scenario("{ type: tcp, app: nuttcp, from: a, to: b, streams: 4, window: 2MiB, interval: 1s, time: 5s, version: 5 }"),
      "inline.yaml");
  EXPECT_EQ(w.tcp_flows[0].parallel, 4);
  EXPECT_EQ(w.tcp_flows[0].nuttcp.window, 2 * kMiB);
  EXPECT_EQ(w.tcp_flows[0].nuttcp.interval, 1_s);
  EXPECT_EQ(w.tcp_flows[0].nuttcp.time, 5_s);
  EXPECT_EQ(w.tcp_flows[0].nuttcp.version, 5);
}

TEST(NuttcpScenario, ErrorsNameFileLineAndField) {
  struct Case {
    const char* flow;
    const char* field;
    const char* fragment;
  };
  const Case cases[] = {
      {"{ type: tcp, app: iperf3, from: a, to: b, window: 1MiB }", "traffic.n.window", "only to flows with app: nuttcp"},
      {"{ type: tcp, app: nuttcp, from: a, to: b, version: 7 }", "traffic.n.version", ""},
      {"{ type: tcp, app: nuttcp, from: a, to: b, window: 0B }", "traffic.n.window", ""},
      {"{ type: tcp, app: nuttcp, from: a, to: b, parallel: 2 }", "traffic.n.parallel", "streams (-N)"},
      {"{ type: tcp, app: nuttcp, from: a, to: b, streams: 0 }", "traffic.n.streams", ""},
      {"{ type: tcp, app: nuttcp, from: a, to: b, time: 1s, interval: 2s }", "traffic.n.interval", "longer than time"},
      {"{ type: tcp, app: nuttcp, from: a, to: b, interval: 0s }", "traffic.n.interval", "greater than zero"},
      {"{ type: udp, app: nuttcp, from: a, to: b, size: 1000B }", "traffic.n.size", "length (-l)"},
      {"{ type: udp, app: nuttcp, from: a, to: b, stop: 1s }", "traffic.n.stop", "time (-T)"},
      {"{ type: udp, from: a, to: b, length: 1000B }", "traffic.n.length", "only to flows with app: nuttcp"},
      {"{ type: udp, app: nuttcp, from: a, to: b, streams: 2 }", "traffic.n.streams", "unknown key"},
      {"{ type: udp, app: nutcp, from: a, to: b }", "traffic.n.app", ""},
  };
  for (const Case& c : cases) expect_error(c.flow, c.field, c.fragment);
}

// ---------------------------------------------------------------------------
// Simulated tests, formatted and parsed back

results::RunResult run(const std::string& flow, const std::string& duration = "2s") {
  return run_scenario(parse_scenario_text(scenario(flow, duration), "inline.yaml"));
}

std::string text(const results::NuttcpResult& r) {
  std::ostringstream out;
  app::write_nuttcp_text(out, app::nuttcp_report_from_result(r));
  return out.str();
}

TEST(NuttcpRun, TcpStreamsIntervalsAndTheParsedReport) {
  const results::RunResult r = run("{ type: tcp, app: nuttcp, from: a, to: b, streams: 2, time: 1s, interval: 250ms }");
  ASSERT_EQ(r.nuttcp_size(), 1);
  const results::NuttcpResult& n = r.nuttcp(0);
  EXPECT_EQ(n.flow(), "n");
  EXPECT_EQ(n.protocol(), "tcp");
  ASSERT_EQ(n.streams_size(), 2);
  EXPECT_GE(n.intervals_size(), 4);
  EXPECT_GT(n.real_s(), 1.0);  // -T plus the drain of the send buffers
  EXPECT_LT(n.real_s(), 1.1);
  std::uint64_t per_stream = 0;
  for (const results::NuttcpStream& s : n.streams()) {
    per_stream += s.total().bytes_received();
    EXPECT_GT(s.total().bytes_received(), 0u);
    EXPECT_EQ(s.total().bytes_received(), s.total().bytes_sent());  // read to end of file
  }
  EXPECT_EQ(per_stream, n.total().bytes_received());
  const double mbps = static_cast<double>(n.total().bytes_received()) / n.real_s() / 125000.0;
  EXPECT_GT(mbps, 800.0);
  EXPECT_LT(mbps, 1000.0);
  const std::string report = text(n);
  const std::vector<measure::MeasuredRun> parsed = measure::parse_measurements(report, "simulated");
  ASSERT_EQ(parsed.size(), 1u) << report;
  ASSERT_TRUE(parsed[0].receiver_mbps);
  EXPECT_NEAR(*parsed[0].receiver_mbps, mbps, 1e-4);
  EXPECT_NEAR(parsed[0].duration_s, n.real_s(), 0.005);
  ASSERT_TRUE(parsed[0].retransmits);
  EXPECT_EQ(*parsed[0].retransmits, n.total().retransmits());
  EXPECT_EQ(parsed[0].interval_mbps.size(), static_cast<std::size_t>(n.intervals_size()));
  EXPECT_EQ(parsed[0].protocol, "TCP");
  ASSERT_TRUE(parsed[0].cpu_sender_pct);
  EXPECT_EQ(*parsed[0].cpu_sender_pct, 0.0);  // no CPU model on these hosts
}

TEST(NuttcpRun, WindowLimitsTheTransfer) {
  // -w 8k: the FreeBSD receiver's... here a Linux sender (doubled to 16 KiB)
  // and the Linux receiver's window of 8 KiB: at most 8 KiB per round trip.
  const results::RunResult r = run("{ type: tcp, app: nuttcp, from: a, to: b, time: 1s, window: 8KiB }");
  const results::NuttcpResult& n = r.nuttcp(0);
  const double mbps = static_cast<double>(n.total().bytes_received()) / n.real_s() / 125000.0;
  EXPECT_LT(mbps, 8192.0 * 8 / 200e-6 / 1e6);
  EXPECT_GT(mbps, 100.0);
}

TEST(NuttcpRun, UdpRateDropsAndTheParsedReport) {
  const results::RunResult r =
      run("{ type: udp, app: nuttcp, from: a, to: b, rate: 100Mbps, length: 1024B, time: 1s, interval: 250ms }");
  ASSERT_EQ(r.nuttcp_size(), 1);
  const results::NuttcpResult& n = r.nuttcp(0);
  EXPECT_EQ(n.protocol(), "udp");
  EXPECT_EQ(n.buffer_len(), 1024u);
  EXPECT_EQ(n.intervals_size(), 4);
  EXPECT_DOUBLE_EQ(n.real_s(), 1.0);
  const double mbps = static_cast<double>(n.total().bytes_received()) / n.real_s() / 125000.0;
  EXPECT_NEAR(mbps, 100.0, 0.1);
  EXPECT_EQ(n.total().bytes_sent(), n.total().bytes_received());  // nothing lost
  const std::string report = text(n);
  EXPECT_NE(report.find(" 0 / " + std::to_string(n.total().packets_sent()) + " drop/pkt 0.00 %loss"), std::string::npos)
      << report;
  const std::vector<measure::MeasuredRun> parsed = measure::parse_measurements(report, "simulated");
  ASSERT_EQ(parsed.size(), 1u) << report;
  EXPECT_EQ(parsed[0].protocol, "UDP");
  EXPECT_NEAR(*parsed[0].receiver_mbps, mbps, 1e-4);
  EXPECT_EQ(parsed[0].interval_mbps.size(), 4u);
}

TEST(NuttcpRun, UdpDefaultLengthIsAPowerOfTwoWithinTheMss) {
  const results::RunResult r = run("{ type: udp, app: nuttcp, from: a, to: b, time: 1s }");
  EXPECT_EQ(r.nuttcp(0).buffer_len(), 1024u);  // MSS 1448 at MTU 1500
  EXPECT_DOUBLE_EQ(r.nuttcp(0).rate_mbps(), 1.0);
}

TEST(NuttcpRun, CpuFromTheHostCpuModelAndTheMetrics) {
  std::string yaml = scenario("{ type: tcp, app: nuttcp, from: a, to: b, time: 1s }");
  yaml.replace(yaml.find("os: linux }"), 11, "os: linux, cpu: { copy_per_kib: 200ns, tx_packet: 2us } }");
  yaml.replace(yaml.find("10.0.0.2 }"), 10, "10.0.0.2, cpu: { copy_per_kib: 200ns, tcp_input: 1us } }");
  const results::RunResult r = run_scenario(parse_scenario_text(yaml, "inline.yaml"));
  const results::NuttcpResult& n = r.nuttcp(0);
  ASSERT_TRUE(n.has_tx_cpu_s());
  ASSERT_TRUE(n.has_rx_cpu_s());
  EXPECT_GT(n.tx_cpu_s(), 0.0);
  EXPECT_GT(n.rx_cpu_s(), 0.0);
  EXPECT_LT(n.tx_cpu_s(), n.real_s());
  MeasuredMetric k;
  k.metric = "nuttcp_tx_cpu_pct";
  EXPECT_DOUBLE_EQ(*metric_value(r, k), 100.0 * n.tx_cpu_s() / n.real_s());
  k.metric = "nuttcp_rx_cpu_pct";
  EXPECT_DOUBLE_EQ(*metric_value(r, k), 100.0 * n.rx_cpu_s() / n.real_s());
  const app::NuttcpReport report = app::nuttcp_report_from_result(n);
  EXPECT_NEAR(report.tx_cpu_pct, 100.0 * n.tx_cpu_s() / n.real_s(), 1.0);  // truncated in centiseconds
  EXPECT_GT(report.tx_cpu_pct, 0);
}

}  // namespace
}  // namespace netsim
