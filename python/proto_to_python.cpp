#include "proto_to_python.h"

#include <string>

#include <google/protobuf/descriptor.h>

namespace netsim::python {
namespace {

namespace py = pybind11;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Field f of m: the singular value when i < 0, else element i of the repeated field.
py::object value(const Message& m, const Reflection& r, const FieldDescriptor& f, int i) {
  const bool one = i < 0;
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return py::int_(one ? r.GetInt32(m, &f) : r.GetRepeatedInt32(m, &f, i));
    case FieldDescriptor::CPPTYPE_INT64: return py::int_(one ? r.GetInt64(m, &f) : r.GetRepeatedInt64(m, &f, i));
    case FieldDescriptor::CPPTYPE_UINT32: return py::int_(one ? r.GetUInt32(m, &f) : r.GetRepeatedUInt32(m, &f, i));
    case FieldDescriptor::CPPTYPE_UINT64: return py::int_(one ? r.GetUInt64(m, &f) : r.GetRepeatedUInt64(m, &f, i));
    case FieldDescriptor::CPPTYPE_DOUBLE: return py::float_(one ? r.GetDouble(m, &f) : r.GetRepeatedDouble(m, &f, i));
    case FieldDescriptor::CPPTYPE_FLOAT: return py::float_(one ? r.GetFloat(m, &f) : r.GetRepeatedFloat(m, &f, i));
    case FieldDescriptor::CPPTYPE_BOOL: return py::bool_(one ? r.GetBool(m, &f) : r.GetRepeatedBool(m, &f, i));
    case FieldDescriptor::CPPTYPE_ENUM: return py::str((one ? r.GetEnum(m, &f) : r.GetRepeatedEnum(m, &f, i))->name());
    case FieldDescriptor::CPPTYPE_STRING: {
      const std::string s = one ? r.GetString(m, &f) : r.GetRepeatedString(m, &f, i);
      if (f.type() == FieldDescriptor::TYPE_BYTES) return py::bytes(s);
      return py::str(s);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: return to_python(one ? r.GetMessage(m, &f) : r.GetRepeatedMessage(m, &f, i));
  }
  return py::none();
}

}  // namespace

py::dict to_python(const Message& m) {
  py::dict out;
  const google::protobuf::Descriptor& d = *m.GetDescriptor();
  const Reflection& r = *m.GetReflection();
  for (int k = 0; k < d.field_count(); ++k) {
    const FieldDescriptor& f = *d.field(k);
    const py::str name(f.name());
    if (f.is_repeated()) {
      py::list items;
      for (int i = 0; i < r.FieldSize(m, &f); ++i) items.append(value(m, r, f, i));
      out[name] = std::move(items);
    } else if (f.has_presence() && !r.HasField(m, &f)) {
      out[name] = py::none();
    } else {
      out[name] = value(m, r, f, -1);
    }
  }
  return out;
}

}  // namespace netsim::python
