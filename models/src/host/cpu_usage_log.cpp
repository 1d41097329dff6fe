#include "netsim/host/cpu_usage_log.h"

#include <algorithm>
#include <stdexcept>

#include "netsim/sim/int128.h"

namespace netsim {

CpuUsageLog::CpuUsageLog(Simulation& sim, std::string name, const HostCpu& cpu, SimTime period, SimTime until)
    : Component(sim, std::move(name)), cpu_(cpu), period_(period), timer_(this, 0) {
  if (period <= 0 || until < 0) throw std::invalid_argument("CPU usage log " + this->name() + ": bad period or end");
  expected_ = static_cast<std::size_t>(until / period) + 1;
  samples_.reserve(expected_);
  sim.arm_at(timer_, 0);
}

void CpuUsageLog::handle_event(std::uint64_t) {
  samples_.push_back(cpu_.used());
  if (samples_.size() < expected_) sim().arm_in(timer_, period_);
}

CpuTimes CpuUsageLog::at(SimTime t) const {
  if (samples_.empty()) return {};
  const SimTime last = static_cast<SimTime>(samples_.size() - 1) * period_;
  t = std::clamp<SimTime>(t, 0, last);
  const std::size_t k = static_cast<std::size_t>(t / period_);
  if (k + 1 >= samples_.size()) return samples_.back();
  const SimTime into = t - static_cast<SimTime>(k) * period_;
  CpuTimes r;
  for (std::size_t c = 0; c < r.by_context.size(); ++c) {
    const SimTime a = samples_[k].by_context[c];
    const SimTime b = samples_[k + 1].by_context[c];
    // (b - a) <= period, so the product stays far below 2^63.
    r.by_context[c] = a + static_cast<SimTime>(static_cast<Int128>(b - a) * into / period_);
  }
  return r;
}

CpuTimes CpuUsageLog::used_between(SimTime from, SimTime to) const { return at(to).since(at(from)); }

double CpuUsageLog::utilization_pct(SimTime from, SimTime to) const {
  return to <= from ? 0.0 : cpu_percent(used_between(from, to).total(), to - from);
}

}  // namespace netsim
