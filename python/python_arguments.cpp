#include "python_arguments.h"

#include <string_view>

#include "netsim/scenario/scenario_loader.h"

namespace netsim::python {
namespace {

namespace py = pybind11;

bool is_sequence(py::handle v) { return py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v); }

// A string inside a flow collection: plain when YAML reads it back as the
// same string, else double-quoted (JSON's quoting is YAML's too).
std::string flow_string(const std::string& s) {
  static constexpr std::string_view plain_chars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-/";
  const bool plain = !s.empty() && s.find_first_not_of(plain_chars) == std::string::npos && s.front() != '-' &&
                     s != "null" && s != "true" && s != "false" && s != "~";
  if (plain) return s;
  return py::module_::import("json").attr("dumps")(s).cast<std::string>();
}

std::string yaml_value(py::handle v, bool nested) {
  if (v.is_none()) return "null";
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(v)) {
    const std::string s = v.cast<std::string>();
    return nested ? flow_string(s) : s;
  }
  if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)) return py::repr(v).cast<std::string>();
  if (py::isinstance<py::dict>(v)) {
    std::string out = "{";
    for (const auto& [key, item] : v.cast<py::dict>()) {
      out += (out.size() > 1 ? ", " : "") + yaml_value(key, true) + ": " + yaml_value(item, true);
    }
    return out + "}";
  }
  if (is_sequence(v)) {
    std::string out = "[";
    for (const py::handle item : v) out += (out.size() > 1 ? ", " : "") + yaml_value(item, true);
    return out + "]";
  }
  if (py::hasattr(v, "__fspath__")) return yaml_value(py::module_::import("os").attr("fspath")(v), nested);
  throw py::type_error("cannot write a " + py::str(py::type::of(v).attr("__name__")).cast<std::string>() +
                       " as a scenario value: use str, int, float, bool, None, dict or list");
}

// key=value through parse_override, so that a key is checked as --set checks it.
Override override_of(const std::string& key, py::handle value) {
  return parse_override(key + "=" + yaml_value(value, false));
}

}  // namespace

std::string path_text(py::handle path) { return py::module_::import("os").attr("fspath")(path).cast<std::string>(); }

std::optional<std::string> optional_path(py::handle path) {
  if (path.is_none()) return std::nullopt;
  return path_text(path);
}

std::string yaml_text(py::handle value) { return yaml_value(value, false); }

std::vector<Override> overrides_from(py::handle set, py::handle seed) {
  std::vector<Override> out;
  if (py::isinstance<py::dict>(set)) {
    for (const auto& [key, value] : set.cast<py::dict>()) out.push_back(override_of(py::str(key), value));
  } else if (is_sequence(set)) {
    for (const py::handle item : set) {
      if (py::isinstance<py::str>(item)) {
        out.push_back(parse_override(item.cast<std::string>()));
      } else if (is_sequence(item) && py::len(item) == 2) {
        const py::sequence pair = item.cast<py::sequence>();
        out.push_back(override_of(py::str(pair[0]), pair[1]));
      } else {
        throw py::type_error("set: each item must be a 'key=value' str or a (key, value) pair");
      }
    }
  } else if (!set.is_none()) {
    throw py::type_error("set: expected a dict {key: value} or a list of 'key=value' strings");
  }
  if (!seed.is_none()) {
    if (!py::isinstance<py::int_>(seed) || py::isinstance<py::bool_>(seed) || seed.cast<py::int_>() < py::int_(0)) {
      throw py::value_error("seed: expected a non-negative int");
    }
    out.push_back(Override{"seed", py::str(seed).cast<std::string>()});
  }
  return out;
}

std::vector<std::string> data_args_from(py::handle data) {
  std::vector<std::string> out;
  if (data.is_none()) return out;
  if (!is_sequence(data)) return {path_text(data)};
  for (const py::handle item : data) out.push_back(path_text(item));
  return out;
}

namespace {

// None: 0; else an int >= 1.
std::uint64_t positive_or_none(py::handle v, const char* what) {
  if (v.is_none()) return 0;
  if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v) || v.cast<py::int_>() < py::int_(1)) {
    throw py::value_error(std::string(what) + ": expected None or a positive int");
  }
  return v.cast<std::uint64_t>();
}

}  // namespace

unsigned jobs_from(py::handle jobs) {
  const std::uint64_t j = positive_or_none(jobs, "jobs");
  if (j > 4096) throw py::value_error("jobs: at most 4096");
  return static_cast<unsigned>(j);
}

std::uint64_t seeds_from(py::handle seeds) { return positive_or_none(seeds, "seeds"); }

std::vector<sweep::AxisArg> axes_from(py::handle axes) {
  std::vector<sweep::AxisArg> out;
  if (py::isinstance<py::dict>(axes)) {
    for (const auto& [key, values] : axes.cast<py::dict>()) {
      sweep::AxisArg a{py::str(key).cast<std::string>(), {}};
      if (is_sequence(values)) {
        for (const py::handle v : values) a.values.push_back(yaml_text(v));
      } else {
        a.values.push_back(yaml_text(values));
      }
      out.push_back(std::move(a));
    }
  } else if (is_sequence(axes)) {
    for (const py::handle item : axes) out.push_back(sweep::parse_axis(item.cast<std::string>()));
  } else if (!axes.is_none()) {
    throw py::type_error("axes: expected a dict {key: [values]} or a list of 'key=v1,v2' strings");
  }
  return out;
}

}  // namespace netsim::python
