// netsim results: merge a result directory and summarize it over seeds.
#include <filesystem>
#include <iostream>

#include "netsim/sweep/result_store.h"
#include "netsim/sweep/results_summary.h"
#include "sweep_commands.h"

namespace netsim::cli {

int command_results(const Options& o) {
  const std::filesystem::path dir(o.scenario_file);
  if (!std::filesystem::is_directory(dir / "runs")) {
    std::cerr << "netsim: " << (dir / "runs").string() << ": no such directory (not a sweep result directory)\n";
    return kOutputError;
  }
  std::vector<results::SweepRecord> records;
  try {
    records = sweep::ResultStore(dir).write_merged();
  } catch (const sweep::StoreError& e) {
    std::cerr << "netsim: " << e.what() << "\n";
    return kOutputError;
  }
  sweep::SummaryOptions so;
  so.group_by = o.group_by;
  if (!o.metrics.empty()) so.metrics = o.metrics;
  sweep::Summary summary;
  try {
    summary = sweep::summarize_records(records, so);
  } catch (const sweep::SummaryError& e) {
    std::cerr << "netsim: " << e.what() << "\n";
    return kUsage;
  }
  if (o.format == OutputFormat::csv) {
    sweep::write_summary_csv(std::cout, summary);
  } else {
    sweep::write_summary_text(std::cout, summary);
  }
  std::size_t failed = 0;
  for (const auto& r : records) failed += r.result().error().empty() ? 0 : 1;
  std::cerr << "netsim: " << records.size() << " records in " << dir.string() << ", " << failed << " failed\n";
  std::cout.flush();
  if (!std::cout) return kOutputError;
  return failed > 0 ? kRunFailed : kOk;
}

}  // namespace netsim::cli
