// netsim sweep: plan, (optionally) emit a Slurm array script, or run the
// shard into the result directory with progress and a clean SIGINT stop.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "netsim/scenario/scenario_loader.h"
#include "netsim/sweep/atomic_file.h"
#include "netsim/sweep/progress.h"
#include "netsim/sweep/slurm_script.h"
#include "signal_stop.h"
#include "sweep_commands.h"

namespace netsim::cli {
namespace {

constexpr std::size_t kDefaultSlurmShards = 16;

std::string params_text(const results::SweepRecord& r) {
  std::string s;
  for (const auto& p : r.params()) s += (s.empty() ? "" : " ") + p.key() + "=" + p.value();
  return s;
}

int emit_slurm(const Options& o, const sweep::SweepPlan& plan) {
  namespace fs = std::filesystem;
  const fs::path out = fs::absolute(*o.out_path).lexically_normal();
  sweep::SlurmScriptOptions so;
  std::error_code ec;
  so.netsim = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) so.netsim = "netsim";  // not Linux: rely on PATH
  so.out_dir = out.string();
  so.cpus_per_task = o.jobs != 0 ? o.jobs : 1;
  so.shards = std::min(o.slurm_shards != 0 ? o.slurm_shards : kDefaultSlurmShards, plan.runs.size());
  auto& a = so.sweep_args;
  a.push_back(fs::absolute(o.scenario_file).lexically_normal().string());
  for (const Override& s : o.overrides) a.insert(a.end(), {"--set", format_override(s)});
  for (const sweep::AxisArg& x : o.axes) {
    std::string values;
    for (const auto& v : x.values) values += (values.empty() ? "" : ",") + v;
    a.insert(a.end(), {"--axis", x.key + "=" + values});
  }
  if (o.seeds != 0) a.insert(a.end(), {"--seeds", std::to_string(o.seeds)});
  if (o.resume == sweep::ResumeMode::retry_failed) a.push_back("--retry-failed");
  if (o.resume == sweep::ResumeMode::force) a.push_back("--force");
  a.insert(a.end(), {"-j", std::to_string(so.cpus_per_task), "--out", so.out_dir, "--progress", "lines"});

  const fs::path script = out / "sweep.sbatch";
  try {
    fs::create_directories(out / "slurm");
    sweep::write_file_atomically(script, sweep::slurm_script(so));
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
  } catch (const std::exception& e) {
    std::cerr << "netsim: cannot write " << script.string() << ": " << e.what() << "\n";
    return kOutputError;
  }
  std::cout << "wrote " << script.string() << ": " << plan.runs.size() << " runs in " << so.shards
            << " array tasks of " << so.cpus_per_task << " CPU(s)\n"
            << "submit: sbatch " << sweep::shell_quote(script.string()) << "\n"
            << "merge:  netsim results " << sweep::shell_quote(out.string()) << "\n";
  return kOk;
}

sweep::ProgressStyle progress_style(const std::string& p) {
  if (p == "bar") return sweep::ProgressStyle::bar;
  if (p == "lines") return sweep::ProgressStyle::lines;
  if (p == "none") return sweep::ProgressStyle::none;
  return sweep::progress_style_for(STDERR_FILENO);
}

}  // namespace

int command_sweep(const Options& o, const std::vector<std::string>& args) {
  sweep::SweepPlan plan;
  try {
    plan = sweep::make_sweep_plan(sweep::SweepSpec{o.scenario_file, o.overrides, o.axes, o.seeds});
  } catch (const sweep::SweepUsageError& e) {
    std::cerr << "netsim: " << e.what() << "\n";
    return kUsage;
  }
  if (o.emit_slurm) return emit_slurm(o, plan);

  const sweep::Shard shard = o.shard.value_or(sweep::Shard{});
  std::size_t in_shard = 0;
  for (const auto& r : plan.runs) in_shard += shard.contains(r.index) ? 1 : 0;
  const std::string dir = *o.out_path;

  std::optional<sweep::Sweep> sw;
  try {
    sw.emplace(std::move(plan), sweep::SweepOptions{o.jobs, shard, std::filesystem::path(dir), o.resume});
  } catch (const sweep::StoreError& e) {
    std::cerr << "netsim: " << e.what() << "\n";
    return kOutputError;
  }
  sweep::Progress progress(std::cerr, progress_style(o.progress), in_shard);
  sweep::SweepSummary sum;
  int signo = 0;
  try {
    SignalStop stop(
        [&](int sig) {
          progress.note(std::string("netsim: ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                        ": stopping after the runs in flight (again to exit at once)");
          sw->request_stop();
        },
        kInterrupted);
    sum = sw->run([&](const sweep::RunEvent& e) {
      const bool failed = !e.record.result().error().empty();
      if (e.from_store) {
        progress.add_skipped(1, failed ? 1 : 0);
        return;
      }
      if (failed) {
        progress.note("netsim: run " + e.record.key() + " failed (" + params_text(e.record) + "): " +
                      e.record.result().error());
      }
      progress.run_done(failed);
    });
    signo = stop.received();
  } catch (const sweep::StoreError& e) {
    progress.finish();
    std::cerr << "netsim: " << e.what() << "\nnetsim: runs recorded so far are kept in " << dir << "\n";
    return kOutputError;
  }
  progress.finish();
  for (const auto& p : sum.store_problems) std::cerr << "netsim: warning: " << p << "\n";

  std::size_t merged = 0;
  try {
    merged = sw->plan().runs.empty() ? 0 : sweep::ResultStore(dir).write_merged().size();
  } catch (const sweep::StoreError& e) {
    std::cerr << "netsim: " << e.what() << "\n";
    return kOutputError;
  }
  std::cerr << "netsim: " << sum.in_shard << " runs";
  if (shard.count > 1) std::cerr << " in shard " << shard.index << "/" << shard.count << " (of " << sum.planned << ")";
  std::cerr << ": " << sum.ran << " run now, " << sum.skipped << " already recorded, " << sum.failed << " failed";
  if (sum.not_run > 0) std::cerr << ", " << sum.not_run << " not run";
  std::cerr << "; " << merged << " records merged into " << dir << "/results.{csv,jsonl}\n";
  if (sum.stopped) {
    std::cerr << "netsim: interrupted" << (signo == SIGTERM ? " by SIGTERM" : signo == SIGINT ? " by SIGINT" : "")
              << "; every finished run is recorded. To resume, run the same command again:\n  "
              << command_line(args) << "\n";
    return kInterrupted;
  }
  if (sum.failed > 0) {
    std::cerr << "netsim: " << sum.failed << " runs failed; their errors are in the records (status failed in "
              << dir << "/results.csv); --retry-failed reruns them\n";
    return kRunFailed;
  }
  return kOk;
}

}  // namespace netsim::cli
