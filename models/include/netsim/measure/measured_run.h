// One measured test run, as read from a measurement tool's report (iperf3,
// iperf2, nuttcp), from one snapshot of a TCP stack's counters (Linux
// nstat, FreeBSD netstat -s -p tcp), from one ping's statistics (FreeBSD
// or Linux ping) or from one session of a FreeBSD SIFTR log, reduced to the
// figures calibration compares with a simulation.
//
// Units: rates in Mbit/s = 1e6 bit/s (iperf and nuttcp print 1000-based bit
// rates); CPU in percent of one host as the tool reports it; durations in
// seconds; round-trip times in milliseconds, as ping prints them. A figure
// the report does not carry is left empty, never guessed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netsim::measure {

struct SiftrSummary;  // siftr_flow_series.h

struct MeasuredRun {
  std::string file;  // as given to the parser
  int line = 0;      // the line where this run's report starts (1-based)
  std::string tool;  // "iperf3-json" | "iperf3-text" | "iperf2" | "nuttcp" | "nstat" | "netstat-tcp" |
                     // "netstat-if" | "proc-net-dev" | "ethtool-s" | "ping"
  // Whose report it is: "client", "server", or "" when the report does not say.
  std::string side;
  std::string protocol = "TCP";  // "TCP" | "UDP" | "ICMP" (ping)
  bool reverse = false;          // iperf3 -R: the server sent the data

  // The headline rate of the report: the data receiver's figure if it has one,
  // else the data sender's, else (an iperf2 report without a banner, which
  // does not say which end printed it) the one rate it prints.
  double throughput_mbps = 0;
  // The same split by the end that measured it, where the report tells.
  std::optional<double> sender_mbps;    // bytes written / the sender's duration
  std::optional<double> receiver_mbps;  // bytes read / the receiver's duration
  std::optional<std::uint64_t> retransmits;  // TCP segments retransmitted by the sender(s)
  std::optional<double> cpu_sender_pct;      // CPU use of the data-sending host
  std::optional<double> cpu_receiver_pct;    // CPU use of the data-receiving host
  // Counters of the hosts' TCP stacks (counter snapshots only; host-wide, so
  // they include the control connection and any other TCP traffic):
  std::optional<std::uint64_t> rto_count;              // the sender's retransmission timeouts
  std::optional<std::uint64_t> recovery_episodes;      // the sender's SACK recovery episodes
  std::optional<std::uint64_t> receiver_delayed_acks;  // ACKs sent by the receiver's delayed-ACK timer
  // The data sender's host interface (netstat -I IFACE -d, two snapshots):
  // frames its output queue dropped during the run.
  std::optional<std::uint64_t> tx_drops;
  // The data receiver's host interface (Linux /proc/net/dev, two snapshots):
  // frames dropped on input (rx_dropped + rx_missed_errors) during the run.
  std::optional<std::uint64_t> rx_drops;
  // The data receiver's NIC (Linux ethtool -S, two snapshots): 802.3x PAUSE
  // frames it sent its link partner during the run (XOFF and XON).
  std::optional<std::uint64_t> pause_frames_sent;
  // A ping's statistics (ping only): echo requests sent, replies received
  // (duplicates not counted), and the replies' round-trip times: min, mean,
  // max and population standard deviation (FreeBSD's stddev, Linux's mdev).
  // ping prints no times when no reply came back; they are then empty.
  std::optional<std::uint64_t> ping_transmitted;
  std::optional<std::uint64_t> ping_received;
  std::optional<double> rtt_min_ms;
  std::optional<double> rtt_avg_ms;
  std::optional<double> rtt_max_ms;
  std::optional<double> rtt_stddev_ms;
  // A SIFTR session (siftr only): its data lines per direction, the bytes
  // the log grew by, and from its disable line the TCP packets the hooks saw
  // (logged and skipped) and skipped; a cut log has no disable line, so no
  // packet or skip counts (siftr_cut). siftr_series holds its per-flow
  // series in the default bins (SiftrSeriesOptions) for the trace comparison.
  std::optional<std::uint64_t> siftr_records_in;
  std::optional<std::uint64_t> siftr_records_out;
  std::optional<std::uint64_t> siftr_log_bytes;
  std::optional<std::uint64_t> siftr_packets;
  std::optional<std::uint64_t> siftr_skipped;
  bool siftr_cut = false;
  std::shared_ptr<const SiftrSummary> siftr_series;
  // False for a counter snapshot, a ping or a SIFTR log, which carry no rate:
  // throughput_mbps is then not a metric of the run.
  bool has_rates = true;

  double duration_s = 0;  // the summary's interval (0 - end); SIFTR: enable to disable line
                          // (to the last record when cut)
  int streams = 1;        // parallel connections (iperf -P, nuttcp -N; SIFTR: flows logged)
  // Per reporting interval, summed over the streams, in report order, omitted
  // (-O) intervals and per-stream interval lines left out.
  std::vector<double> interval_mbps;
  std::string congestion;  // the sender's congestion control, if reported ("" otherwise)
};

// The figures a run can give, by name: receiver_mbps, sender_mbps,
// throughput_mbps, retransmits, cpu_sender_pct, cpu_receiver_pct, rto_count,
// recovery_episodes, receiver_delayed_acks, sender_tx_drops,
// receiver_rx_drops, receiver_pause_frames, rtt_min_ms, rtt_avg_ms,
// rtt_max_ms, rtt_stddev_ms, siftr_records_in, siftr_records_out,
// siftr_records (in + out), siftr_log_bytes, siftr_packets, siftr_skipped.
const std::vector<std::string>& metric_names();
bool is_metric(std::string_view name);
// The value of metric `name` in `run`, or empty if the run does not carry it.
// Throws std::invalid_argument for a name that is not a metric.
std::optional<double> metric_value(const MeasuredRun& run, std::string_view name);

}  // namespace netsim::measure
