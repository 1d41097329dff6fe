// Protobuf messages as plain Python data, by reflection: a message becomes a
// dict of every field by its proto name (as netsim's JSON output names
// them), a repeated field a list, a 64-bit integer an int (not a string, as
// in JSON), an enum its value's name, bytes bytes; an unset message field or
// proto3 `optional` scalar is None.
#pragma once

#include <pybind11/pybind11.h>

#include <google/protobuf/message.h>

namespace netsim::python {

// Needs the GIL.
pybind11::dict to_python(const google::protobuf::Message& m);

}  // namespace netsim::python
