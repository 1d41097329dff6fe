#include "netsim/plot/tcp_trace_plot.h"

#include <algorithm>
#include <charconv>
#include <istream>
#include <limits>
#include <map>

namespace netsim::plot {
namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

std::string where(const std::string& file, std::size_t line) { return file + ":" + std::to_string(line) + ": "; }

double kilobytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1024.0; }

}  // namespace

std::vector<TcpTraceFlow> read_tcp_trace(std::istream& in, const std::string& file) {
  std::string line;
  std::size_t line_no = 1;
  if (!std::getline(in, line)) throw TraceReadError(file + ": empty file (not a --trace-tcp CSV)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split_commas(line);
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw TraceReadError(where(file, 1) + "no column '" + name + "' (not a --trace-tcp CSV)");
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t c_flow = column("flow"), c_time = column("time_s"), c_event = column("event"),
                    c_cwnd = column("cwnd"), c_ssthresh = column("ssthresh"), c_srtt = column("srtt_us"),
                    c_retransmits = column("retransmits"), c_rtos = column("rtos");

  std::vector<TcpTraceFlow> flows;
  std::map<std::string, std::size_t> index;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> f = split_commas(line);
    if (f.size() != header.size()) {
      throw TraceReadError(where(file, line_no) + std::to_string(f.size()) + " fields, the header has " +
                           std::to_string(header.size()));
    }
    auto unsigned_at = [&](std::size_t c) {
      std::uint64_t v = 0;
      const std::string& t = f[c];
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc{} || end != t.data() + t.size()) {
        throw TraceReadError(where(file, line_no) + "column '" + header[c] + "': not an unsigned integer: '" + t + "'");
      }
      return v;
    };
    TcpTracePoint p;
    {
      const std::string& t = f[c_time];
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), p.time_s);
      if (ec != std::errc{} || end != t.data() + t.size()) {
        throw TraceReadError(where(file, line_no) + "column 'time_s': not a number: '" + t + "'");
      }
    }
    p.rto_event = f[c_event] == "rto";
    p.cwnd = unsigned_at(c_cwnd);
    p.ssthresh = unsigned_at(c_ssthresh);
    p.srtt_us = unsigned_at(c_srtt);
    p.retransmits = unsigned_at(c_retransmits);
    p.rtos = unsigned_at(c_rtos);
    const auto [it, added] = index.try_emplace(f[c_flow], flows.size());
    if (added) flows.push_back({f[c_flow], {}});
    flows[it->second].points.push_back(p);
  }
  if (flows.empty()) throw TraceReadError(file + ": no samples (the run had no TCP flow, or it sent nothing)");
  return flows;
}

std::vector<LossMarker> trace_losses(const TcpTraceFlow& flow) {
  std::vector<LossMarker> losses;
  std::uint64_t retransmits = 0, rtos = 0;
  for (const TcpTracePoint& p : flow.points) {
    if (p.rtos > rtos) {
      losses.push_back({p.time_s, kilobytes(p.cwnd), LossKind::rto});
    } else if (p.retransmits > retransmits) {
      losses.push_back({p.time_s, kilobytes(p.cwnd), LossKind::fast_retransmit});
    }
    retransmits = std::max(retransmits, p.retransmits);
    rtos = std::max(rtos, p.rtos);
  }
  return losses;
}

std::vector<TcpTracePoint> thinned_trace(const TcpTraceFlow& flow, std::size_t slices) {
  const auto& pts = flow.points;
  if (slices == 0 || pts.size() <= 2 * slices) return pts;
  const double t0 = pts.front().time_s;
  const double span = std::max(pts.back().time_s - t0, std::numeric_limits<double>::min());
  std::vector<TcpTracePoint> out;
  std::size_t i = 0;
  while (i < pts.size()) {
    const auto slice = [&](const TcpTracePoint& p) {
      return std::min(slices - 1, static_cast<std::size_t>((p.time_s - t0) / span * static_cast<double>(slices)));
    };
    const std::size_t s = slice(pts[i]);
    std::size_t lo = i, hi = i, j = i;
    for (; j < pts.size() && slice(pts[j]) == s; ++j) {
      if (pts[j].cwnd < pts[lo].cwnd) lo = j;
      if (pts[j].cwnd > pts[hi].cwnd) hi = j;
    }
    out.push_back(pts[std::min(lo, hi)]);
    if (lo != hi) out.push_back(pts[std::max(lo, hi)]);
    i = j;
  }
  return out;
}

GnuplotPlot tcp_trace_plot(const std::vector<TcpTraceFlow>& flows, const std::string& title) {
  GnuplotPlot g;
  std::string& s = g.commands;
  s += gnuplot_time_chart(title, "cwnd, ssthresh (KB)");
  s += "set y2label 'srtt (ms)'\nset ytics nomirror\nset y2tics\nset y2range [0:*]\n";
  std::vector<std::string> items;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const TcpTraceFlow& flow = flows[i];
    const std::string n = std::to_string(i + 1);
    const std::string lc = " lc " + n;  // the flow's colour throughout
    const std::string name = "flow" + n + ".dat";
    std::string data = "# time_s cwnd_kb ssthresh_kb srtt_ms\n";
    bool any_ssthresh = false;
    for (const TcpTracePoint& p : thinned_trace(flow)) {
      const bool unset = ssthresh_unset(p.ssthresh);
      any_ssthresh = any_ssthresh || !unset;
      data += gnuplot_number(p.time_s) + " " + gnuplot_number(kilobytes(p.cwnd)) + " " +
              (unset ? std::string("NaN") : gnuplot_number(kilobytes(p.ssthresh))) + " " +
              gnuplot_number(static_cast<double>(p.srtt_us) / 1000.0) + "\n";
    }
    g.data.push_back({name, data});
    const std::string q = gnuplot_quoted(name);
    items.push_back(q + " using 1:2 with lines lw 1.5" + lc + " title " + gnuplot_quoted(flow.name + " cwnd"));
    if (any_ssthresh) {
      items.push_back(q + " using 1:3 with lines dt 2 lw 1.5" + lc + " title " +
                      gnuplot_quoted(flow.name + " ssthresh"));
    }
    items.push_back(q + " using 1:4 axes x1y2 with lines dt 3 lw 1" + lc + " title " +
                    gnuplot_quoted(flow.name + " srtt"));
    const std::vector<LossMarker> losses = trace_losses(flow);
    for (const LossKind kind : {LossKind::fast_retransmit, LossKind::rto}) {
      std::string marks;
      for (const LossMarker& m : losses) {
        if (m.kind == kind) marks += gnuplot_number(m.time_s) + " " + gnuplot_number(m.cwnd_kb) + "\n";
      }
      if (marks.empty()) continue;
      const bool rto = kind == LossKind::rto;
      const std::string marks_name = "flow" + n + (rto ? "-rto" : "-retransmit") + ".dat";
      g.data.push_back({marks_name, "# time_s cwnd_kb\n" + marks});
      items.push_back(gnuplot_quoted(marks_name) + " using 1:2 with points" +
                      (rto ? " pt 9 ps 1.6 lc rgb '#d62728'" : " pt 2 ps 1" + lc) + " title " +
                      gnuplot_quoted(flow.name + (rto ? " RTO" : " fast retransmit")));
    }
  }
  s += gnuplot_plot_command(items);
  return g;
}

}  // namespace netsim::plot
