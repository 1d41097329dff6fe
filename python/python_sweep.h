// netsim.sweep and netsim.results: sweep records as a pandas DataFrame with
// the columns of a result directory's results.csv (docs/python.md).
#pragma once

#include <pybind11/pybind11.h>

namespace netsim::python {

// Runs the plan of `netsim sweep PATH --set ... --seed ... --axis ...
// --seeds N -j JOBS [--out OUT]`; without `out` nothing is written. `resume`:
// "resume", "retry-failed" or "force" (with `out`).
pybind11::object sweep(pybind11::handle path, pybind11::handle set, pybind11::handle seed, pybind11::handle profile,
                       pybind11::handle jobs, pybind11::handle axes, pybind11::handle seeds, pybind11::handle out,
                       const std::string& resume);

// A result directory's results.csv (made from DIR/runs/ in memory when the
// directory has no results.csv yet), or a CSV file.
pybind11::object results(pybind11::handle dir_or_csv);

}  // namespace netsim::python
