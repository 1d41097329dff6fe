#include "python_sweep.h"

#include <filesystem>
#include <sstream>

#include "csv_data_frame.h"
#include "netsim/scenario/scenario_cells.h"
#include "netsim/sweep/record_tables.h"
#include "netsim/sweep/result_store.h"
#include "netsim/sweep/sweep.h"
#include "python_arguments.h"
#include "python_errors.h"

namespace netsim::python {
namespace {

namespace py = pybind11;
namespace fs = std::filesystem;

sweep::ResumeMode resume_mode(const std::string& resume) {
  if (resume == "resume") return sweep::ResumeMode::resume;
  if (resume == "retry-failed") return sweep::ResumeMode::retry_failed;
  if (resume == "force") return sweep::ResumeMode::force;
  throw py::value_error("resume: expected 'resume', 'retry-failed' or 'force', got '" + resume + "'");
}

py::object records_frame(const std::vector<results::SweepRecord>& records) {
  std::ostringstream csv;
  sweep::write_records_csv(csv, records);
  return data_frame_from_csv_text(csv.str());
}

void warn(const std::string& message) { py::module_::import("warnings").attr("warn")(message); }

}  // namespace

py::object sweep(const py::object& path, const py::object& set, const py::object& seed, const py::object& profile,
                 const py::object& jobs, const py::object& axes, const py::object& seeds, const py::object& out,
                 const std::string& resume) {
  sweep::SweepSpec spec;
  spec.scenario_file = path_text(path);
  spec.axes = axes_from(axes);
  spec.seeds = seeds_from(seeds);
  const std::optional<std::string> profile_path = optional_path(profile);
  sweep::SweepOptions options;
  options.jobs = jobs_from(jobs);
  options.resume = resume_mode(resume);
  if (const std::optional<std::string> dir = optional_path(out)) options.out_dir = fs::path(*dir);
  return python_errors([&] {
    std::vector<Override> overrides = overrides_from(set, seed);
    sweep::ResultStore::Contents ran;
    std::vector<results::SweepRecord> records;
    sweep::SweepSummary sum;
    {
      py::gil_scoped_release release;
      spec.sets = with_profile(profile_path, std::move(overrides));
      sweep::Sweep sw(sweep::make_sweep_plan(spec), options);
      // on_run is never called twice at once.
      sum = sw.run([&](const sweep::RunEvent& e) { ran.by_key[e.record.key()] = e.record; });
      if (!options.out_dir) {
        records = sweep::ResultStore::ordered(ran);
      } else if (!sw.plan().runs.empty()) {
        records = sweep::ResultStore(*options.out_dir).write_merged();
      }
    }
    for (const std::string& p : sum.store_problems) warn("netsim: " + p);
    return records_frame(records);
  });
}

py::object results(const py::object& dir_or_csv) {
  const fs::path p(path_text(dir_or_csv));
  if (!fs::is_directory(p)) {
    if (!fs::exists(p)) {
      PyErr_SetString(PyExc_FileNotFoundError, (p.string() + ": no such file or directory").c_str());
      throw py::error_already_set();
    }
    return data_frame_from_csv_file(p.string());
  }
  if (fs::exists(p / "results.csv")) return data_frame_from_csv_file((p / "results.csv").string());
  if (!fs::is_directory(p / "runs")) {
    PyErr_SetString(PyExc_FileNotFoundError,
                    (p.string() + ": no results.csv and no runs/ (not a sweep result directory)").c_str());
    throw py::error_already_set();
  }
  return python_errors([&] {
    std::vector<results::SweepRecord> records;
    {
      py::gil_scoped_release release;
      records = sweep::ResultStore::ordered(sweep::ResultStore(p).load());
    }
    return records_frame(records);
  });
}

}  // namespace netsim::python
