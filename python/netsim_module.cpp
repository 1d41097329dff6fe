// `import netsim`: scenarios run from Python (docs/python.md).
#include <pybind11/pybind11.h>

#include "netsim/version.h"
#include "python_errors.h"
#include "python_run.h"
#include "python_sweep.h"

namespace py = pybind11;

PYBIND11_MODULE(netsim, m) {
  m.doc() =
      "netsim, a packet-level network simulator: run scenarios as `netsim run` and `netsim sweep` do.\n\n"
      "run(path, ...) -> dict of the runs and the measured comparison\n"
      "sweep(path, ...) -> pandas.DataFrame with the columns of results.csv\n"
      "results(dir_or_csv) -> pandas.DataFrame of a result directory\n"
      "See docs/python.md.";
  m.attr("__version__") = NETSIM_VERSION;
  netsim::python::add_scenario_error(m);

  m.def("run", &netsim::python::run, py::arg("path"), py::kw_only(), py::arg("set") = py::none(),
        py::arg("seed") = py::none(), py::arg("profile") = py::none(), py::arg("data") = py::none(),
        py::arg("jobs") = py::none(),
        "Runs every sweep cell of the scenario as `netsim run` does: set= overrides in order (a dict\n"
        "{key: value} or a list of 'key=value'), then seed=; profile= first (a calibration profile);\n"
        "data= measurement files for the comparison (--data); jobs= worker threads (None: all cores).\n"
        "Returns {'runs': [...], 'comparison': None or {...}}. Raises netsim.ScenarioError.");
  m.def("sweep", &netsim::python::sweep, py::arg("path"), py::kw_only(), py::arg("set") = py::none(),
        py::arg("seed") = py::none(), py::arg("profile") = py::none(), py::arg("jobs") = py::none(),
        py::arg("axes") = py::none(), py::arg("seeds") = py::none(), py::arg("out") = py::none(),
        py::arg("resume") = "resume",
        "Runs the sweep plan of `netsim sweep` (axes= as --axis, seeds= as --seeds N); with out= into that\n"
        "result directory (resumable, as --out; resume='resume', 'retry-failed' or 'force').\n"
        "Returns a pandas.DataFrame with the columns of results.csv. Raises netsim.ScenarioError.");
  m.def("results", &netsim::python::results, py::arg("dir_or_csv"),
        "A result directory's results.csv (or any CSV file netsim wrote) as a pandas.DataFrame.");
}
