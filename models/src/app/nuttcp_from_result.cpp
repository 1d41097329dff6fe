#include "netsim/app/nuttcp_from_result.h"

#include "netsim/app/nuttcp_cpu.h"
#include "netsim/sim/time.h"

namespace netsim::app {
namespace {

NuttcpFigures figures(const results::NuttcpInterval& x) {
  NuttcpFigures f;
  f.seconds = x.end_s() - x.start_s();
  f.bytes_sent = x.bytes_sent();
  f.bytes_received = x.bytes_received();
  f.retransmits = x.retransmits();
  f.packets_sent = x.packets_sent();
  f.packets_received = x.packets_received();
  return f;
}

SimTime picos(double seconds) { return static_cast<SimTime>(seconds * static_cast<double>(kPicosPerSecond) + 0.5); }

}  // namespace

NuttcpReport nuttcp_report_from_result(const results::NuttcpResult& r) {
  NuttcpReport out;
  out.udp = r.protocol() == "udp";
  out.version = r.version();
  out.buffer_len = r.buffer_len();
  for (const results::NuttcpInterval& x : r.intervals()) out.intervals.push_back(figures(x));
  out.total = figures(r.total());
  out.total.seconds = r.real_s();
  const SimTime real = picos(r.real_s());
  out.tx_cpu_pct = r.has_tx_cpu_s() ? nuttcp_cpu_percent(picos(r.tx_cpu_s()), real) : 0;
  out.rx_cpu_pct = r.has_rx_cpu_s() ? nuttcp_cpu_percent(picos(r.rx_cpu_s()), real) : 0;
  out.rtt_ms = r.rtt_ms();
  return out;
}

}  // namespace netsim::app
