#include "netsim/sweep/sweep.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"
#include "netsim/sim/parallel_for.h"

namespace netsim::sweep {

Sweep::Sweep(SweepPlan plan, SweepOptions options) : plan_(std::move(plan)), options_(std::move(options)) {
  if (options_.out_dir) store_.emplace(*options_.out_dir);
}

results::SweepRecord Sweep::execute(const PlannedRun& run) const {
  results::SweepRecord rec;
  rec.set_key(run.key);
  rec.set_run_index(run.index);
  rec.set_run_count(plan_.runs.size());
  add_overrides(*rec.mutable_params(), run.params);
  try {
    // Parsing the text read at planning time: every run sees the file the key was made from.
    const ScenarioSpec spec = parse_scenario_text(plan_.scenario_text, plan_.scenario_file, run.overrides);
    *rec.mutable_result() = run_scenario(spec);
  } catch (const std::exception& e) {
    std::uint64_t seed = 0;
    for (const Override& p : run.params) {
      if (p.key == "seed") seed = std::strtoull(p.value.c_str(), nullptr, 10);
    }
    *rec.mutable_result() = run_result_header(plan_.scenario_name, plan_.scenario_file, seed, run.overrides);
    rec.mutable_result()->set_error(e.what());
  }
  return rec;
}

SweepSummary Sweep::run(const std::function<void(const RunEvent&)>& on_run) {
  SweepSummary sum;
  sum.planned = plan_.runs.size();
  ResultStore::Contents stored;
  if (store_ && options_.resume != ResumeMode::force) {
    stored = store_->load();
    sum.store_problems = stored.problems;
  }

  std::vector<const PlannedRun*> todo;
  std::vector<const results::SweepRecord*> done;
  for (const PlannedRun& run : plan_.runs) {
    if (!options_.shard.contains(run.index)) continue;
    ++sum.in_shard;
    const auto it = stored.by_key.find(run.key);
    const bool redo = it == stored.by_key.end() ||
                      (options_.resume == ResumeMode::retry_failed && !it->second.result().error().empty());
    if (redo) {
      todo.push_back(&run);
    } else {
      done.push_back(&it->second);
    }
  }
  sum.skipped = done.size();
  std::mutex mu;  // serializes on_run and guards sum and first_error
  std::exception_ptr first_error;
  for (const results::SweepRecord* r : done) {
    if (!r->result().error().empty()) ++sum.failed;
    if (on_run && !first_error) {
      try {
        on_run(RunEvent{*r, true});
      } catch (...) {
        first_error = std::current_exception();
      }
    }
  }
  if (first_error) std::rethrow_exception(first_error);

  // Runs are independent simulations: workers take the next index, so the
  // set of records (not their completion order) is what is deterministic.
  // After a stop the remaining indices are taken and skipped.
  parallel_for(todo.size(), options_.jobs, [&](std::size_t i) {
    if (stop_.load()) return;
    results::SweepRecord rec = execute(*todo[i]);
    try {
      if (store_) store_->put(rec);
      std::lock_guard<std::mutex> lock(mu);
      ++sum.ran;
      if (!rec.result().error().empty()) ++sum.failed;
      if (on_run) on_run(RunEvent{rec, false});
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!first_error) first_error = std::current_exception();
      stop_.store(true);
    }
  });
  if (store_) store_->sync();
  if (first_error) std::rethrow_exception(first_error);
  sum.not_run = todo.size() - sum.ran;
  sum.stopped = sum.not_run > 0;
  return sum;
}

}  // namespace netsim::sweep
