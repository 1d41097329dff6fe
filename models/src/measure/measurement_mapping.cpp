#include "netsim/measure/measurement_mapping.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "measured_text.h"
#include "netsim/measure/measure_error.h"
#include "report_text.h"

namespace netsim::measure {
namespace {

int line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

std::string trimmed(std::string_view s) { return std::string(report_text::trim(s)); }

class MappingReader {
 public:
  explicit MappingReader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    throw MeasureError(path_, line_of(at), message);
  }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + " must be a single value");
    if (node.Scalar().empty()) fail(node, what + " must not be empty");
    return node.Scalar();
  }

  MeasurementMapping read(const YAML::Node& root) const {
    if (!root.IsMap()) fail(root, "a mapping file is a map with a 'runs' list");
    YAML::Node runs;
    for (const auto& kv : root) {
      const std::string key = scalar(kv.first, "a key");
      if (key != "runs") fail(kv.first, "unknown key '" + key + "' (expected runs)");
      runs.reset(kv.second);
    }
    if (!runs.IsDefined()) fail(root, "missing 'runs'");
    if (!runs.IsSequence() || runs.size() == 0) fail(runs, "'runs' must be a non-empty list");
    MeasurementMapping mapping;
    for (const auto& item : runs) mapping.entries.push_back(entry(item));
    return mapping;
  }

 private:
  MappingEntry entry(const YAML::Node& item) const {
    if (!item.IsMap()) fail(item, "each entry of 'runs' must be a map with file and params");
    MappingEntry e;
    e.source = path_ + ":" + std::to_string(line_of(item));
    bool has_file = false, has_params = false;
    for (const auto& kv : item) {
      const std::string key = scalar(kv.first, "a key");
      if (key == "file") {
        const std::filesystem::path file = scalar(kv.second, "'file'");
        e.file = file.is_absolute() ? file.string() : (std::filesystem::path(path_).parent_path() / file).string();
        has_file = true;
      } else if (key == "params") {
        params(kv.second, e.params);
        has_params = true;
      } else if (key == "metric") {
        e.metric = scalar(kv.second, "'metric'");
        if (!is_metric(e.metric)) fail(kv.second, "unknown metric '" + e.metric + "' (expected " + metric_list() + ")");
      } else if (key == "format") {
        const std::string format = scalar(kv.second, "'format'");
        e.format = format_from_name(format);
        if (!e.format) fail(kv.second, "unknown format '" + format + "' (expected iperf3-json, iperf3-text, iperf2, nuttcp, nstat, netstat-tcp, netstat-if, proc-net-dev, ethtool-s, ping or siftr)");
      } else if (key == "flow") {
        e.flow = scalar(kv.second, "'flow'");
      } else {
        fail(kv.first, "unknown key '" + key + "' (expected file, params, metric, format, flow)");
      }
      if (std::count_if(item.begin(), item.end(), [&](const auto& other) {
            return other.first.IsScalar() && other.first.Scalar() == key;
          }) > 1) {
        fail(kv.first, "'" + key + "' is given twice");
      }
    }
    if (!has_file) fail(item, "missing 'file'");
    if (!has_params) fail(item, "missing 'params'");
    return e;
  }

  void params(const YAML::Node& node, std::map<std::string, std::string>& out) const {
    if (node.IsNull()) return;
    if (!node.IsMap()) fail(node, "'params' must be a map of parameter names to values");
    for (const auto& kv : node) {
      const std::string key = scalar(kv.first, "a parameter name");
      const std::string value = scalar(kv.second, "parameter '" + key + "'");
      if (!out.emplace(key, value).second) fail(kv.first, "parameter '" + key + "' is given twice");
    }
  }

  static std::string metric_list() {
    std::string out;
    for (const auto& name : metric_names()) out += (out.empty() ? "" : ", ") + name;
    return out;
  }

  const std::string& path_;
};

}  // namespace

MeasurementMapping parse_mapping_text(std::string_view yaml, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw MeasureError(path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "invalid YAML: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) throw MeasureError(path, 0, "the mapping file is empty: expected 'runs:'");
  return MappingReader(path).read(root);
}

MeasurementMapping load_mapping(const std::string& path) {
  return parse_mapping_text(read_measured_text(path), path);
}

MappingEntry parse_data_arg(std::string_view arg) {
  const std::string where = "--data " + std::string(arg);
  auto fail = [&](const std::string& message) { throw MeasureError(where, 0, message); };
  MappingEntry e;
  e.source = where;
  const std::size_t colon = arg.rfind(':');
  const bool has_params = colon != std::string_view::npos && report_text::contains(arg.substr(colon + 1), "=");
  e.file = trimmed(has_params ? arg.substr(0, colon) : arg);
  if (e.file.empty()) fail("no file before the parameters");
  if (!has_params) return e;
  std::string_view list = arg.substr(colon + 1);
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view pair = list.substr(0, comma);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) fail("'" + trimmed(pair) + "' is not KEY=VALUE");
    const std::string key = trimmed(pair.substr(0, eq));
    const std::string value = trimmed(pair.substr(eq + 1));
    if (key.empty() || value.empty()) fail("'" + trimmed(pair) + "' needs a key and a value");
    if (!e.params.emplace(key, value).second) fail("parameter '" + key + "' is given twice");
    if (comma == std::string_view::npos) return e;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace netsim::measure
