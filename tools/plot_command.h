// `netsim plot compare|trace|intervals`: pictures through gnuplot (docs/plots.md).
#pragma once

#include "cli_args.h"

namespace netsim::cli {

int command_plot(const Options& o);

}  // namespace netsim::cli
