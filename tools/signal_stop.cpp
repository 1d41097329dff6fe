#include "signal_stop.h"

#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace netsim::cli {

SignalStop::SignalStop(std::function<void(int)> on_first, int second_exit_code)
    : on_first_(std::move(on_first)), second_exit_code_(second_exit_code) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);
  watcher_ = std::thread([this] {
    // Polling with a timeout lets the destructor end the thread without a signal of its own.
    const timespec tick{0, 100'000'000};
    while (!done_.load()) {
      const int sig = sigtimedwait(&set_, nullptr, &tick);
      if (sig <= 0) continue;  // timeout or EINTR
      if (received_.load() != 0) {
        static const char msg[] = "\nnetsim: second signal: exiting now; runs in flight are lost, recorded runs are kept\n";
        [[maybe_unused]] const auto n = ::write(2, msg, sizeof msg - 1);
        ::_exit(second_exit_code_);
      }
      received_.store(sig);
      on_first_(sig);
    }
  });
}

SignalStop::~SignalStop() {
  done_.store(true);
  watcher_.join();
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace netsim::cli
