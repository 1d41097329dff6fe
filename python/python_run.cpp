#include "python_run.h"

#include <sstream>

#include "netsim/scenario/scenario_cells.h"
#include "proto_to_python.h"
#include "python_arguments.h"
#include "python_errors.h"

namespace netsim::python {
namespace {

namespace py = pybind11;

// The simulated and measured values that a ComparisonRow and each of its
// MetricComparisons both have.
template <typename Compared>
py::dict values_dict(const Compared& c) {
  py::dict d;
  d["runs"] = c.runs;
  d["simulated"] = c.sim_mean;
  d["sim_min"] = c.sim_min;
  d["sim_max"] = c.sim_max;
  d["measured"] = c.measured;
  return d;
}

py::dict metric_dict(const MetricComparison& c) {
  py::dict d = values_dict(c);
  d["measured_runs"] = c.measured_runs;
  d["measured_min"] = c.measured_min;
  d["measured_max"] = c.measured_max;
  d["error"] = c.error;
  return d;
}

py::dict row_dict(const ComparisonRow& row, const MeasuredSpec& m) {
  py::dict keys;
  for (std::size_t k = 0; k < m.keys.size() && k < row.key_values.size(); ++k)
    keys[py::str(m.keys[k].first)] = row.key_values[k];
  py::dict metrics;
  for (std::size_t k = 0; k < m.metrics.size() && k < row.metrics.size(); ++k) {
    metrics[py::str(m.metrics[k].name)] = metric_dict(row.metrics[k]);
  }
  py::dict d;
  d["keys"] = keys;
  d.attr("update")(values_dict(row));
  d["error_pct"] = row.error_pct;
  d["metrics"] = metrics;
  return d;
}

// The measured comparison: what `netsim run` prints after the runs (text)
// and instead of them (--format csv), and its rows as data.
py::dict comparison_dict(const results::RunSet& set, const MeasuredSpec& m, const std::vector<std::string>& messages) {
  py::dict keys;
  for (const auto& [name, path] : m.keys) keys[py::str(name)] = path;
  py::list metric_names;
  for (const MeasuredMetric& k : m.metrics) metric_names.append(k.name);
  py::list rows;
  for (const ComparisonRow& row : compare(set, m)) rows.append(row_dict(row, m));
  std::ostringstream text;
  if (!m.cells.empty()) write_comparison_text(text, set, m);
  std::ostringstream csv;
  write_comparison_csv(csv, set, m);
  py::dict d;
  d["source"] = m.source;
  d["metric"] = m.metric;
  d["flow"] = m.flow;
  d["keys"] = keys;
  d["metrics"] = metric_names;
  d["rows"] = rows;
  d["text"] = text.str();
  d["csv"] = csv.str();
  py::list lines;
  for (const std::string& line : messages) lines.append(line);
  d["messages"] = lines;
  return d;
}

}  // namespace

py::dict run(const py::object& path, const py::object& set, const py::object& seed, const py::object& profile,
             const py::object& data, const py::object& jobs) {
  const std::string file = path_text(path);
  const std::optional<std::string> profile_path = optional_path(profile);
  const std::vector<std::string> data_args = data_args_from(data);
  CellRunOptions options;
  options.jobs = jobs_from(jobs);
  return python_errors([&] {
    std::vector<Override> overrides = overrides_from(set, seed);
    ComparedCells compared;
    results::RunSet runs;
    {
      py::gil_scoped_release release;
      const std::vector<ScenarioSpec> cells = load_cells(file, with_profile(profile_path, std::move(overrides)));
      compared = compared_cells(cells.front(), data_args, "run");
      if (!compared.data_unusable) runs = run_cells(cells, options);
    }
    if (compared.data_unusable) {
      std::string why;
      for (const std::string& line : compared.messages) why += (why.empty() ? "" : "\n") + line;
      raise_scenario_error(why, file);
    }
    py::dict out = to_python(runs);
    out["comparison"] = compared.measured ? py::object(comparison_dict(runs, *compared.measured, compared.messages))
                                          : py::object(py::none());
    return out;
  });
}

}  // namespace netsim::python
