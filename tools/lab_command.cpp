// netsim lab: plan every cell, check the machine, then run cells x reps on
// the real kernel with progress, resume and a clean stop on SIGINT/SIGTERM.
#include "lab_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "netsim/lab/lab_commands.h"
#include "netsim/lab/lab_host_probe.h"
#include "netsim/lab/lab_rep_runner.h"
#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sweep/atomic_file.h"
#include "netsim/sweep/progress.h"
#include "netsim/sweep/slurm_script.h"
#include "netsim/sweep/sweep_plan.h"
#include "signal_stop.h"

namespace netsim::cli {
namespace {

namespace fs = std::filesystem;

struct LabCell {
  std::size_t index = 0;              // in plan order
  std::string key;                    // the sweep run key: the cell's directory name
  std::vector<Override> overrides;    // as the sweep plan applies them
  std::vector<Override> axis_params;  // the swept parameters' values (linked axes by path)
  ScenarioSpec spec;
};

std::string params_text(const std::vector<Override>& params) {
  std::string s;
  for (const Override& p : params) s += (s.empty() ? "" : " ") + p.key + "=" + p.value;
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string yaml_quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

// status.json of a repetition: written last, atomically; its presence is what resume reads.
struct RepRecord {
  bool exists = false;
  bool ok = false;
  std::string line;  // the summary.csv fields after the params, or the error
};

RepRecord read_record(const fs::path& dir) {
  RepRecord r;
  std::ifstream in(dir / "status.txt");
  if (!in) return r;
  std::string status;
  std::getline(in, status);
  std::getline(in, r.line);
  r.exists = status == "ok" || status == "failed";
  r.ok = status == "ok";
  return r;
}

std::string opt_number(const std::optional<double>& v, int decimals) {
  return v ? format_fixed(*v, decimals) : "";
}

sweep::ProgressStyle progress_style(const std::string& p) {
  if (p == "bar") return sweep::ProgressStyle::bar;
  if (p == "lines") return sweep::ProgressStyle::lines;
  if (p == "none") return sweep::ProgressStyle::none;
  return sweep::progress_style_for(STDERR_FILENO);
}

int command_lab_clean(const Options& o) {
  if (geteuid() != 0) {
    std::cerr << "netsim: lab --clean needs root\n";
    return kLabUnavailable;
  }
  std::vector<std::string> errors;
  const std::vector<std::string> removed = lab::clean_namespaces(o.clean_all, errors);
  for (const std::string& n : removed) std::cout << "removed " << n << "\n";
  for (const std::string& e : errors) std::cerr << "netsim: " << e << "\n";
  std::cout << removed.size() << " lab namespaces removed\n";
  return errors.empty() ? kOk : kRunFailed;
}

}  // namespace

int command_lab(const Options& o, const std::vector<std::string>& args) {
  if (o.clean) return command_lab_clean(o);

  sweep::SweepPlan plan;
  try {
    plan = sweep::make_sweep_plan(sweep::SweepSpec{o.scenario_file, o.overrides, o.axes, 0});
  } catch (const sweep::SweepUsageError& e) {
    std::cerr << "netsim: " << e.what() << "\n";
    return kUsage;
  }
  // The swept paths (a linked axis by each of its paths): a cell's identity
  // in the mapping file and summary.csv. Seeds mean nothing on real hardware: --reps repeats.
  // The measured block's key paths join them, so that a key pinned with
  // --set still reaches the mapping file.
  std::vector<std::string> axis_paths;
  auto add_path = [&axis_paths](const std::string& p) {
    if (p != "seed" && std::find(axis_paths.begin(), axis_paths.end(), p) == axis_paths.end()) axis_paths.push_back(p);
  };
  for (const std::string& k : plan.axis_keys) {
    for (const std::string& p : split_linked_key(k)) add_path(p);
  }
  {
    const ScenarioSpec base = load_scenario(o.scenario_file, o.overrides);
    const YAML::Node keys = base.measured ? base.measured["keys"] : YAML::Node();
    if (keys && keys.IsMap()) {
      for (const auto& kv : keys) {
        const YAML::Node v = kv.second;
        const std::string text = v.IsScalar() ? v.Scalar() : (v.IsMap() && v["paths"] && v["paths"].IsScalar()) ? v["paths"].Scalar() : "";
        for (const std::string& p : split_linked_key(text)) {
          if (!p.empty()) add_path(p);
        }
      }
    }
  }
  std::vector<LabCell> cells;
  std::set<std::vector<std::string>> seen;
  for (const sweep::PlannedRun& r : plan.runs) {
    LabCell c;
    std::vector<std::string> identity;
    for (const std::string& p : axis_paths) {
      for (const Override& v : r.params) {
        if (v.key == p) {
          c.axis_params.push_back(v);
          identity.push_back(v.value);
        }
      }
    }
    if (!seen.insert(identity).second) continue;  // the same cell with another seed
    c.index = cells.size();
    c.key = r.key;
    c.overrides = r.overrides;
    c.spec = load_scenario(o.scenario_file, r.overrides);  // throws ScenarioError: exit 3
    cells.push_back(std::move(c));
  }

  std::set<std::string> tools;
  bool need_daemon = false;
  for (const LabCell& c : cells) {
    for (const TcpFlowSpec& t : c.spec.tcp_flows) tools.insert(t.app == "iperf2" ? "iperf" : t.app);
    for (const LinkSpec& l : c.spec.links) need_daemon = need_daemon || l.delay > 0;
  }
  tools.erase("bulk");
  const lab::HostProbe probe = lab::probe_host({tools.begin(), tools.end()}, need_daemon);
  const std::string pid = std::to_string(getpid());
  // Plan every cell before running any: a field the lab cannot honour stops
  // the command here (exit 3), not in the middle of a sweep.
  std::vector<lab::LabCellPlan> plans;
  for (const LabCell& c : cells) plans.push_back(lab::plan_lab_cell(c.spec, probe.env, pid + "-" + std::to_string(c.index)));

  if (o.dry_run) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::cout << "# cell " << i + 1 << "/" << cells.size() << " " << cells[i].key << ": "
                << params_text(cells[i].axis_params) << "\n";
      for (const lab::Command& c : lab::setup_commands(plans[i])) std::cout << lab::command_text(c) << "\n";
      if (plans[i].link.delay_us > 0) {
        for (const lab::LabEndpoint* e : {&plans[i].a, &plans[i].b})
          std::cout << lab::command_text(lab::delay_daemon_command(plans[i], e->netns, "netsim-nfq-delay",
                                                                   "delay-" + e->host + ".json"))
                    << " &\n";
      }
      for (const lab::Command& c : lab::delay_rule_commands(plans[i])) std::cout << lab::command_text(c) << "\n";
      for (const lab::LabFlow& f : plans[i].flows) {
        std::cout << lab::command_text(lab::in_netns(f.server_netns, f.server_argv)) << " &\n";
        std::cout << lab::command_text(lab::in_netns(f.client_netns, f.client_argv)) << " > " << f.output_file << "\n";
      }
      for (const lab::Command& c : lab::teardown_commands(plans[i])) std::cout << lab::command_text(c) << "\n";
    }
    return kOk;
  }
  if (!probe.problems.empty()) {
    for (const std::string& p : probe.problems) std::cerr << "netsim: lab: " << p << "\n";
    return kLabUnavailable;
  }

  const fs::path out = o.out_path ? fs::path(*o.out_path) : fs::path("lab-" + plan.scenario_name);
  try {
    fs::create_directories(out / "cells");
    sweep::write_file_atomically(out / "environment.json", lab::environment_json(probe.facts));
  } catch (const std::exception& e) {
    std::cerr << "netsim: cannot write " << out.string() << ": " << e.what() << "\n";
    return kOutputError;
  }

  const std::size_t total = cells.size() * static_cast<std::size_t>(o.reps);
  sweep::Progress progress(std::cerr, progress_style(o.progress), total);
  progress.set_label("lab");
  std::atomic<bool> stop{false};
  int signo = 0;
  std::size_t ran = 0, skipped = 0, failed = 0;
  lab::RepOptions rep_options;
  rep_options.delay_daemon = probe.delay_daemon;
  {
    SignalStop guard(
        [&](int sig) {
          progress.note(std::string("netsim: ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                        ": stopping this repetition and tearing down (again to exit at once; then netsim lab --clean)");
          stop = true;
        },
        kInterrupted);
    for (std::size_t i = 0; i < cells.size() && !stop; ++i) {
      const fs::path cell_dir = out / "cells" / cells[i].key;
      std::ostringstream params;
      for (const Override& p : cells[i].axis_params) params << p.key << "=" << p.value << "\n";
      try {
        fs::create_directories(cell_dir);
        sweep::write_file_atomically(cell_dir / "params.txt", params.str(), false);
      } catch (const std::exception& e) {
        std::cerr << "netsim: cannot write " << cell_dir.string() << ": " << e.what() << "\n";
        return kOutputError;
      }
      for (int rep = 1; rep <= o.reps && !stop; ++rep) {
        const fs::path dir = cell_dir / ("rep" + std::to_string(rep));
        const RepRecord before = read_record(dir);
        if (before.exists && o.resume != sweep::ResumeMode::force &&
            (before.ok || o.resume == sweep::ResumeMode::resume)) {
          ++skipped;
          if (!before.ok) ++failed;
          progress.add_skipped(1, before.ok ? 0 : 1);
          continue;
        }
        std::error_code ec;
        fs::remove_all(dir, ec);
        const lab::LabCellPlan rep_plan =
            lab::plan_lab_cell(cells[i].spec, probe.env, pid + "-" + std::to_string(i) + "-" + std::to_string(rep));
        std::string status, line;
        try {
          const lab::RepFigures f = lab::run_lab_rep(rep_plan, dir, rep_options, stop);
          status = "ok";
          line = format_double_roundtrip(f.sender_mbps) + "," + format_double_roundtrip(f.receiver_mbps) + "," +
                 std::to_string(f.retransmits) + "," + (f.filter_drops ? std::to_string(*f.filter_drops) : "") + "," +
                 opt_number(f.delay_p50_us, 0) + "," + opt_number(f.delay_p99_us, 0) + ",";
          progress.note("cell " + std::to_string(i + 1) + "/" + std::to_string(cells.size()) + " rep " +
                        std::to_string(rep) + " (" + params_text(cells[i].axis_params) + "): " +
                        format_fixed(f.receiver_mbps, 1) + " Mbit/s, " + std::to_string(f.retransmits) +
                        " retransmits" + (f.delay_p50_us ? ", delay p50 " + opt_number(f.delay_p50_us, 0) + " us" : ""));
        } catch (const lab::LabError& e) {
          if (stop) break;  // interrupted: nothing recorded, the repetition reruns on resume
          status = "failed";
          line = ",,,,,," + csv_field(e.what());
          progress.note("netsim: cell " + std::to_string(i + 1) + " rep " + std::to_string(rep) + " failed: " + e.what());
        } catch (const std::exception& e) {
          if (stop) break;
          status = "failed";
          line = ",,,,,," + csv_field(e.what());
          progress.note("netsim: cell " + std::to_string(i + 1) + " rep " + std::to_string(rep) + " failed: " + e.what());
        }
        try {
          sweep::write_file_atomically(dir / "status.txt", status + "\n" + line + "\n", false);
        } catch (const std::exception& e) {
          std::cerr << "netsim: cannot write " << (dir / "status.txt").string() << ": " << e.what() << "\n";
          return kOutputError;
        }
        ++ran;
        if (status != "ok") ++failed;
        progress.run_done(status != "ok");
      }
    }
    signo = guard.received();
  }
  progress.finish();

  // summary.csv and measurements.yaml from every recorded repetition, in plan order.
  std::string csv, yaml = "# netsim lab " + o.scenario_file + ": the measurements for netsim run/calibrate --data\nruns:\n";
  for (const std::string& p : axis_paths) csv += csv_field(p) + ",";
  csv += "rep,status,sender_mbps,receiver_mbps,retransmits,filter_drops,delay_p50_us,delay_p99_us,error\n";
  std::size_t entries = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    for (int rep = 1; rep <= o.reps; ++rep) {
      const fs::path rel = fs::path("cells") / cells[i].key / ("rep" + std::to_string(rep));
      const RepRecord r = read_record(out / rel);
      if (!r.exists) continue;
      for (const Override& p : cells[i].axis_params) csv += csv_field(p.value) + ",";
      csv += std::to_string(rep) + "," + (r.ok ? "ok" : "failed") + "," + r.line + "\n";
      if (!r.ok) continue;
      for (const lab::LabFlow& f : plans[i].flows) {
        yaml += "  - { file: " + yaml_quoted((rel / f.output_file).string()) + ", format: " + f.output_format;
        if (plans[i].flows.size() > 1) yaml += ", flow: " + yaml_quoted(f.name);
        yaml += ", params: {";
        for (std::size_t k = 0; k < cells[i].axis_params.size(); ++k)
          yaml += std::string(k ? ", " : " ") + cells[i].axis_params[k].key + ": " + yaml_quoted(cells[i].axis_params[k].value);
        yaml += " } }\n";
        ++entries;
      }
    }
  }
  try {
    sweep::write_file_atomically(out / "summary.csv", csv);
    if (entries > 0) sweep::write_file_atomically(out / "measurements.yaml", yaml);
  } catch (const std::exception& e) {
    std::cerr << "netsim: cannot write " << out.string() << ": " << e.what() << "\n";
    return kOutputError;
  }
  std::cerr << "netsim: lab " << cells.size() << " cells x " << o.reps << " reps: " << ran << " run now, " << skipped
            << " already recorded, " << failed << " failed; " << (out / "summary.csv").string();
  if (entries > 0) std::cerr << ", " << (out / "measurements.yaml").string();
  std::cerr << "\n";
  if (stop) {
    std::cerr << "netsim: interrupted" << (signo == SIGTERM ? " by SIGTERM" : " by SIGINT")
              << "; finished repetitions are recorded. To resume, run the same command again:\n  " << command_line(args)
              << "\n";
    return kInterrupted;
  }
  return failed > 0 ? kRunFailed : kOk;
}

}  // namespace netsim::cli
