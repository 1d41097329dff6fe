// CUBIC helpers that need the connection; see cubic_math.h for the FreeBSD
// files and commits followed (cc_cubic.c @ 00d3b744 stock, @ e8130f15 and
// cc_cubic.h @ f30bcb15 after review D46046).
#include "netsim/cc/cubic_math.h"

#include "netsim/cc/newreno.h"

namespace netsim::cc {
namespace {

// The part both versions share: fast convergence and W_max = c. Returns c.
std::uint32_t fast_convergence(CcVar& ccv, CubicData& cubic_data) {
  std::uint32_t cwnd = ccv.tp->snd_cwnd;
  if (cwnd < cubic_data.W_max)  // still below the previous W_max: release bandwidth faster
    cwnd = static_cast<std::uint32_t>((static_cast<std::uint64_t>(cwnd) * CUBIC_FC_FACTOR) >> CUBIC_SHIFT);
  cubic_data.undo_W_max = cubic_data.W_max;
  cubic_data.W_max = cwnd;
  return cwnd;
}

// The first-event / later-event rule of the stock code.
std::uint32_t stock_ssthresh(CubicData& cubic_data, std::uint32_t cwnd) {
  if ((cubic_data.flags & CUBICFLAG_CONG_EVENT) == 0) {
    // First loss of the connection: halve, and put W_max at 0.7 * c so that
    // the concave region starts in the right place.
    cubic_data.W_max = (static_cast<std::uint64_t>(cwnd) * CUBIC_BETA) >> CUBIC_SHIFT;
    return cwnd >> 1;
  }
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(cwnd) * CUBIC_BETA) >> CUBIC_SHIFT);
}

}  // namespace

unsigned long tf_cwnd_d46046(CcVar& ccv) { return newreno_cc_cwnd_in_cong_avoid(ccv); }

void cubic_ssthresh_update(CcVar& ccv, CubicData& cubic_data, std::uint32_t maxseg) {
  const std::uint32_t cwnd = fast_convergence(ccv, cubic_data);
  const std::uint32_t ssthresh = stock_ssthresh(cubic_data, cwnd);
  ccv.tp->snd_ssthresh = kern::max(ssthresh, 2 * maxseg);
}

void cubic_ssthresh_update_d46046(CcVar& ccv, CubicData& cubic_data, std::uint32_t maxseg) {
  const std::uint32_t cwnd = fast_convergence(ccv, cubic_data);
  std::uint32_t ssthresh;
  if (cubic_data.flags & CUBICFLAG_IN_TF) {
    // D46046: in the TCP-friendly region, back off like NewReno (global beta,
    // applied to the unreduced snd_cwnd); W_max stays at c.
    ssthresh = newreno_cc_cwnd_on_multiplicative_decrease(ccv, maxseg);
  } else {
    ssthresh = stock_ssthresh(cubic_data, cwnd);
  }
  ccv.tp->snd_ssthresh = kern::max(ssthresh, 2 * maxseg);
}

}  // namespace netsim::cc
