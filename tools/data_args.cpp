#include "data_args.h"

#include <iostream>

#include "netsim/scenario/scenario_cells.h"

namespace netsim::cli {

std::optional<calibrate::DataCells> load_data_args(const Options& o, const MeasuredSpec& block,
                                                    const std::string& command) {
  DataLoad loaded = load_data(o.data, block, o.scenario_file, command);
  for (const std::string& line : loaded.messages) std::cerr << line << "\n";
  return std::move(loaded.data);
}

}  // namespace netsim::cli
