// One repetition of one lab cell on the real kernel: build the namespaces,
// start the delay daemons and the servers, run the clients, capture the
// counters, tear everything down (on every exit path), and leave the raw
// outputs in a directory.
//
// Files of a repetition directory:
//   commands.log          every command run, its exit status and output
//   iperf3.json | iperf2.txt  the client's report (prefixed FLOW- with several flows)
//   FLOW-server.out       the server's output
//   nstat-HOST.txt        nstat -as after the run (fresh namespaces: the run's counters)
//   ss-HOST.txt           ss -tin every 100 ms on the data senders ("# <unix time>" lines between)
//   state-HOST.txt        tc -s qdisc, iptables -L -v -x, ethtool -k after the run
//   delay-HOST.json       netsim-nfq-delay's stats (the delay it really added)
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "netsim/lab/lab_cell_plan.h"

namespace netsim::lab {

// A lab step failed (a command exited non-zero, a tool did not start, a
// server never listened): the message names the step and carries its output.
class LabError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RepOptions {
  std::string delay_daemon;  // path of netsim-nfq-delay (needed when the link has a delay)
  double client_margin_s = 30;  // the client may run this much longer than its test before it is killed
};

// The figures of a finished repetition (for progress lines and summary.csv).
struct RepFigures {
  double sender_mbps = 0, receiver_mbps = 0;
  std::uint64_t retransmits = 0;
  std::optional<double> delay_p50_us, delay_p99_us;  // hold time of the data receiver's daemon
  std::optional<std::uint64_t> filter_drops;         // packets the scenario's rules dropped
};

// Runs one repetition into `dir` (created). Returns the figures; throws
// LabError on a failure and when `stop` became true (the message then says
// "interrupted"); teardown has happened either way.
RepFigures run_lab_rep(const LabCellPlan& plan, const std::filesystem::path& dir, const RepOptions& options,
                       const std::atomic<bool>& stop);

}  // namespace netsim::lab
