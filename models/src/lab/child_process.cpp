#include "netsim/lab/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace netsim::lab {
namespace {

int status_code(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return -1;
}

class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&a_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&a_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &a_; }

 private:
  posix_spawn_file_actions_t a_;
};

class SpawnAttr {
 public:
  SpawnAttr() {
    posix_spawnattr_init(&a_);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&a_, &none);
    posix_spawnattr_setsigdefault(&a_, &defaults);
    posix_spawnattr_setpgroup(&a_, 0);
    posix_spawnattr_setflags(&a_, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  }
  ~SpawnAttr() { posix_spawnattr_destroy(&a_); }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;
  const posix_spawnattr_t* get() const { return &a_; }

 private:
  posix_spawnattr_t a_;
};

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> v;
  for (const auto& a : argv) v.push_back(const_cast<char*>(a.c_str()));
  v.push_back(nullptr);
  return v;
}

pid_t spawn_with(const std::vector<std::string>& argv, SpawnActions& actions) {
  if (argv.empty()) throw std::runtime_error("empty command");
  SpawnAttr attr;
  std::vector<char*> args = c_argv(argv);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], actions.get(), attr.get(), args.data(), environ);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

}  // namespace

ChildProcess ChildProcess::spawn(const std::vector<std::string>& argv, const std::string& stdout_path,
                                 const std::string& stderr_path) {
  SpawnActions actions;
  const std::string out = stdout_path.empty() ? "/dev/null" : stdout_path;
  const std::string err = stderr_path.empty() ? "/dev/null" : stderr_path;
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const int flags = out == err ? O_WRONLY | O_CREAT | O_APPEND : O_WRONLY | O_CREAT | O_TRUNC;
  posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, out.c_str(), flags, 0644);
  if (out == err) {
    posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
  } else {
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  return ChildProcess(spawn_with(argv, actions));
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_), status_(other.status_) {
  other.pid_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      reap(0);
    }
    pid_ = other.pid_;
    status_ = other.status_;
    other.pid_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !status_) {
    kill(pid_, SIGKILL);
    reap(0);
  }
}

bool ChildProcess::reap(int options) {
  if (pid_ <= 0 || status_) return true;
  int ws = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &ws, options);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    status_ = status_code(ws);
    return true;
  }
  if (r < 0) {  // not our child any more (should not happen): treat as gone
    status_ = -1;
    return true;
  }
  return false;
}

bool ChildProcess::running() { return pid_ > 0 && !reap(WNOHANG); }

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds timeout, const std::atomic<bool>* stop) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reap(WNOHANG)) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    if (stop != nullptr && stop->load()) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_;
}

int ChildProcess::terminate(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  if (!reap(WNOHANG)) {
    kill(pid_, SIGTERM);
    if (!wait_for(grace)) {
      kill(pid_, SIGKILL);
      reap(0);
    }
  }
  return status_.value_or(-1);
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandResult r;
  char path[] = "/tmp/netsim-lab-cmd.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    r.output = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return r;
  }
  close(fd);
  try {
    ChildProcess c = ChildProcess::spawn(argv, path, path);
    const std::optional<int> st = c.wait_for(timeout);
    r.status = st ? *st : c.terminate();
    if (!st) r.output = "timed out after " + std::to_string(timeout.count()) + " ms\n";
  } catch (const std::exception& e) {
    r.output = e.what();
    std::remove(path);
    return r;
  }
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  r.output += ss.str();
  std::remove(path);
  return r;
}

std::string executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace netsim::lab
