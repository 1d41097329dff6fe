#include "data_args.h"

#include <iostream>

#include "netsim/measure/measure_error.h"
#include "netsim/measure/measurement_mapping.h"

namespace netsim::cli {

std::optional<calibrate::DataCells> load_data_args(const Options& o, const MeasuredSpec& block,
                                                    const std::string& command) {
  measure::MeasurementMapping mapping;
  try {
    for (const std::string& arg : o.data) {
      const bool mapping_file = (arg.ends_with(".yaml") || arg.ends_with(".yml")) && arg.find('=') == std::string::npos;
      const measure::MeasurementMapping m =
          mapping_file ? measure::load_mapping(arg) : measure::MeasurementMapping{{measure::parse_data_arg(arg)}};
      mapping.entries.insert(mapping.entries.end(), m.entries.begin(), m.entries.end());
    }
  } catch (const measure::MeasureError& e) {
    std::cerr << e.what() << "\n";
    return std::nullopt;
  }
  calibrate::DataCells data = calibrate::cells_from_data(block, o.scenario_file, mapping);
  for (const std::string& e : data.errors) std::cerr << e << "\n";
  if (data.cells.empty()) {
    std::cerr << "netsim: " << command << ": no usable measurement in --data\n";
    return std::nullopt;
  }
  std::cerr << command << ": " << data.sources.size() << " measurements in " << data.cells.size()
            << " cells from --data"
            << (data.errors.empty() ? "" : " (" + std::to_string(data.errors.size()) + " not usable, above)") << "\n";
  return data;
}

}  // namespace netsim::cli
