// The sweep engine: runs a plan's runs (one shard of them) on worker threads,
// each run single-threaded and deterministic, storing each record as soon as
// its run ends and skipping runs already recorded.
//
//   sweep::SweepSpec spec;
//   spec.scenario_file = "scenarios/t1-loss-resilience.yaml";
//   spec.seeds = 3;
//   sweep::SweepOptions options;
//   options.out_dir = "t1-results";
//   sweep::Sweep s(sweep::make_sweep_plan(spec), options);
//   sweep::SweepSummary sum = s.run([](const sweep::RunEvent& e) { ... e.record ... });
//
// See docs/sweeps.md for a complete program.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <filesystem>

#include "netsim/results/sweep_record.pb.h"
#include "netsim/sweep/result_store.h"
#include "netsim/sweep/sweep_plan.h"

namespace netsim::sweep {

enum class ResumeMode {
  resume,        // skip every recorded run, failed or not (a failure is deterministic too)
  retry_failed,  // skip recorded successes, redo recorded failures
  force,         // redo every run of the shard, replacing its record
};

struct SweepOptions {
  unsigned jobs = 0;                           // worker threads; 0: all cores
  Shard shard;                                 // which slice of the plan to run
  std::optional<std::filesystem::path> out_dir;  // result directory; none: records only reach the callback
  ResumeMode resume = ResumeMode::resume;
};

// A finished run, handed to the callback.
struct RunEvent {
  const results::SweepRecord& record;  // record.result().error() non-empty: the run failed
  bool from_store;                     // true: recorded by an earlier sweep and skipped now
};

struct SweepSummary {
  std::size_t planned = 0;   // runs in the whole plan
  std::size_t in_shard = 0;  // runs of this shard
  std::size_t skipped = 0;   // already recorded, not rerun
  std::size_t ran = 0;       // run now (and recorded, with a store)
  std::size_t failed = 0;    // runs of this shard whose record has an error (run now or before)
  std::size_t not_run = 0;   // left out because the sweep was stopped
  bool stopped = false;
  std::vector<std::string> store_problems;  // damaged files found in the store (their runs are redone)
};

class Sweep {
 public:
  // Throws StoreError when out_dir cannot be created.
  Sweep(SweepPlan plan, SweepOptions options);

  const SweepPlan& plan() const { return plan_; }

  // Runs the shard's runs that are not recorded yet. `on_run` is called once
  // per run of the shard: first for every skipped run (from_store), then for
  // each run as it finishes, in completion order, on a worker thread, never
  // twice at once; the record is already stored when it is called. An
  // exception from a run (bad parameter combination, internal error) becomes
  // that run's error; an exception from the store or from `on_run` stops the
  // sweep (runs in flight finish) and is rethrown here.
  SweepSummary run(const std::function<void(const RunEvent&)>& on_run = {});

  // Thread-safe: no new run starts; runs in flight finish and are recorded,
  // then run() returns with stopped = true.
  void request_stop() { stop_.store(true); }

 private:
  results::SweepRecord execute(const PlannedRun& run) const;

  SweepPlan plan_;
  SweepOptions options_;
  std::optional<ResultStore> store_;
  std::atomic<bool> stop_{false};
};

}  // namespace netsim::sweep
