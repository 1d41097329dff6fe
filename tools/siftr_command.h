// `netsim siftr compare MEASURED.log SIMULATED.log`: two SIFTR logs (one
// from a real FreeBSD host, one that `netsim run --siftr` wrote) read by the
// same reader and compared flow by flow and bin by bin.
#pragma once

#include "cli_args.h"

namespace netsim::cli {

int command_siftr(const Options& o);

}  // namespace netsim::cli
