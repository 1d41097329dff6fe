#include "netsim/sweep/results_summary.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>

#include "netsim/results/result_writers.h"

namespace netsim::sweep {
namespace {

using google::protobuf::FieldDescriptor;

const std::string* param(const results::SweepRecord& r, const std::string& key) {
  for (const auto& p : r.params()) {
    if (p.key() == key) return &p.value();
  }
  return nullptr;
}

// The numeric, non-repeated fields of FlowStats: every one is a metric.
std::vector<const FieldDescriptor*> metric_fields(const std::vector<std::string>& names) {
  const auto* desc = results::FlowStats::descriptor();
  std::vector<std::string> valid;
  for (int i = 0; i < desc->field_count(); ++i) {
    const FieldDescriptor* f = desc->field(i);
    if (!f->is_repeated() && f->cpp_type() != FieldDescriptor::CPPTYPE_STRING) valid.push_back(f->name());
  }
  std::vector<const FieldDescriptor*> out;
  for (const std::string& n : names) {
    const FieldDescriptor* f = desc->FindFieldByName(n);
    if (f == nullptr || std::find(valid.begin(), valid.end(), n) == valid.end()) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
      throw SummaryError("unknown metric '" + n + "'; flow metrics are: " + list);
    }
    out.push_back(f);
  }
  return out;
}

double metric_value(const results::FlowStats& s, const FieldDescriptor* f) {
  const auto* r = s.GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE: return r->GetDouble(s, f);
    case FieldDescriptor::CPPTYPE_FLOAT: return r->GetFloat(s, f);
    case FieldDescriptor::CPPTYPE_INT32: return r->GetInt32(s, f);
    case FieldDescriptor::CPPTYPE_INT64: return static_cast<double>(r->GetInt64(s, f));
    case FieldDescriptor::CPPTYPE_UINT32: return r->GetUInt32(s, f);
    case FieldDescriptor::CPPTYPE_UINT64: return static_cast<double>(r->GetUInt64(s, f));
    case FieldDescriptor::CPPTYPE_BOOL: return r->GetBool(s, f) ? 1.0 : 0.0;
    default: return 0.0;
  }
}

std::vector<std::string> default_group_by(const std::vector<results::SweepRecord>& records) {
  std::vector<std::string> keys;  // in order of first appearance (params are sorted by key)
  for (const auto& r : records) {
    for (const auto& p : r.params()) {
      if (p.key() == "seed" || std::find(keys.begin(), keys.end(), p.key()) != keys.end()) continue;
      const bool varies = std::any_of(records.begin(), records.end(), [&p](const results::SweepRecord& o) {
        const std::string* v = param(o, p.key());
        return v == nullptr || *v != p.value();
      });
      if (varies) keys.push_back(p.key());
    }
  }
  return keys;
}

std::vector<std::string> header(const Summary& s) {
  std::vector<std::string> h = s.group_by;
  h.insert(h.end(), {"flow", "runs", "failed"});
  for (const auto& m : s.metrics) h.insert(h.end(), {m + "_mean", m + "_min", m + "_max"});
  return h;
}

template <typename Format>
std::vector<std::string> cells(const SummaryRow& row, Format number) {
  std::vector<std::string> c = row.group;
  c.insert(c.end(), {row.flow.empty() ? "-" : row.flow, std::to_string(row.runs), std::to_string(row.failed)});
  for (const auto& m : row.metrics) {
    if (m.n == 0) {
      c.insert(c.end(), {"-", "-", "-"});
    } else {
      c.insert(c.end(), {number(m.mean), number(m.min), number(m.max)});
    }
  }
  return c;
}

}  // namespace

Summary summarize_records(const std::vector<results::SweepRecord>& records, const SummaryOptions& options) {
  Summary s;
  s.metrics = options.metrics;
  const std::vector<const FieldDescriptor*> fields = metric_fields(options.metrics);
  s.group_by = options.group_by.empty() ? default_group_by(records) : options.group_by;
  for (const std::string& k : options.group_by) {
    if (std::none_of(records.begin(), records.end(), [&k](const auto& r) { return param(r, k) != nullptr; })) {
      std::set<std::string> known;
      for (const auto& r : records) {
        for (const auto& p : r.params()) known.insert(p.key());
      }
      std::string list;
      for (const auto& v : known) list += (list.empty() ? "" : ", ") + v;
      throw SummaryError("no record has the parameter '" + k + "'; parameters: " + (list.empty() ? "none" : list));
    }
  }

  struct Group {
    std::vector<std::string> values;
    std::size_t failed = 0;
    std::vector<std::string> flows;                               // in order of appearance
    std::map<std::string, std::vector<std::vector<double>>> samples;  // flow -> metric -> values
  };
  std::vector<Group> groups;
  std::map<std::vector<std::string>, std::size_t> index;
  for (const auto& r : records) {
    std::vector<std::string> values;
    for (const auto& k : s.group_by) {
      const std::string* v = param(r, k);
      values.push_back(v ? *v : "");
    }
    auto [it, fresh] = index.emplace(values, groups.size());
    if (fresh) groups.push_back(Group{values, 0, {}, {}});
    Group& g = groups[it->second];
    if (!r.result().error().empty()) {
      ++g.failed;
      continue;
    }
    for (const auto& f : r.result().flows()) {
      auto& per_metric = g.samples[f.name()];
      if (per_metric.empty()) {
        g.flows.push_back(f.name());
        per_metric.resize(fields.size());
      }
      for (std::size_t m = 0; m < fields.size(); ++m) per_metric[m].push_back(metric_value(f, fields[m]));
    }
  }
  for (const Group& g : groups) {
    if (g.flows.empty()) {
      s.rows.push_back(SummaryRow{g.values, "", 0, g.failed, std::vector<stats::SampleSummary>(fields.size())});
    }
    for (const std::string& flow : g.flows) {
      SummaryRow row{g.values, flow, g.samples.at(flow).front().size(), g.failed, {}};
      for (const auto& values : g.samples.at(flow)) row.metrics.push_back(stats::summarize(values));
      s.rows.push_back(std::move(row));
    }
  }
  return s;
}

void write_summary_text(std::ostream& out, const Summary& s) {
  auto fixed = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return std::string(buf);
  };
  std::vector<std::vector<std::string>> table{header(s)};
  for (const auto& row : s.rows) table.push_back(cells(row, fixed));
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  const std::size_t numeric_from = s.group_by.size() + 1;  // runs, failed and metrics are right-aligned
  for (const auto& line : table) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const std::string pad(width[i] - line[i].size(), ' ');
      if (i > 0) text += "  ";
      text += i >= numeric_from ? pad + line[i] : line[i] + (i + 1 < line.size() ? pad : "");
    }
    out << text << '\n';
  }
}

void write_summary_csv(std::ostream& out, const Summary& s) {
  write_csv_record(out, header(s));
  for (const auto& row : s.rows) write_csv_record(out, cells(row, format_double_roundtrip));
}

}  // namespace netsim::sweep
