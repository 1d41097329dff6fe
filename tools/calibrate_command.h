// `netsim calibrate`: fit a scenario's calibrate: parameters, print the report, write the profile.
#pragma once

#include <string>
#include <vector>

#include "cli_args.h"

namespace netsim::cli {

// `args` is the whole command line after the program name, recorded in the profile.
int command_calibrate(const Options& o, const std::vector<std::string>& args);

}  // namespace netsim::cli
