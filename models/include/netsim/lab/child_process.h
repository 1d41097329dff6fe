// Child processes of `netsim lab`: the real tools (ip, tc, iptables, iperf3,
// netsim-nfq-delay) started with posix_spawn, their output sent to files.
//
// Each child gets an empty signal mask and default SIGINT/SIGTERM handling
// (the CLI blocks both in its own threads to stop cleanly), and a process
// group of its own, so that a terminal's ^C reaches netsim only and netsim
// decides the order in which children stop (the delay daemon must release
// what it holds before its namespace goes away).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace netsim::lab {

class ChildProcess {
 public:
  ChildProcess() = default;
  // Starts argv[0] (searched in PATH) with stdout and stderr to the given
  // files ("" = /dev/null; the same path twice = one file for both, appended).
  // Throws std::runtime_error when the program cannot be started.
  static ChildProcess spawn(const std::vector<std::string>& argv, const std::string& stdout_path,
                            const std::string& stderr_path);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // A child still running is sent SIGKILL and reaped.
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool running();  // not yet reaped and not exited
  // Waits until the child exits, `timeout` passes or `*stop` becomes true.
  // Returns the exit status (128 + signal for a killed child), or nullopt
  // when it is still running.
  std::optional<int> wait_for(std::chrono::milliseconds timeout, const std::atomic<bool>* stop = nullptr);
  // SIGTERM, then SIGKILL after `grace`; returns the exit status.
  int terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  bool reap(int options);
  pid_t pid_ = -1;
  std::optional<int> status_;
};

struct CommandResult {
  int status = -1;     // exit status, 128 + signal, or -1 when it could not start
  std::string output;  // stdout and stderr together
};

// Runs argv to completion (at most `timeout`), capturing its output.
CommandResult run_command(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

// The directory of the running executable (/proc/self/exe), or "".
std::string executable_dir();

}  // namespace netsim::lab
