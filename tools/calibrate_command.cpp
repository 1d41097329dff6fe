// `netsim calibrate`: the command-line face of netsim::calibrate.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "calibrate_command.h"
#include "netsim/calibrate/calibration.h"
#include "netsim/calibrate/calibration_profile.h"

namespace netsim::cli {
namespace {

std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"\\$`*?[]{}()<>|;&!#~") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string default_profile_path(const std::string& scenario_file) {
  return std::filesystem::path(scenario_file).stem().string() + ".profile.yaml";
}

}  // namespace

int command_calibrate(const Options& o, const std::vector<std::string>& args) {
  calibrate::CalibrationOptions co;
  co.overrides = o.overrides;
  co.jobs = o.jobs;
  co.max_evaluations = o.max_evaluations;
  if (!o.data.empty()) {
    std::cerr << "netsim: calibrate: --data is not available in this build\n";
    return kUsage;
  }
  co.progress = [](const calibrate::EvaluationProgress& p) {
    std::fprintf(stderr, "calibrate: evaluation %d:", p.evaluation);
    for (const std::string& v : p.values) std::fprintf(stderr, " %s", v.c_str());
    std::fprintf(stderr, "  objective %.5f  best %.5f  %s\n", p.objective, p.best,
                 p.cached ? "(cached)" : (std::to_string(p.wall_seconds).substr(0, 5) + " s").c_str());
  };
  const calibrate::CalibrationResult r = calibrate::run_calibration(o.scenario_file, co);
  calibrate::write_calibration_report(std::cout, r);
  std::cout.flush();

  std::string command = "netsim";
  for (const std::string& a : args) command += " " + shell_word(a);
  const std::string target = o.out_path ? *o.out_path : default_profile_path(o.scenario_file);
  const std::string tmp = target + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      std::cerr << "netsim: cannot write " << tmp << "\n";
      return kOutputError;
    }
    calibrate::write_calibration_profile(f, r, command);
    if (!f.flush()) {
      std::cerr << "netsim: error while writing " << tmp << "\n";
      return kOutputError;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::cerr << "netsim: cannot rename " << tmp << " to " << target << ": " << ec.message() << "\n";
    return kOutputError;
  }
  std::cerr << "calibrate: profile written to " << target << " (" << r.evaluations << " evaluations, "
            << r.simulation_runs << " runs, " << static_cast<int>(r.wall_seconds + 0.5) << " s)\n";
  return kOk;
}

}  // namespace netsim::cli
