#include "python_errors.h"

namespace netsim::python {

namespace py = pybind11;

void add_scenario_error(py::module_& m) {
  py::dict attributes;
  attributes["__doc__"] = py::str(
      "An invalid scenario file, --set override, profile or --data argument.\n\n"
      "str(e) is the message netsim's command line prints, e.g.\n"
      "\"bad.yaml:5:25: error: field 'hosts.b.hz': ...\"; .file, .line, .column and\n"
      ".field say where (None when not known; .file is '--set' for an override).");
  for (const char* name : {"file", "line", "column", "field"}) attributes[name] = py::none();
  PyObject* type = PyErr_NewException("netsim.ScenarioError", PyExc_ValueError, attributes.ptr());
  if (type == nullptr) throw py::error_already_set();
  m.add_object("ScenarioError", py::reinterpret_steal<py::object>(type));
}

void raise_scenario_error(const std::string& message, const std::optional<std::string>& file, int line, int column,
                          const std::string& field) {
  const py::object type = py::module_::import("netsim").attr("ScenarioError");
  py::object e = type(message);
  if (file && !file->empty()) e.attr("file") = *file;
  if (line > 0) e.attr("line") = line;
  if (column > 0) e.attr("column") = column;
  if (!field.empty()) e.attr("field") = field;
  PyErr_SetObject(type.ptr(), e.ptr());
  throw py::error_already_set();
}

void raise_scenario_error(const ScenarioError& e) {
  raise_scenario_error(e.what(), e.loc.file, e.loc.line, e.loc.column, e.field);
}

}  // namespace netsim::python
