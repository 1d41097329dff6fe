// CSV text, as netsim's writers produce it, into a pandas DataFrame: the
// columns are the CSV header's, in its order (pandas is imported here, on
// first use). The run key column stays text (a key of decimal digits only
// would otherwise read as a number); doubles are read back exactly (the
// writers print the shortest text that round-trips); an empty field is NaN.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace netsim::python {

pybind11::object data_frame_from_csv_text(const std::string& csv);
pybind11::object data_frame_from_csv_file(const std::string& path);

}  // namespace netsim::python
