// netsim.run: a scenario's cells run as `netsim run` runs them, returned as
// Python data (docs/python.md, "netsim.run").
#pragma once

#include <pybind11/pybind11.h>

namespace netsim::python {

// {"runs": [run dict, ...], "comparison": None or comparison dict}; the run
// dicts are results::RunResult through to_python.
pybind11::dict run(pybind11::handle path, pybind11::handle set, pybind11::handle seed, pybind11::handle profile,
                   pybind11::handle data, pybind11::handle jobs);

}  // namespace netsim::python
