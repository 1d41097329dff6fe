// The --data arguments of `netsim calibrate`: netsim::load_data with what it
// says printed on stderr.
#pragma once

#include <optional>
#include <string>

#include "cli_args.h"
#include "netsim/calibrate/measured_data_cells.h"
#include "netsim/scenario/measured_comparison.h"

namespace netsim::cli {

// The usable cells of o.data, or nothing after printing why on stderr (a
// broken mapping, or no usable measurement at all). Files that cannot be
// used are named on stderr and left out; a summary line says how many cells
// came from how many measurements, prefixed with `command`.
std::optional<calibrate::DataCells> load_data_args(const Options& o, const MeasuredSpec& block,
                                                    const std::string& command);

}  // namespace netsim::cli
