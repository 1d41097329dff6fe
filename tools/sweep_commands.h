// `netsim sweep` and `netsim results`: the command-line face of netsim::sweep.
#pragma once

#include <string>
#include <vector>

#include "cli_args.h"

namespace netsim::cli {

// `args` is the whole command line after the program name, for the resume hint.
int command_sweep(const Options& o, const std::vector<std::string>& args);
int command_results(const Options& o);

}  // namespace netsim::cli
