// netsim's exceptions as Python's: netsim.ScenarioError (a ValueError with
// .file, .line, .column and .field) for an invalid scenario, override or
// profile; ValueError for conflicting sweep arguments; OSError for a result
// directory that cannot be written or read.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/sweep/result_store.h"
#include "netsim/sweep/sweep_plan.h"

namespace netsim::python {

// Defines netsim.ScenarioError in `m`.
void add_scenario_error(pybind11::module_& m);

// Raises netsim.ScenarioError (looked up in the imported netsim module).
[[noreturn]] void raise_scenario_error(const std::string& message, const std::optional<std::string>& file,
                                       int line = 0, int column = 0, const std::string& field = {});
[[noreturn]] void raise_scenario_error(const ScenarioError& e);

// f(), with netsim's exceptions raised as their Python counterparts. Call it
// holding the GIL (f may release it inside).
template <typename F>
decltype(auto) python_errors(F&& f) {
  try {
    return f();
  } catch (const ScenarioError& e) {
    raise_scenario_error(e);
  } catch (const sweep::SweepUsageError& e) {
    throw pybind11::value_error(e.what());
  } catch (const sweep::StoreError& e) {
    PyErr_SetString(PyExc_OSError, e.what());
    throw pybind11::error_already_set();
  }
}

}  // namespace netsim::python
