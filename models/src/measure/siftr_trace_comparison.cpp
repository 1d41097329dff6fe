#include "netsim/measure/siftr_trace_comparison.h"

#include <arpa/inet.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "netsim/results/result_writers.h"

namespace netsim::measure {
namespace {

std::optional<double> count(std::uint64_t n) { return static_cast<double>(n); }

// One side's figures of a bin into `side` (&SiftrCompared::measured or ::simulated).
void fill(SiftrBinComparison& c, std::optional<double> SiftrCompared::*side, const SiftrBin& b) {
  c.records.*side = count(b.records());
  c.cwnd.*side = b.cwnd();
  c.ssthresh.*side = b.ssthresh();
  c.srtt_us.*side = b.srtt_us();
  c.flight.*side = b.flight();
}

SiftrBinComparison bin_of(std::int64_t index, const SiftrBin* m, const SiftrBin* s, SimTime width) {
  SiftrBinComparison c;
  c.index = index;
  c.start_s = to_seconds(index * width);
  if (m != nullptr) fill(c, &SiftrCompared::measured, *m);
  if (s != nullptr) fill(c, &SiftrCompared::simulated, *s);
  return c;
}

SiftrFlowComparison flow_of(const SiftrFlowSeries* m, const SiftrFlowSeries* s, SimTime width) {
  SiftrFlowComparison c;
  if (m != nullptr) {
    c.measured = m->flow;
    c.records_in.measured = count(m->records_in);
    c.records_out.measured = count(m->records_out);
  }
  if (s != nullptr) {
    c.simulated = s->flow;
    c.records_in.simulated = count(s->records_in);
    c.records_out.simulated = count(s->records_out);
  }
  static const std::vector<SiftrBin> kNone;
  const std::vector<SiftrBin>& mb = m != nullptr ? m->bins : kNone;
  const std::vector<SiftrBin>& sb = s != nullptr ? s->bins : kNone;
  std::size_t i = 0, j = 0;
  while (i < mb.size() || j < sb.size()) {
    const bool take_m = i < mb.size() && (j >= sb.size() || mb[i].index <= sb[j].index);
    const bool take_s = j < sb.size() && (i >= mb.size() || sb[j].index <= mb[i].index);
    const std::int64_t index = take_m ? mb[i].index : sb[j].index;
    c.bins.push_back(bin_of(index, take_m ? &mb[i] : nullptr, take_s ? &sb[j] : nullptr, width));
    i += take_m ? 1 : 0;
    j += take_s ? 1 : 0;
  }
  return c;
}

std::string address_text(const tcp::SiftrAddress& a) {
  char text[INET6_ADDRSTRLEN] = "";
  inet_ntop(a.family == IpVersion::v6 ? AF_INET6 : AF_INET, a.bytes.data(), text, sizeof(text));
  return a.family == IpVersion::v6 ? "[" + std::string(text) + "]" : std::string(text);
}

std::string flow_text(const std::optional<tcp::SiftrFlow>& f) {
  if (!f) return "none";
  return address_text(f->laddr) + ":" + std::to_string(f->lport) + " -> " + address_text(f->faddr) + ":" +
         std::to_string(f->fport);
}

std::string value_text(const std::optional<double>& v, int decimals) { return v ? format_fixed(*v, decimals) : "-"; }

std::string error_text(const SiftrCompared& c) {
  const auto e = c.error_pct();
  if (!e) return "-";
  return (*e >= 0 ? "+" : "") + format_fixed(*e, 1);
}

// Decimals that show every bin's start exactly (a bin width of 100 ms: 1).
int time_decimals(SimTime width) {
  int d = 0;
  for (SimTime unit = kPicosPerSecond; d < 6 && width % unit != 0; unit /= 10) ++d;
  return d;
}

void write_aligned(std::string& out, const std::vector<std::vector<std::string>>& table) {
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& row : table) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : table) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) line += "  " + row[i] + std::string(width[i] - row[i].size(), ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

std::vector<std::vector<std::string>> count_table(const SiftrCompared& in, const SiftrCompared& out) {
  return {{"records", "measured", "simulated", "error %"},
          {"in", value_text(in.measured, 0), value_text(in.simulated, 0), error_text(in)},
          {"out", value_text(out.measured, 0), value_text(out.simulated, 0), error_text(out)}};
}

}  // namespace

std::optional<double> SiftrCompared::error_pct() const {
  if (!measured || !simulated || *measured == 0) return std::nullopt;
  return (*simulated - *measured) / *measured * 100.0;
}

SiftrTraceComparison compare_siftr_traces(const SiftrSummary& measured, const SiftrSummary& simulated,
                                          SiftrFlowPairing pairing) {
  if (measured.options.bin_width != simulated.options.bin_width) {
    throw std::invalid_argument("SIFTR traces binned differently: " + std::to_string(measured.options.bin_width) +
                                " ps measured, " + std::to_string(simulated.options.bin_width) +
                                " ps simulated (rebin_siftr one of them)");
  }
  if (measured.options.origin != simulated.options.origin) {
    throw std::invalid_argument("SIFTR traces binned from different origins");
  }
  SiftrTraceComparison c;
  c.options = measured.options;
  c.records_in = {count(measured.records_in), count(simulated.records_in)};
  c.records_out = {count(measured.records_out), count(simulated.records_out)};
  const SimTime width = measured.options.bin_width;
  std::vector<bool> paired(simulated.flows.size(), false);
  for (std::size_t i = 0; i < measured.flows.size(); ++i) {
    std::size_t j = simulated.flows.size();
    if (pairing == SiftrFlowPairing::by_order) {
      j = std::min(i, simulated.flows.size());
    } else {
      for (std::size_t k = 0; k < simulated.flows.size(); ++k) {
        if (!paired[k] && simulated.flows[k].flow == measured.flows[i].flow) {
          j = k;
          break;
        }
      }
    }
    const SiftrFlowSeries* s = j < simulated.flows.size() ? &simulated.flows[j] : nullptr;
    if (s != nullptr) paired[j] = true;
    c.flows.push_back(flow_of(&measured.flows[i], s, width));
  }
  for (std::size_t k = 0; k < simulated.flows.size(); ++k) {
    if (!paired[k]) c.flows.push_back(flow_of(nullptr, &simulated.flows[k], width));
  }
  return c;
}

SiftrTraceComparison compare_siftr_traces(std::span<const tcp::SiftrRecord> measured,
                                          const tcp::SiftrEnableLine& measured_enable,
                                          std::span<const tcp::SiftrRecord> simulated,
                                          const tcp::SiftrEnableLine& simulated_enable, SiftrSeriesOptions options,
                                          SiftrFlowPairing pairing) {
  return compare_siftr_traces(summarize_siftr(measured, measured_enable, options),
                              summarize_siftr(simulated, simulated_enable, options), pairing);
}

std::string render_siftr_trace_comparison(const SiftrTraceComparison& c) {
  const SimTime width = c.options.bin_width;
  const int td = time_decimals(width);
  std::string out = "SIFTR trace, simulated vs measured (bins of " + format_fixed(to_seconds(width), td) + " s from " +
                    (c.options.origin == SiftrTimeOrigin::flow_start ? "each flow's" : "the session's") +
                    " first record; per bin the mean of its records):\n";
  write_aligned(out, count_table(c.records_in, c.records_out));
  for (std::size_t i = 0; i < c.flows.size(); ++i) {
    const SiftrFlowComparison& f = c.flows[i];
    out += "flow " + std::to_string(i + 1) + ": measured " + flow_text(f.measured) + ", simulated " +
           flow_text(f.simulated) + "\n";
    write_aligned(out, count_table(f.records_in, f.records_out));
    std::vector<std::vector<std::string>> table{
        {"time s", "records", "", "cwnd", "", "", "ssthresh", "", "", "srtt us", "", "", "flight", "", ""},
        {"", "meas", "sim", "meas", "sim", "error %", "meas", "sim", "error %", "meas", "sim", "error %", "meas", "sim",
         "error %"}};
    for (const SiftrBinComparison& b : f.bins) {
      std::vector<std::string> row{format_fixed(b.start_s, td), value_text(b.records.measured, 0),
                                   value_text(b.records.simulated, 0)};
      for (const SiftrCompared* v : {&b.cwnd, &b.ssthresh, &b.srtt_us, &b.flight}) {
        row.push_back(value_text(v->measured, 0));
        row.push_back(value_text(v->simulated, 0));
        row.push_back(error_text(*v));
      }
      table.push_back(std::move(row));
    }
    write_aligned(out, table);
  }
  return out;
}

}  // namespace netsim::measure
