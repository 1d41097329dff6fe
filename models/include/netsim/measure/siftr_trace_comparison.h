// A measured SIFTR trace beside a simulated one: per flow and bin of time the
// mean cwnd, ssthresh, srtt and flight size of both and the simulation's error,
// and the record counts per direction. Both sides are reduced the same way
// (siftr_flow_series.h); the simulated records come from netsim's SIFTR
// writer, so their addresses and ports are the simulation's, and flows are
// paired by the order they started in unless asked to pair by their 4-tuple.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netsim/measure/siftr_flow_series.h"
#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::measure {

enum class SiftrFlowPairing : std::uint8_t {
  by_order,  // the n-th flow to start on one side with the n-th on the other
  by_tuple,  // flows with equal laddr, lport, faddr, fport
};

// One figure on both sides; either may be missing (no records there).
struct SiftrCompared {
  std::optional<double> measured;
  std::optional<double> simulated;
  // (simulated - measured) / measured in percent; empty without both or with
  // a measured 0.
  std::optional<double> error_pct() const;
};

struct SiftrBinComparison {
  std::int64_t index = 0;
  double start_s = 0;  // index * bin width, from the flows' origins
  SiftrCompared records;
  SiftrCompared cwnd;  // bytes
  SiftrCompared ssthresh;
  SiftrCompared srtt_us;
  SiftrCompared flight;  // bytes
};

struct SiftrFlowComparison {
  std::optional<tcp::SiftrFlow> measured;  // empty: no flow to pair with on that side
  std::optional<tcp::SiftrFlow> simulated;
  SiftrCompared records_in;
  SiftrCompared records_out;
  std::vector<SiftrBinComparison> bins;  // every bin either side has, in index order
};

struct SiftrTraceComparison {
  SiftrSeriesOptions options;
  SiftrCompared records_in;  // all flows
  SiftrCompared records_out;
  std::vector<SiftrFlowComparison> flows;  // in measured order, then simulated flows without a partner
};

// Throws std::invalid_argument when the two summaries have different bin
// widths or origins (rebin_siftr one of them first).
SiftrTraceComparison compare_siftr_traces(const SiftrSummary& measured, const SiftrSummary& simulated,
                                          SiftrFlowPairing pairing = SiftrFlowPairing::by_order);
// The same from the records; each side's enable line gives its srtt unit.
SiftrTraceComparison compare_siftr_traces(std::span<const tcp::SiftrRecord> measured,
                                          const tcp::SiftrEnableLine& measured_enable,
                                          std::span<const tcp::SiftrRecord> simulated,
                                          const tcp::SiftrEnableLine& simulated_enable, SiftrSeriesOptions options = {},
                                          SiftrFlowPairing pairing = SiftrFlowPairing::by_order);

// The comparison as text: the record counts per direction, then per flow its
// two 4-tuples, its counts and a table with a row per bin: time, records,
// and measured, simulated and error % of cwnd, ssthresh, srtt (us) and flight.
std::string render_siftr_trace_comparison(const SiftrTraceComparison& comparison);

}  // namespace netsim::measure
