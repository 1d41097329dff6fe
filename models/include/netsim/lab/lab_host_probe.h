// What `netsim lab` needs from this machine, checked before anything runs:
// root, network namespaces, the tools; and the environment a result depends
// on (kernel release, CONFIG_HZ, tool versions), written to environment.json.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "netsim/lab/lab_cell_plan.h"

namespace netsim::lab {

struct HostProbe {
  std::vector<std::string> problems;  // empty: the lab can run
  LabEnvironment env;
  std::string delay_daemon;           // path of netsim-nfq-delay, or ""
  std::map<std::string, std::string> facts;  // environment.json's members, in name order
};

// Probes the machine. `tools` are the programs the planned cells start
// (iperf3, iperf, ...); `need_daemon` when some cell has a link delay.
HostProbe probe_host(const std::vector<std::string>& tools, bool need_daemon);

// CONFIG_HZ from a kernel config text ("CONFIG_HZ=250"), or 0.
int config_hz_from(const std::string& config_text);

// environment.json: the facts as one JSON object with string members.
std::string environment_json(const std::map<std::string, std::string>& facts);

// Namespaces named kNetnsPrefix<pid>-... whose pid no longer runs (or all of
// them with `all`): their processes are killed and the namespaces deleted.
// Returns the names removed; problems go to `errors`.
std::vector<std::string> clean_namespaces(bool all, std::vector<std::string>& errors);

}  // namespace netsim::lab
