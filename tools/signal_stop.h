// Turns SIGINT and SIGTERM into a clean stop of a long command.
//
// While an object lives, both signals are blocked in the calling thread and
// in every thread it starts afterwards, and a watcher thread takes them with
// sigtimedwait(): no async-signal handler and no global flag. The first
// signal calls `on_first` (on the watcher thread); a second one ends the
// process at once with `second_exit_code`, for a user who does not want to
// wait for the runs in flight.
#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <thread>

namespace netsim::cli {

class SignalStop {
 public:
  SignalStop(std::function<void(int signo)> on_first, int second_exit_code);
  ~SignalStop();
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  // The first signal received (SIGINT or SIGTERM), or 0.
  int received() const { return received_.load(); }

 private:
  std::function<void(int)> on_first_;
  int second_exit_code_;
  sigset_t set_{};
  sigset_t old_{};
  std::atomic<int> received_{0};
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

}  // namespace netsim::cli
