// The Python module's arguments as netsim's own: paths, --set overrides,
// seeds, --data lists, -j, --axis.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netsim/scenario/scenario_spec.h"
#include "netsim/sweep/sweep_plan.h"

namespace netsim::python {

// A str or os.PathLike as a path string (os.fspath).
std::string path_text(pybind11::handle path);
// None, else path_text.
std::optional<std::string> optional_path(pybind11::handle path);

// A value as the YAML text of a --set value: a str as it is; True/False as
// true/false; a number as Python writes it; None as null; a dict or a
// list/tuple as a YAML flow map or sequence ({a: 1, b: [x, y]}), with strings
// inside quoted where YAML could read them otherwise.
std::string yaml_text(pybind11::handle value);

// `set=` and `seed=` as the command line's --set ... --seed in that order:
// `set` is None, a dict {key: value} (in its order), or a list of
// "key=value" strings or (key, value) pairs; `seed` None or an int.
// Throws ScenarioError (as --set does) for a bad key, py::type_error otherwise.
std::vector<Override> overrides_from(pybind11::handle set, pybind11::handle seed);

// `data=`: None, one path or measurement argument, or a list of them.
std::vector<std::string> data_args_from(pybind11::handle data);

// `jobs=`: None (all cores: 0) or a positive int; py::value_error otherwise.
unsigned jobs_from(pybind11::handle jobs);

// `axes=`: None, a dict {key: [values]} (or one value), or a list of
// "key=v1,v2" strings as --axis takes them.
std::vector<sweep::AxisArg> axes_from(pybind11::handle axes);

// `seeds=`: None (0: the scenario's own seeds) or a positive int.
std::uint64_t seeds_from(pybind11::handle seeds);

}  // namespace netsim::python
