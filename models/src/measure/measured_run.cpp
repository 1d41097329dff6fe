#include "netsim/measure/measured_run.h"

#include <algorithm>
#include <stdexcept>

namespace netsim::measure {

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {"receiver_mbps",   "sender_mbps",       "throughput_mbps",
                                                 "retransmits",     "cpu_sender_pct",    "cpu_receiver_pct",
                                                 "rto_count",       "recovery_episodes", "receiver_delayed_acks",
                                                 "sender_tx_drops", "receiver_rx_drops", "receiver_pause_frames",
                                                 "rtt_min_ms",      "rtt_avg_ms",        "rtt_max_ms",
                                                 "rtt_stddev_ms",   "siftr_records_in",  "siftr_records_out",
                                                 "siftr_records",   "siftr_log_bytes",   "siftr_packets",
                                                 "siftr_skipped"};
  return names;
}

bool is_metric(std::string_view name) {
  const auto& names = metric_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

namespace {
std::optional<double> as_double(const std::optional<std::uint64_t>& count) {
  if (!count) return std::nullopt;
  return static_cast<double>(*count);
}
}  // namespace

std::optional<double> metric_value(const MeasuredRun& run, std::string_view name) {
  if (name == "receiver_mbps") return run.receiver_mbps;
  if (name == "sender_mbps") return run.sender_mbps;
  if (name == "throughput_mbps") return run.has_rates ? std::optional<double>(run.throughput_mbps) : std::nullopt;
  if (name == "retransmits") return as_double(run.retransmits);
  if (name == "rto_count") return as_double(run.rto_count);
  if (name == "recovery_episodes") return as_double(run.recovery_episodes);
  if (name == "receiver_delayed_acks") return as_double(run.receiver_delayed_acks);
  if (name == "sender_tx_drops") return as_double(run.tx_drops);
  if (name == "receiver_rx_drops") return as_double(run.rx_drops);
  if (name == "receiver_pause_frames") return as_double(run.pause_frames_sent);
  if (name == "cpu_sender_pct") return run.cpu_sender_pct;
  if (name == "cpu_receiver_pct") return run.cpu_receiver_pct;
  if (name == "rtt_min_ms") return run.rtt_min_ms;
  if (name == "rtt_avg_ms") return run.rtt_avg_ms;
  if (name == "rtt_max_ms") return run.rtt_max_ms;
  if (name == "rtt_stddev_ms") return run.rtt_stddev_ms;
  if (name == "siftr_records_in") return as_double(run.siftr_records_in);
  if (name == "siftr_records_out") return as_double(run.siftr_records_out);
  if (name == "siftr_records") {
    if (!run.siftr_records_in || !run.siftr_records_out) return std::nullopt;
    return static_cast<double>(*run.siftr_records_in + *run.siftr_records_out);
  }
  if (name == "siftr_log_bytes") return as_double(run.siftr_log_bytes);
  if (name == "siftr_packets") return as_double(run.siftr_packets);
  if (name == "siftr_skipped") return as_double(run.siftr_skipped);
  throw std::invalid_argument("unknown metric '" + std::string(name) + "'");
}

}  // namespace netsim::measure
