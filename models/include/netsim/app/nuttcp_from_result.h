// Turns the nuttcp part of a run's results (results::NuttcpResult, filled by
// the scenario runner for `app: nuttcp` flows) into the report model of
// nuttcp_report.h, so that `netsim run --format nuttcp` prints what the
// nuttcp client would have printed for the simulated test.
#pragma once

#include "netsim/app/nuttcp_report.h"
#include "netsim/results/run_result.pb.h"

namespace netsim::app {

NuttcpReport nuttcp_report_from_result(const results::NuttcpResult& r);

}  // namespace netsim::app
