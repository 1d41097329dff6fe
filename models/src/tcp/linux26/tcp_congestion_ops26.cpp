// make_tcp26_congestion_ops: 2.6.12's built-in Reno/BIC, or 2.6.13/14's
// tcp_reno (tcp_cong.c) and tcp_bic.c module. "bic" is the default of all
// three versions (sysctl_tcp_bic = 1 in 2.6.12; CONFIG_TCP_CONG_BIC as the
// default congestion control in 2.6.13/14).
#include "netsim/tcp/linux26/tcp_congestion_ops26.h"

#include <stdexcept>

#include "netsim/tcp/linux26/tcp_bic26.h"
#include "netsim/tcp/linux26/tcp_bic_2_6_12.h"
#include "netsim/tcp/linux26/tcp_reno26.h"

namespace netsim::tcp::lnx26 {

std::unique_ptr<Tcp26CongestionOps> make_tcp26_congestion_ops(const std::string& name, KernelVersion version) {
  const bool v12 = version == KernelVersion::v2_6_12;
  if (name == "bic") {
    if (v12) return std::make_unique<Tcp26Bic2612>(true);
    return std::make_unique<Tcp26Bic>(version);
  }
  if (name == "reno") {
    if (v12) return std::make_unique<Tcp26Bic2612>(false);
    return std::make_unique<Tcp26Reno>();
  }
  throw std::invalid_argument("Linux 2.6.12-2.6.14 sender: unknown congestion control '" + name +
                              "' (known: bic, reno)");
}

}  // namespace netsim::tcp::lnx26
