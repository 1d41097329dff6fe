// Shared by the measure_*_test.cpp files.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netsim/measure/measure_error.h"
#include "netsim/measure/measurement_file.h"

namespace netsim::measure::test_support {

// The sample measurement files.
inline const std::string kData = std::string(NETSIM_SOURCE_DIR) + "/tests/data/measure/";

// The MeasureError `fn` throws; a test failure (and an empty error) if none.
template <typename F>
MeasureError thrown(F&& fn) {
  try {
    fn();
  } catch (const MeasureError& e) {
    return e;
  }
  ADD_FAILURE() << "no MeasureError thrown";
  return MeasureError("", 0, "");
}

// The runs of a sample file, which must load without errors.
inline std::vector<MeasuredRun> runs_of(const std::string& name) {
  const LoadedMeasurements loaded = load_measurement_file(kData + name);
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors.front().what());
  return loaded.runs;
}

// The one error of a broken sample file (which then yields no run), as text.
inline std::string file_error(const std::string& name) {
  const LoadedMeasurements loaded = load_measurement_file(kData + name);
  EXPECT_TRUE(loaded.runs.empty());
  return loaded.errors.size() == 1 ? std::string(loaded.errors.front().what()) : "expected one error";
}

// The error parse_measurements gives for `text` read as `format`, as text.
inline std::string parse_error(const std::string& text, MeasurementFormat format) {
  return thrown([&] { parse_measurements(text, "t.txt", format); }).what();
}

}  // namespace netsim::measure::test_support
