// Shared by the measure_*_test.cpp files.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "netsim/measure/measure_error.h"

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

}  // namespace netsim::measure::test_support
