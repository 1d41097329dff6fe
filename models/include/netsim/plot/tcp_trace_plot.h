// `netsim plot trace`: a --trace-tcp CSV (docs/scenario-format.md) as cwnd
// and ssthresh over time, srtt on a second axis, and the losses the sender
// reacted to marked on the cwnd line: a fast retransmit wherever the
// cumulative `retransmits` grows without an RTO, an RTO wherever `rtos` grows.
//
// Windows are in KB (1024 bytes): the trace has bytes and no MSS.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/plot/gnuplot_plot.h"

namespace netsim::plot {

// A trace that cannot be read: what() names the file (and line).
class TraceReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ssthresh before the first loss, not drawn: the Linux port traces its
// infinite ssthresh as 4294967295, the FreeBSD one starts at TCP_MAXWIN <<
// TCP_MAX_WINSHIFT (1073725440); anything from the lower is "unset".
inline constexpr std::uint64_t kLinuxUnsetSsthresh = 4294967295u;
inline constexpr std::uint64_t kFreebsdUnsetSsthresh = 65535u << 14;
inline bool ssthresh_unset(std::uint64_t ssthresh) { return ssthresh >= kFreebsdUnsetSsthresh; }

struct TcpTracePoint {
  double time_s = 0;
  bool rto_event = false;  // event == rto
  std::uint64_t cwnd = 0, ssthresh = 0;  // bytes
  std::uint64_t srtt_us = 0;
  std::uint64_t retransmits = 0, rtos = 0;  // cumulative
};

struct TcpTraceFlow {
  std::string name;
  std::vector<TcpTracePoint> points;  // in file order
};

// The flows of a --trace-tcp CSV, in order of first appearance. Columns are
// found by name in the header, so added columns do not break it. `file`
// names the input in errors ("FILE:LINE: ...").
std::vector<TcpTraceFlow> read_tcp_trace(std::istream& in, const std::string& file);

enum class LossKind { fast_retransmit, rto };

struct LossMarker {
  double time_s = 0;
  double cwnd_kb = 0;  // where it is drawn: the window after the sender reacted
  LossKind kind = LossKind::fast_retransmit;
};

// The samples at which the sender's loss counters grew (from zero before the first).
std::vector<LossMarker> trace_losses(const TcpTraceFlow& flow);

// At most 2 x `slices` samples of a flow for drawing: per time slice, the
// ones with the smallest and the largest cwnd, in time order, so that every
// sawtooth peak and trough survives thinning a 10 s, 40 000-ACK/s trace.
std::vector<TcpTracePoint> thinned_trace(const TcpTraceFlow& flow, std::size_t slices = 1500);

// cwnd and ssthresh (KB) and srtt (ms, right axis) per flow, losses marked;
// `title` heads the picture.
GnuplotPlot tcp_trace_plot(const std::vector<TcpTraceFlow>& flows, const std::string& title);

}  // namespace netsim::plot
