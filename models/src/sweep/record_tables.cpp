#include "netsim/sweep/record_tables.h"

#include <google/protobuf/util/json_util.h>

#include <istream>
#include <ostream>
#include <set>
#include <stdexcept>

#include "netsim/results/result_writers.h"

namespace netsim::sweep {
namespace {

std::string seconds(std::int64_t ps) { return format_double_roundtrip(static_cast<double>(ps) / 1e12); }

std::vector<std::string> flow_fields(const results::RunResult& r, const results::FlowStats* f) {
  std::vector<std::string> v{r.scenario_name()};
  if (f == nullptr) {
    v.resize(std::size(kRecordFlowColumns) - 3);  // empty flow columns
  } else {
    auto u = [](std::uint64_t x) { return std::to_string(x); };
    auto d = [](double x) { return format_double_roundtrip(x); };
    v.insert(v.end(), {f->name(), f->kind(), f->src(), f->dst(), u(f->packets_sent()), u(f->bytes_sent()),
                       u(f->packets_received()), u(f->bytes_received()), u(f->packets_lost()), d(f->loss_pct()),
                       d(f->sender_mbps()), d(f->receiver_mbps()), u(f->retransmits()), u(f->rto_count()),
                       u(f->recovery_episodes()), u(f->final_cwnd()), u(f->srtt_us()),
                       // Empty for a host without a CPU model.
                       f->has_sender_cpu_pct() ? d(f->sender_cpu_pct()) : "",
                       f->has_receiver_cpu_pct() ? d(f->receiver_cpu_pct()) : ""});
  }
  v.insert(v.end(), {seconds(r.sim_time_ps()), std::to_string(r.events()), format_double_roundtrip(r.wall_time_s())});
  return v;
}

}  // namespace

void write_records_jsonl(std::ostream& out, const std::vector<results::SweepRecord>& records) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = true;
  opts.add_whitespace = false;
  for (const auto& r : records) {
    std::string line;
    const auto status = google::protobuf::util::MessageToJsonString(r, &line, opts);
    if (!status.ok()) throw std::runtime_error("cannot convert the record of run " + r.key() + " to JSON");
    out << line << '\n';
  }
}

std::vector<results::SweepRecord> read_records_jsonl(std::istream& in) {
  std::vector<results::SweepRecord> records;
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    results::SweepRecord r;
    if (!google::protobuf::util::JsonStringToMessage(line, &r).ok()) {
      throw std::runtime_error("JSON Lines line " + std::to_string(n) + ": not a sweep record");
    }
    records.push_back(std::move(r));
  }
  return records;
}

void write_records_csv(std::ostream& out, const std::vector<results::SweepRecord>& records) {
  std::set<std::string> keys;
  for (const auto& r : records) {
    for (const auto& p : r.params()) {
      if (p.key() != "seed") keys.insert(p.key());
    }
  }
  std::vector<std::string> header{"key", "run_index", "status"};
  header.insert(header.end(), keys.begin(), keys.end());
  header.push_back("seed");
  header.insert(header.end(), std::begin(kRecordFlowColumns), std::end(kRecordFlowColumns));
  header.push_back("error");
  write_csv_record(out, header);

  for (const auto& r : records) {
    std::vector<std::string> head{r.key(), std::to_string(r.run_index()), r.result().error().empty() ? "ok" : "failed"};
    std::string seed;
    for (const std::string& k : keys) {
      std::string value;
      for (const auto& p : r.params()) {
        if (p.key() == k) value = p.value();
      }
      head.push_back(value);
    }
    for (const auto& p : r.params()) {
      if (p.key() == "seed") seed = p.value();
    }
    head.push_back(seed);
    auto row = [&](const results::FlowStats* f) {
      std::vector<std::string> fields = head;
      const std::vector<std::string> rest = flow_fields(r.result(), f);
      fields.insert(fields.end(), rest.begin(), rest.end());
      fields.push_back(r.result().error());
      write_csv_record(out, fields);
    };
    if (r.result().flows_size() == 0) row(nullptr);
    for (const auto& f : r.result().flows()) row(&f);
  }
}

}  // namespace netsim::sweep
