#include "iperf3_json_parser.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "json_document.h"
#include "netsim/measure/measure_error.h"

namespace netsim::measure {
namespace {

using json::Value;

// Typed access to members; every failure names the member's dotted path and line.
class Members {
 public:
  explicit Members(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(int line, const std::string& message) const { throw MeasureError(file_, line, message); }

  const Value* optional(const Value& object, const std::string& path, const char* key, Value::Kind kind) const {
    const Value* v = object.find(key);
    if (v != nullptr && v->kind != kind) {
      fail(v->line, "\"" + path + "\" must be " + json::describe(kind) + ", not " + json::describe(v->kind));
    }
    return v;
  }

  const Value& required(const Value& object, const std::string& path, const char* key, Value::Kind kind) const {
    const Value* v = optional(object, path, key, kind);
    if (v == nullptr) fail(object.line, "missing \"" + path + "\" (not an iperf3 -J report, or truncated?)");
    return *v;
  }

  double number(const Value& object, const std::string& path, const char* key) const {
    return required(object, path, key, Value::Kind::number).number;
  }

  std::optional<double> optional_number(const Value& object, const std::string& path, const char* key) const {
    const Value* v = optional(object, path, key, Value::Kind::number);
    if (v == nullptr) return std::nullopt;
    return v->number;
  }

  std::uint64_t count(const Value& object, const std::string& path, const char* key) const {
    const Value& v = required(object, path, key, Value::Kind::number);
    if (v.number < 0 || v.number != std::floor(v.number) || v.number > 9e15) {
      fail(v.line, "\"" + path + "\" must be a whole number >= 0");
    }
    return static_cast<std::uint64_t>(v.number);
  }

 private:
  const std::string& file_;
};

// One half of the end-of-test summary ("end.sum_sent" or "end.sum_received").
struct Half {
  double mbps = 0;
  double bytes = 0;
  double end_s = 0;
};

Half read_half(const Members& m, const Value& sum, const std::string& path) {
  Half h;
  h.mbps = m.number(sum, path + ".bits_per_second", "bits_per_second") / 1e6;
  h.bytes = m.number(sum, path + ".bytes", "bytes");
  h.end_s = m.number(sum, path + ".end", "end") - m.number(sum, path + ".start", "start");
  return h;
}

MeasuredRun read_report(const Members& m, const Value& doc, const std::string& file) {
  if (doc.kind != Value::Kind::object) {
    m.fail(doc.line, "an iperf3 -J report is a JSON object, not " + json::describe(doc.kind));
  }
  if (const Value* error = m.optional(doc, "error", "error", Value::Kind::string)) {
    m.fail(error->line, "iperf3 reported an error: " + error->string);
  }
  MeasuredRun run;
  run.file = file;
  run.line = doc.line;
  run.tool = "iperf3-json";

  const Value& start = m.required(doc, "start", "start", Value::Kind::object);
  const Value& test_start = m.required(start, "start.test_start", "test_start", Value::Kind::object);
  const Value& protocol = m.required(test_start, "start.test_start.protocol", "protocol", Value::Kind::string);
  if (protocol.string != "TCP") m.fail(protocol.line, "only TCP tests are supported, not " + protocol.string);
  run.protocol = protocol.string;
  if (const auto bidir = m.optional_number(test_start, "start.test_start.bidir", "bidir"); bidir && *bidir != 0) {
    m.fail(test_start.find("bidir")->line, "bidirectional (--bidir) tests are not supported");
  }
  run.reverse = m.optional_number(test_start, "start.test_start.reverse", "reverse").value_or(0) != 0;
  const std::uint64_t streams = m.count(test_start, "start.test_start.num_streams", "num_streams");
  if (streams < 1) m.fail(test_start.find("num_streams")->line, "\"start.test_start.num_streams\" must be at least 1");
  run.streams = static_cast<int>(streams);
  if (start.find("connecting_to") != nullptr) {
    run.side = "client";
  } else if (start.find("accepted_connection") != nullptr) {
    run.side = "server";
  }
  const bool client = run.side != "server";
  const bool local_sender = client != run.reverse;

  const Value& end = m.required(doc, "end", "end", Value::Kind::object);
  const Value& sum_sent = m.required(end, "end.sum_sent", "sum_sent", Value::Kind::object);
  const Value& sum_received = m.required(end, "end.sum_received", "sum_received", Value::Kind::object);
  const Half sent = read_half(m, sum_sent, "end.sum_sent");
  const Half received = read_half(m, sum_received, "end.sum_received");
  // A server prints its report before the results exchange: the peer's half
  // is all zeros there (iperf3's quirk, see app/iperf3_report.h).
  const bool sender_known = local_sender || run.side == "client" || sent.bytes > 0;
  const bool receiver_known = !local_sender || run.side == "client" || received.bytes > 0;
  if (sender_known) {
    run.sender_mbps = sent.mbps;
    if (sum_sent.find("retransmits") != nullptr) {
      run.retransmits = m.count(sum_sent, "end.sum_sent.retransmits", "retransmits");
    }
  }
  if (receiver_known) run.receiver_mbps = received.mbps;
  run.throughput_mbps = receiver_known ? received.mbps : sent.mbps;
  run.duration_s = receiver_known ? received.end_s : sent.end_s;

  if (const Value* cpu = m.optional(end, "end.cpu_utilization_percent", "cpu_utilization_percent", Value::Kind::object)) {
    const double host = m.number(*cpu, "end.cpu_utilization_percent.host_total", "host_total");
    (local_sender ? run.cpu_sender_pct : run.cpu_receiver_pct) = host;
    // The server does not know the client's CPU when it prints (reported as 0).
    if (run.side == "client") {
      const double remote = m.number(*cpu, "end.cpu_utilization_percent.remote_total", "remote_total");
      (local_sender ? run.cpu_receiver_pct : run.cpu_sender_pct) = remote;
    }
  }
  if (const Value* cc = m.optional(end, "end.sender_tcp_congestion", "sender_tcp_congestion", Value::Kind::string)) {
    run.congestion = cc->string;
  }

  const Value& intervals = m.required(doc, "intervals", "intervals", Value::Kind::array);
  for (const Value& interval : intervals.items) {
    if (interval.kind != Value::Kind::object) {
      m.fail(interval.line, "\"intervals[]\" must hold objects, not " + json::describe(interval.kind));
    }
    const Value& sum = m.required(interval, "intervals[].sum", "sum", Value::Kind::object);
    const Value* omitted = m.optional(sum, "intervals[].sum.omitted", "omitted", Value::Kind::boolean);
    if (omitted != nullptr && omitted->boolean) continue;
    run.interval_mbps.push_back(m.number(sum, "intervals[].sum.bits_per_second", "bits_per_second") / 1e6);
  }
  return run;
}

}  // namespace

std::vector<MeasuredRun> parse_iperf3_json(std::string_view text, const std::string& file) {
  const Members members(file);
  std::vector<MeasuredRun> runs;
  for (const Value& doc : json::parse_documents(text, file)) runs.push_back(read_report(members, doc, file));
  return runs;
}

}  // namespace netsim::measure
