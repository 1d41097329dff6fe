// A SIFTR session reduced to per-flow time series: for each flow (laddr,
// lport, faddr, fport) its record counts per direction and, per bin of time,
// the mean cwnd, ssthresh, srtt and flight size (snd_max - snd_una) of its
// records. The same reduction serves a measured log and the records a
// simulated SIFTR writes, so that the two can be compared bin by bin
// (siftr_trace_comparison.h).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "netsim/measure/siftr_log.h"
#include "netsim/sim/time.h"
#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::measure {

// Where a flow's bin 0 starts.
enum class SiftrTimeOrigin : std::uint8_t {
  flow_start,     // the flow's first record: measured and simulated flows line up whenever each started
  session_start,  // the session's first record: flows keep their offsets to each other
};

struct SiftrSeriesOptions {
  // A positive whole number of microseconds (SIFTR's resolution).
  SimTime bin_width = 100 * kPicosPerMilli;
  SiftrTimeOrigin origin = SiftrTimeOrigin::flow_start;
};

// The records of one flow in one bin, both directions. The sums are kept
// rather than the means so that bins merge exactly (rebin_siftr).
struct SiftrBin {
  std::int64_t index = 0;  // the bin covers [index, index + 1) * bin_width after the origin
  std::uint64_t records_in = 0;
  std::uint64_t records_out = 0;
  double cwnd_sum = 0;      // bytes
  double ssthresh_sum = 0;  // bytes
  double srtt_us_sum = 0;   // microseconds, whatever unit the log version has
  double flight_sum = 0;    // bytes in flight (sent_inflight_bytes)

  std::uint64_t records() const { return records_in + records_out; }
  double cwnd() const { return cwnd_sum / static_cast<double>(records()); }
  double ssthresh() const { return ssthresh_sum / static_cast<double>(records()); }
  double srtt_us() const { return srtt_us_sum / static_cast<double>(records()); }
  double flight() const { return flight_sum / static_cast<double>(records()); }
};

struct SiftrFlowSeries {
  tcp::SiftrFlow flow;
  std::uint64_t records_in = 0;
  std::uint64_t records_out = 0;
  std::int64_t first_us = 0;  // the first and last record, tv_sec * 10^6 + tv_usec
  std::int64_t last_us = 0;
  std::int64_t origin_us = 0;  // the start of bin 0
  std::vector<SiftrBin> bins;  // the bins with records, in index order
};

struct SiftrSummary {
  SiftrSeriesOptions options;
  std::uint64_t records_in = 0;
  std::uint64_t records_out = 0;
  std::vector<SiftrFlowSeries> flows;  // in the order of their first record
};

// srtt as logged, in microseconds: 1.3.0 logs microseconds; 1.2.4 logs
// t_srtt in ticks << TCP_RTT_SCALE bits, so us = srtt * (10^6 / hz) /
// tcp_rtt_scale with the enable line's hz and tcp_rtt_scale. Throws
// std::invalid_argument for an enable line of another version or, for 1.2.4,
// without hz or tcp_rtt_scale.
double siftr_srtt_us_per_unit(const tcp::SiftrEnableLine& enable);

// Builds a summary record by record, for a log read with a SiftrLogVisitor.
class SiftrSummaryBuilder {
 public:
  // Throws std::invalid_argument for a bin width that is not a positive
  // whole number of microseconds, and as siftr_srtt_us_per_unit.
  explicit SiftrSummaryBuilder(const tcp::SiftrEnableLine& enable, SiftrSeriesOptions options = {});

  void add(const tcp::SiftrRecord& record);
  SiftrSummary finish() &&;

 private:
  struct FlowHash {
    std::size_t operator()(const tcp::SiftrFlow& f) const;
  };
  struct Building {
    SiftrFlowSeries series;
    std::unordered_map<std::int64_t, std::size_t> slot;  // bin index -> position in series.bins
    // Records of a flow come in time order, mostly into the bin of the one before.
    std::size_t last = SIZE_MAX;
  };
  Building& flow_of(const tcp::SiftrRecord& record, std::int64_t t_us);

  SiftrSeriesOptions options_;
  std::int64_t bin_us_ = 0;
  double srtt_scale_ = 1;
  bool started_ = false;
  std::int64_t session_origin_us_ = 0;
  SiftrSummary summary_;
  std::vector<Building> flows_;
  std::unordered_map<tcp::SiftrFlow, std::size_t, FlowHash> index_;
  std::size_t last_flow_ = 0;
};

SiftrSummary summarize_siftr(std::span<const tcp::SiftrRecord> records, const tcp::SiftrEnableLine& enable,
                             SiftrSeriesOptions options = {});
SiftrSummary summarize_siftr(const SiftrSession& session, SiftrSeriesOptions options = {});

// The same summary in bins `bin_width` wide, which must be a whole multiple
// of the summary's (std::invalid_argument otherwise): bins k*n .. k*n + n - 1
// become bin k.
SiftrSummary rebin_siftr(const SiftrSummary& summary, SimTime bin_width);

}  // namespace netsim::measure
