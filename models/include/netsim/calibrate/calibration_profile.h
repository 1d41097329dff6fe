// Calibration profiles: what `netsim calibrate` writes and `netsim run
// --profile` reads. A profile is YAML: a header comment with the command
// that produced it, the fit's settings and data, the fitted `parameters`
// (value and bounds, in the units the scenario's calibrate block used), the
// residual of every cell and the MAPE of fitted and predicted cells. Only
// `parameters` is read back; the rest documents the fit.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "netsim/calibrate/calibration.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim::calibrate {

// `command` is the command line that produced the result (written into the
// header so anyone can redo the fit).
void write_calibration_profile(std::ostream& out, const CalibrationResult& r, const std::string& command);

struct CalibrationProfile {
  std::string file;
  std::string scenario;             // the scenario the profile was fitted for ("" if not said)
  std::vector<Override> overrides;  // one per path, in the profile's order
};

// Reads a profile's `parameters:` ("path" or "a.x + b.y" -> value, or ->
// { value: ..., ... }). Throws ScenarioError naming the file, line and field.
CalibrationProfile load_calibration_profile(const std::string& path);
CalibrationProfile parse_calibration_profile(const std::string& text, const std::string& filename);

}  // namespace netsim::calibrate
