// netsim.sweep and netsim.results: sweep records as a pandas DataFrame with
// the columns of a result directory's results.csv (docs/python.md).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace netsim::python {

// Runs the plan of `netsim sweep PATH --set ... --seed ... --axis ...
// --seeds N -j JOBS [--out OUT]`; without `out` nothing is written. `resume`:
// "resume", "retry-failed" or "force" (with `out`).
pybind11::object sweep(const pybind11::object& path, const pybind11::object& set, const pybind11::object& seed,
                       const pybind11::object& profile, const pybind11::object& jobs, const pybind11::object& axes,
                       const pybind11::object& seeds, const pybind11::object& out, const std::string& resume);

// A result directory's results.csv (made from DIR/runs/ in memory when the
// directory has no results.csv yet), or a CSV file.
pybind11::object results(const pybind11::object& dir_or_csv);

}  // namespace netsim::python
