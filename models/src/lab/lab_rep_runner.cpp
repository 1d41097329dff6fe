#include "netsim/lab/lab_rep_runner.h"

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "../measure/json_document.h"
#include "netsim/lab/child_process.h"
#include "netsim/lab/lab_commands.h"
#include "netsim/measure/measurement_file.h"

namespace netsim::lab {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class CommandLog {
 public:
  explicit CommandLog(const fs::path& path) : out_(path, std::ios::app) {}
  void note(const std::string& text) { out_ << "# " << text << "\n" << std::flush; }
  CommandResult run(const Command& c, std::chrono::milliseconds timeout = 30s) {
    CommandResult r = run_command(c, timeout);
    out_ << "$ " << command_text(c) << "\n";
    if (!r.output.empty()) out_ << r.output << (r.output.back() == '\n' ? "" : "\n");
    if (r.status != 0) out_ << "# exit " << r.status << "\n";
    out_ << std::flush;
    return r;
  }
  // Runs c; a non-zero exit is a LabError naming the command.
  std::string must(const Command& c) {
    CommandResult r = run(c);
    if (r.status != 0) throw LabError(command_text(c) + " failed (exit " + std::to_string(r.status) + "): " + r.output);
    return r.output;
  }
  void spawned(const Command& c) { out_ << "$ " << command_text(c) << " &\n" << std::flush; }

 private:
  std::ofstream out_;
};

// Everything a repetition started, stopped in reverse order however it ends:
// samplers and servers first, then the daemons (which release what they hold),
// then the namespaces.
class RepResources {
 public:
  RepResources(const LabCellPlan& plan, CommandLog& log) : plan_(plan), log_(log) {}
  ~RepResources() { release(); }
  RepResources(const RepResources&) = delete;
  RepResources& operator=(const RepResources&) = delete;

  void namespaces_created() { namespaces_ = true; }
  ChildProcess& add_tool(ChildProcess c) { return tools_.emplace_back(std::move(c)); }
  ChildProcess& add_daemon(ChildProcess c) { return daemons_.emplace_back(std::move(c)); }
  std::vector<int>& daemon_status() { return daemon_status_; }

  void stop_tools() {
    for (auto it = tools_.rbegin(); it != tools_.rend(); ++it) it->terminate(1000ms);
    tools_.clear();
  }
  void stop_daemons() {
    for (ChildProcess& d : daemons_) {
      const int st = d.terminate(3000ms);
      daemon_status_.push_back(st);
      if (st != 0) log_.note("delay daemon pid " + std::to_string(d.pid()) + " exited " + std::to_string(st));
    }
    daemons_.clear();
  }
  void release() {
    stop_tools();
    stop_daemons();
    if (namespaces_) {
      for (const Command& c : teardown_commands(plan_)) log_.run(c);
      namespaces_ = false;
    }
  }

 private:
  const LabCellPlan& plan_;
  CommandLog& log_;
  bool namespaces_ = false;
  std::vector<ChildProcess> tools_;
  std::vector<ChildProcess> daemons_;
  std::vector<int> daemon_status_;
};

void check_stop(const std::atomic<bool>& stop) {
  if (stop.load()) throw LabError("interrupted");
}

// Polls `probe` (a command whose output must satisfy `ok`) for up to `limit`.
template <class Ok>
bool wait_until(CommandLog& log, const Command& probe, Ok ok, std::chrono::milliseconds limit,
                const std::atomic<bool>& stop) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    check_stop(stop);
    const CommandResult r = run_command(probe, 5s);
    if (r.status == 0 && ok(r.output)) return true;
    std::this_thread::sleep_for(20ms);
  }
  log.note("gave up waiting for: " + command_text(probe));
  return false;
}

bool queue_bound(const std::string& proc_text) {
  std::istringstream in(proc_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string first;
    if (f >> first && first == "0") return true;
  }
  return false;
}

std::uint64_t drop_rule_packets(const std::string& listing) {
  std::uint64_t sum = 0;
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string pkts, bytes, target;
    if (f >> pkts >> bytes >> target && target == "DROP" && pkts.find_first_not_of("0123456789") == std::string::npos)
      sum += std::stoull(pkts);
  }
  return sum;
}

std::string host_of(const LabCellPlan& p, const std::string& netns) { return netns == p.a.netns ? p.a.host : p.b.host; }

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::optional<double> stats_number(const fs::path& path, const std::string& group, const std::string& key) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    const auto docs = measure::json::parse_documents(ss.str(), path.string());
    if (docs.empty()) return std::nullopt;
    const measure::json::Value* g = docs.front().find(group);
    const measure::json::Value* v = g ? g->find(key) : nullptr;
    if (v && v->kind == measure::json::Value::Kind::number) return v->number;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

RepFigures run_lab_rep(const LabCellPlan& plan, const fs::path& dir, const RepOptions& options,
                       const std::atomic<bool>& stop) {
  fs::create_directories(dir);
  CommandLog log(dir / "commands.log");
  RepResources res(plan, log);
  RepFigures fig;
  const std::vector<const LabEndpoint*> ends{&plan.a, &plan.b};

  check_stop(stop);
  res.namespaces_created();  // from the first command on: teardown tolerates what does not exist
  for (const Command& c : setup_commands(plan)) log.must(c);

  // Delay: one daemon per receiving namespace, bound before its rule exists.
  if (plan.link.delay_us > 0) {
    if (options.delay_daemon.empty()) throw LabError("the link has a delay but netsim-nfq-delay was not found");
    for (const LabEndpoint* e : ends) {
      const Command c = delay_daemon_command(plan, e->netns, options.delay_daemon,
                                             (dir / ("delay-" + e->host + ".json")).string());
      log.spawned(c);
      const std::string err = (dir / ("delay-" + e->host + ".log")).string();
      res.add_daemon(ChildProcess::spawn(c, err, err));
      if (!wait_until(log, in_netns(e->netns, {"cat", "/proc/net/netfilter/nfnetlink_queue"}), queue_bound, 5s, stop))
        throw LabError("netsim-nfq-delay did not bind queue 0 in " + e->netns + " (see delay-" + e->host + ".log)");
    }
    for (const Command& c : delay_rule_commands(plan)) log.must(c);
  }

  // Servers, listening before any client connects.
  for (const LabFlow& f : plan.flows) {
    const Command c = in_netns(f.server_netns, f.server_argv);
    log.spawned(c);
    const std::string out = (dir / (f.name + "-server.out")).string();
    res.add_tool(ChildProcess::spawn(c, out, out));
    const Command probe = in_netns(f.server_netns, {"ss", "-ltnH", "sport", "=", ":" + std::to_string(f.port)});
    if (!wait_until(log, probe, [](const std::string& o) { return !o.empty(); }, 5s, stop))
      throw LabError(f.app + " server of flow " + f.name + " never listened on port " + std::to_string(f.port));
  }

  // ss -tin samples on the data senders for cwnd and RTT traces.
  for (const std::string& ns : plan.data_sender_netns) {
    const Command c = in_netns(ns, {"sh", "-c",
                                    "while :; do echo \"# $(date +%s.%N)\"; ss -tin state established; sleep 0.1; done"});
    log.spawned(c);
    res.add_tool(ChildProcess::spawn(c, (dir / ("ss-" + host_of(plan, ns) + ".txt")).string(), ""));
  }

  // Clients, all at once; each may take its test length plus a margin.
  std::vector<ChildProcess> clients;
  double longest = 0;
  for (const LabFlow& f : plan.flows) {
    const Command c = in_netns(f.client_netns, f.client_argv);
    log.spawned(c);
    clients.push_back(ChildProcess::spawn(c, (dir / f.output_file).string(), (dir / (f.name + "-client.err")).string()));
    longest = std::max(longest, f.seconds);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<std::int64_t>((longest + options.client_margin_s) * 1000));
  for (std::size_t i = 0; i < clients.size(); ++i) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const std::optional<int> st = clients[i].wait_for(std::max(left, 0ms), &stop);
    check_stop(stop);
    if (!st) throw LabError("client of flow " + plan.flows[i].name + " still running after its test plus " +
                            std::to_string(static_cast<int>(options.client_margin_s)) + " s");
    log.note("client of flow " + plan.flows[i].name + " exited " + std::to_string(*st));
    if (*st != 0) throw LabError("client of flow " + plan.flows[i].name + " exited " + std::to_string(*st) +
                                 " (see " + plan.flows[i].output_file + ", " + plan.flows[i].name + "-client.err)");
  }

  // Counters and state after the run, then stop everything.
  for (const LabEndpoint* e : ends) {
    write_text(dir / ("nstat-" + e->host + ".txt"), log.must(in_netns(e->netns, {"nstat", "-as"})));
    std::string state;
    state += "## tc -s qdisc show dev " + e->device + "\n" + log.must(in_netns(e->netns, {"tc", "-s", "qdisc", "show", "dev", e->device}));
    const std::string rules = log.must(in_netns(e->netns, {plan.iptables, "-L", "-v", "-x", "-n"}));
    state += "## " + plan.iptables + " -L -v -x -n\n" + rules;
    state += "## ethtool -k " + e->device + "\n" + log.must(in_netns(e->netns, {"ethtool", "-k", e->device}));
    write_text(dir / ("state-" + e->host + ".txt"), state);
    if (!plan.rules.empty()) fig.filter_drops = fig.filter_drops.value_or(0) + drop_rule_packets(rules);
  }
  res.stop_tools();
  res.stop_daemons();
  for (int st : res.daemon_status()) {
    if (st != 0) throw LabError("a delay daemon exited " + std::to_string(st) + " (see delay-*.log)");
  }
  res.release();

  // The first flow's report gives the headline figures.
  const LabFlow& f0 = plan.flows.front();
  const measure::LoadedMeasurements m =
      measure::load_measurement_file((dir / f0.output_file).string(), measure::format_from_name(f0.output_format));
  if (!m.errors.empty()) throw LabError(m.errors.front().what());
  if (m.runs.empty()) throw LabError("no report in " + f0.output_file);
  const measure::MeasuredRun& r = m.runs.front();
  fig.sender_mbps = r.sender_mbps.value_or(r.throughput_mbps);
  fig.receiver_mbps = r.receiver_mbps.value_or(r.throughput_mbps);
  fig.retransmits = r.retransmits.value_or(0);
  const fs::path stats = dir / ("delay-" + host_of(plan, f0.data_receiver_netns) + ".json");
  fig.delay_p50_us = stats_number(stats, "hold_us", "p50");
  fig.delay_p99_us = stats_number(stats, "hold_us", "p99");
  return fig;
}

}  // namespace netsim::lab
