// netsim.run: a scenario's cells run as `netsim run` runs them, returned as
// Python data (docs/python.md, "netsim.run").
#pragma once

#include <pybind11/pybind11.h>

namespace netsim::python {

// {"runs": [run dict, ...], "comparison": None or comparison dict}; the run
// dicts are results::RunResult through to_python.
pybind11::dict run(const pybind11::object& path, const pybind11::object& set, const pybind11::object& seed,
                   const pybind11::object& profile, const pybind11::object& data, const pybind11::object& jobs);

}  // namespace netsim::python
