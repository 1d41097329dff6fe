#include "netsim/lab/lab_host_probe.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "netsim/lab/child_process.h"

namespace netsim::lab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool on_path(const std::string& tool) {
  return run_command({"sh", "-c", "command -v " + tool}, 5s).status == 0;
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += ch;
    } else if (c == '\n') {
      o += "\\n";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += ch;
    }
  }
  return o;
}

}  // namespace

int config_hz_from(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CONFIG_HZ=", 0) == 0) {
      try {
        return std::stoi(line.substr(10));
      } catch (const std::exception&) {
        return 0;
      }
    }
  }
  return 0;
}

HostProbe probe_host(const std::vector<std::string>& tools, bool need_daemon) {
  HostProbe p;
  if (geteuid() != 0) p.problems.push_back("netsim lab needs root (network namespaces, iptables, tc)");
  std::vector<std::string> needed{"ip", "tc", "ethtool", "sysctl", "nstat", "ss"};
  needed.insert(needed.end(), tools.begin(), tools.end());
  for (const std::string& t : needed) {
    if (!on_path(t)) p.problems.push_back(t + " is not installed (tools/setup.sh installs the lab's packages)");
  }
  p.env.iptables = on_path("iptables-legacy") ? "iptables-legacy" : "iptables";
  if (!on_path(p.env.iptables)) p.problems.push_back("iptables is not installed");
  if (!fs::exists("/proc/self/ns/net")) p.problems.push_back("this kernel has no network namespaces");
  if (need_daemon) {
    const std::string beside = executable_dir() + "/netsim-nfq-delay";
    if (!executable_dir().empty() && access(beside.c_str(), X_OK) == 0) {
      p.delay_daemon = beside;
    } else if (on_path("netsim-nfq-delay")) {
      p.delay_daemon = "netsim-nfq-delay";
    } else {
      p.problems.push_back("netsim-nfq-delay (the lab's delay daemon) was not built: libnetfilter-queue-dev missing?");
    }
  }

  std::string release = first_line(run_command({"uname", "-r"}, 5s).output);
  std::string config = run_command({"sh", "-c", "zcat /proc/config.gz 2>/dev/null || cat /boot/config-$(uname -r)"}, 10s).output;
  p.env.config_hz = config_hz_from(config);
  std::istringstream ccs(read_file("/proc/sys/net/ipv4/tcp_available_congestion_control"));
  for (std::string cc; ccs >> cc;) p.env.congestion_controls.insert(cc);
  // Modules a netns may still load (tcp_allowed_congestion_control is per netns; root may use any loaded one).

  p.facts["kernel_release"] = release;
  p.facts["config_hz"] = p.env.config_hz ? std::to_string(p.env.config_hz) : "unknown";
  p.facts["kernel_version"] = first_line(read_file("/proc/version"));
  p.facts["iptables"] = first_line(run_command({p.env.iptables, "--version"}, 5s).output);
  p.facts["tc"] = first_line(run_command({"tc", "-V"}, 5s).output);
  for (const std::string& t : tools) {
    p.facts[t] = first_line(run_command(t == "iperf" ? std::vector<std::string>{"iperf", "-v"}
                                                     : std::vector<std::string>{t, "--version"},
                                        5s)
                                .output);
  }
  p.facts["congestion_controls"] = first_line(read_file("/proc/sys/net/ipv4/tcp_available_congestion_control"));
  std::istringstream cpu(read_file("/proc/cpuinfo"));
  int cpus = 0;
  for (std::string line; std::getline(cpu, line);) {
    if (line.rfind("model name", 0) == 0 && p.facts.count("cpu_model") == 0)
      p.facts["cpu_model"] = line.substr(line.find(':') + 2);
    if (line.rfind("processor", 0) == 0) ++cpus;
  }
  p.facts["cpus"] = std::to_string(cpus);
  p.facts["delay_daemon"] = p.delay_daemon;
  return p;
}

std::string environment_json(const std::map<std::string, std::string>& facts) {
  std::string s = "{\n";
  bool first = true;
  for (const auto& [k, v] : facts) {
    s += std::string(first ? "" : ",\n") + "  \"" + json_escape(k) + "\": \"" + json_escape(v) + "\"";
    first = false;
  }
  return s + "\n}\n";
}

std::vector<std::string> clean_namespaces(bool all, std::vector<std::string>& errors) {
  std::vector<std::string> removed;
  const CommandResult list = run_command({"ip", "netns", "list"}, 10s);
  if (list.status != 0) {
    errors.push_back("ip netns list failed: " + list.output);
    return removed;
  }
  const std::string prefix = kNetnsPrefix;
  std::istringstream in(list.output);
  for (std::string line; std::getline(in, line);) {
    const std::string name = line.substr(0, line.find(' '));
    if (name.rfind(prefix, 0) != 0) continue;
    // kNetnsPrefix<pid>-<cell>-<rep>-a: a lab whose process still runs keeps its namespaces.
    const std::string rest = name.substr(prefix.size());
    long pid = 0;
    try {
      pid = std::stol(rest.substr(0, rest.find('-')));
    } catch (const std::exception&) {
      pid = 0;
    }
    if (!all && pid > 0 && pid != getpid() && kill(static_cast<pid_t>(pid), 0) == 0) continue;
    const CommandResult pids = run_command({"ip", "netns", "pids", name}, 10s);
    std::istringstream ps(pids.output);
    for (long p; ps >> p;) kill(static_cast<pid_t>(p), SIGTERM);
    if (!pids.output.empty()) std::this_thread::sleep_for(500ms);
    std::istringstream ps2(run_command({"ip", "netns", "pids", name}, 10s).output);
    for (long p; ps2 >> p;) kill(static_cast<pid_t>(p), SIGKILL);
    const CommandResult del = run_command({"ip", "netns", "del", name}, 10s);
    if (del.status == 0) {
      removed.push_back(name);
    } else {
      errors.push_back("ip netns del " + name + ": " + del.output);
    }
  }
  return removed;
}

}  // namespace netsim::lab
