// `netsim lab`: a scenario's cells on this machine's real kernel (docs/lab.md).
#pragma once

#include <string>
#include <vector>

#include "cli_args.h"

namespace netsim::cli {

// `args` is the whole command line after the program name, for the resume hint.
int command_lab(const Options& o, const std::vector<std::string>& args);

}  // namespace netsim::cli
