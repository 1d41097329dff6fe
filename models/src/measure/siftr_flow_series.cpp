#include "netsim/measure/siftr_flow_series.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace netsim::measure {
namespace {

// Floor division: a record a little before its flow's origin (records of two
// CPUs reach the log slightly out of order) goes into bin -1, not bin 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

std::int64_t micros_of(SimTime width) {
  if (width <= 0 || width % kPicosPerMicro != 0) {
    throw std::invalid_argument("SIFTR bin width " + std::to_string(width) +
                                " ps is not a positive whole number of microseconds");
  }
  return width / kPicosPerMicro;
}

void merge(SiftrBin& into, const SiftrBin& b) {
  into.records_in += b.records_in;
  into.records_out += b.records_out;
  into.cwnd_sum += b.cwnd_sum;
  into.ssthresh_sum += b.ssthresh_sum;
  into.srtt_us_sum += b.srtt_us_sum;
  into.flight_sum += b.flight_sum;
}

}  // namespace

double siftr_srtt_us_per_unit(const tcp::SiftrEnableLine& enable) {
  const auto version = siftr_version_from_name(enable.siftrver);
  if (!version) throw std::invalid_argument("siftrver '" + enable.siftrver + "' is not 1.2.4 or 1.3.0");
  if (*version == tcp::SiftrVersion::v1_3_0) return 1.0;
  if (enable.hz == 0 || enable.tcp_rtt_scale == 0) {
    throw std::invalid_argument("a siftrver 1.2.4 enable line needs hz and tcp_rtt_scale to convert srtt");
  }
  return 1e6 / static_cast<double>(enable.hz) / static_cast<double>(enable.tcp_rtt_scale);
}

std::size_t SiftrSummaryBuilder::FlowHash::operator()(const tcp::SiftrFlow& f) const {
  // FNV-1a over what identifies the flow.
  std::size_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint8_t b) { h = (h ^ b) * 1099511628211ull; };
  for (std::uint8_t b : f.laddr.bytes) mix(b);
  for (std::uint8_t b : f.faddr.bytes) mix(b);
  mix(static_cast<std::uint8_t>(f.lport));
  mix(static_cast<std::uint8_t>(f.lport >> 8));
  mix(static_cast<std::uint8_t>(f.fport));
  mix(static_cast<std::uint8_t>(f.fport >> 8));
  return h;
}

SiftrSummaryBuilder::SiftrSummaryBuilder(const tcp::SiftrEnableLine& enable, SiftrSeriesOptions options)
    : options_(options), bin_us_(micros_of(options.bin_width)), srtt_scale_(siftr_srtt_us_per_unit(enable)) {
  summary_.options = options;
}

SiftrSummaryBuilder::Building& SiftrSummaryBuilder::flow_of(const tcp::SiftrRecord& r, std::int64_t t_us) {
  const tcp::SiftrFlow key{r.laddr, r.lport, r.faddr, r.fport};
  // Records of a bulk transfer come in long runs of one flow.
  if (!flows_.empty() && flows_[last_flow_].series.flow == key) return flows_[last_flow_];
  const auto [it, fresh] = index_.try_emplace(key, flows_.size());
  if (fresh) {
    Building b;
    b.series.flow = key;
    b.series.first_us = b.series.last_us = t_us;
    b.series.origin_us = options_.origin == SiftrTimeOrigin::flow_start ? t_us : session_origin_us_;
    flows_.push_back(std::move(b));
  }
  last_flow_ = it->second;
  return flows_[last_flow_];
}

void SiftrSummaryBuilder::add(const tcp::SiftrRecord& r) {
  const std::int64_t t_us = r.tv_sec * 1'000'000 + r.tv_usec;
  if (!started_) {
    session_origin_us_ = t_us;
    started_ = true;
  }
  Building& b = flow_of(r, t_us);
  SiftrFlowSeries& s = b.series;
  s.first_us = std::min(s.first_us, t_us);
  s.last_us = std::max(s.last_us, t_us);
  const std::int64_t index = floor_div(t_us - s.origin_us, bin_us_);
  if (b.last == SIZE_MAX || s.bins[b.last].index != index) {
    const auto [it, fresh] = b.slot.try_emplace(index, s.bins.size());
    if (fresh) {
      s.bins.emplace_back();
      s.bins.back().index = index;
    }
    b.last = it->second;
  }
  SiftrBin& bin = s.bins[b.last];
  const bool in = r.direction == tcp::SiftrDirection::in;
  ++(in ? bin.records_in : bin.records_out);
  ++(in ? s.records_in : s.records_out);
  ++(in ? summary_.records_in : summary_.records_out);
  bin.cwnd_sum += r.snd_cwnd;
  bin.ssthresh_sum += r.snd_ssthresh;
  bin.srtt_us_sum += r.srtt * srtt_scale_;
  bin.flight_sum += r.sent_inflight_bytes;
}

SiftrSummary SiftrSummaryBuilder::finish() && {
  for (Building& b : flows_) {
    std::sort(b.series.bins.begin(), b.series.bins.end(),
              [](const SiftrBin& x, const SiftrBin& y) { return x.index < y.index; });
    summary_.flows.push_back(std::move(b.series));
  }
  flows_.clear();
  index_.clear();
  return std::move(summary_);
}

SiftrSummary summarize_siftr(std::span<const tcp::SiftrRecord> records, const tcp::SiftrEnableLine& enable,
                             SiftrSeriesOptions options) {
  SiftrSummaryBuilder b(enable, options);
  for (const tcp::SiftrRecord& r : records) b.add(r);
  return std::move(b).finish();
}

SiftrSummary summarize_siftr(const SiftrSession& session, SiftrSeriesOptions options) {
  return summarize_siftr(session.records, session.enable, options);
}

SiftrSummary rebin_siftr(const SiftrSummary& summary, SimTime bin_width) {
  const std::int64_t from = micros_of(summary.options.bin_width);
  const std::int64_t to = micros_of(bin_width);
  if (to % from != 0) {
    throw std::invalid_argument("SIFTR bin width " + std::to_string(to) + " us is not a whole multiple of " +
                                std::to_string(from) + " us");
  }
  const std::int64_t n = to / from;
  SiftrSummary out = summary;
  out.options.bin_width = bin_width;
  for (SiftrFlowSeries& f : out.flows) {
    std::vector<SiftrBin> merged;
    for (const SiftrBin& b : f.bins) {
      const std::int64_t index = floor_div(b.index, n);
      if (merged.empty() || merged.back().index != index) {
        merged.push_back(SiftrBin{});
        merged.back().index = index;
      }
      merge(merged.back(), b);
    }
    f.bins = std::move(merged);
  }
  return out;
}

}  // namespace netsim::measure
