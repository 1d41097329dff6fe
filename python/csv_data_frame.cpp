#include "csv_data_frame.h"

namespace netsim::python {
namespace {

namespace py = pybind11;

py::object read_csv(const py::object& source) {
  const py::module_ pandas = py::module_::import("pandas");
  py::dict dtype;
  dtype["key"] = py::module_::import("builtins").attr("str");
  return pandas.attr("read_csv")(source, py::arg("dtype") = dtype, py::arg("keep_default_na") = false,
                                 py::arg("na_values") = py::make_tuple(""),
                                 py::arg("float_precision") = "round_trip");
}

}  // namespace

py::object data_frame_from_csv_text(const std::string& csv) {
  return read_csv(py::module_::import("io").attr("StringIO")(csv));
}

py::object data_frame_from_csv_file(const std::string& path) { return read_csv(py::str(path)); }

}  // namespace netsim::python
