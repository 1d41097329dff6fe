// netsim-nfq-delay: constant packet delay for `netsim lab` on kernels without
// sch_netem. An iptables NFQUEUE rule hands packets to this daemon; it holds
// each one until receipt + D and then accepts it. Because D is constant the
// hold list is FIFO and packets leave in the order they came, so one batch
// verdict ("accept every id <= X") releases all packets that are due.
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <libnfnetlink/libnfnetlink.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <string>
#include <vector>

#include "kernel_queue_stats.h"
#include "latency_histogram.h"
#include "options.h"

namespace {

// The only global: set by the SIGINT/SIGTERM handler, read by the main loop.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signo) { g_stop_signal = signo; }

std::int64_t now_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct HeldPacket {
  std::uint32_t id;
  std::int64_t received_ns;  // CLOCK_MONOTONIC
  std::int64_t due_ns;       // CLOCK_MONOTONIC
};

struct Counters {
  std::uint64_t packets = 0;          // packets received from the queue
  std::uint64_t accepted = 0;         // packets released by our verdicts
  std::uint64_t verdict_messages = 0;
  std::uint64_t verdict_errors = 0;
  std::uint64_t enobufs = 0;          // recv() reported a socket-buffer overflow
  std::uint64_t id_gaps = 0;          // ids the kernel handed out that never reached us
  std::uint64_t kernel_timestamps = 0;
  std::uint64_t held_max = 0;
  std::uint64_t maxlen_reached = 0;   // times the hold list reached --maxlen (kernel may fail-open)
};

class DelayDaemon {
 public:
  explicit DelayDaemon(const netsim::nfq::Options& opt) : opt_(opt) {}
  ~DelayDaemon() { close(); }
  DelayDaemon(const DelayDaemon&) = delete;
  DelayDaemon& operator=(const DelayDaemon&) = delete;

  // Opens netlink, binds the queue and configures it. Returns false with a
  // message in `error` (exit 3 material) on failure.
  bool open(std::string& error) {
    handle_ = nfq_open();
    if (!handle_) return fail(error, "nfq_open");
    // nfq_bind_pf() is a no-op since Linux 3.8 and nfq_unbind_pf() would
    // unbind other users' queues, so neither is called.
    queue_ = nfq_create_queue(handle_, opt_.queue, &DelayDaemon::on_packet, this);
    if (!queue_) return fail(error, "binding queue " + std::to_string(opt_.queue));
    // Metadata only: the verdict needs the id, never the payload.
    if (nfq_set_mode(queue_, NFQNL_COPY_META, 0) < 0) return fail(error, "nfq_set_mode(COPY_META)");
    if (nfq_set_queue_maxlen(queue_, opt_.maxlen) < 0) return fail(error, "nfq_set_queue_maxlen");
    // GSO: hold a GSO skb as one packet instead of having the kernel segment it.
    std::uint32_t flags = NFQA_CFG_F_GSO | (opt_.fail_open ? NFQA_CFG_F_FAIL_OPEN : 0u);
    if (nfq_set_queue_flags(queue_, NFQA_CFG_F_GSO | NFQA_CFG_F_FAIL_OPEN, flags) < 0)
      return fail(error, "nfq_set_queue_flags");
    fd_ = nfq_fd(handle_);
    // Large receive buffer (SO_RCVBUFFORCE when privileged) so bursts queue
    // in the socket instead of overflowing it.
    nfnl_rcvbufsiz(nfq_nfnlh(handle_), opt_.rcvbuf_bytes);
    return true;
  }

  // Main loop until a stop signal. SIGINT/SIGTERM are blocked except inside
  // ppoll(), so a signal can never slip in between the flag check and the wait.
  int run() {
    sigset_t stop_set, wait_mask;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop_set, &wait_mask);
    sigdelset(&wait_mask, SIGINT);
    sigdelset(&wait_mask, SIGTERM);

    const std::int64_t spin_ns = opt_.spin_us * 1000;
    pollfd pfd{fd_, POLLIN, 0};
    while (!g_stop_signal) {
      release_due(now_ns(CLOCK_MONOTONIC));
      timespec timeout{};
      timespec* timeout_ptr = nullptr;  // nothing held: wait for packets only
      if (!held_.empty()) {
        std::int64_t wait_ns = held_.front().due_ns - now_ns(CLOCK_MONOTONIC) - spin_ns;
        if (wait_ns <= 0) {
          spin_until(held_.front().due_ns);
          continue;
        }
        timeout.tv_sec = wait_ns / 1'000'000'000;
        timeout.tv_nsec = wait_ns % 1'000'000'000;
        timeout_ptr = &timeout;
      }
      int ready = ppoll(&pfd, 1, timeout_ptr, &wait_mask);
      if (ready < 0 && errno != EINTR) {
        std::perror("netsim-nfq-delay: ppoll");
        return 1;
      }
      if (ready > 0) drain_socket();
    }
    shutdown();
    return 0;
  }

  void write_stats(std::FILE* out) const {
    std::fprintf(out,
                 "{\"queue\": %u, \"delay_us\": %lld, \"batch\": %u, \"packets\": %llu, \"accepted\": %llu, "
                 "\"verdict_messages\": %llu, \"verdict_errors\": %llu, \"held_max\": %llu, \"maxlen\": %u, "
                 "\"maxlen_reached\": %llu, \"enobufs\": %llu, \"id_gaps\": %llu, \"fail_open\": %s, "
                 "\"kernel_timestamps\": %llu, \"kernel_queue_dropped\": %llu, \"kernel_user_dropped\": %llu, "
                 "\"late_us\": {\"p50\": %lld, \"p90\": %lld, \"p99\": %lld, \"p999\": %lld, \"max\": %lld}, "
                 "\"hold_us\": {\"p50\": %lld, \"p99\": %lld, \"max\": %lld}}\n",
                 opt_.queue, static_cast<long long>(opt_.delay_us), opt_.batch, ull(c_.packets), ull(c_.accepted),
                 ull(c_.verdict_messages), ull(c_.verdict_errors), ull(c_.held_max), opt_.maxlen,
                 ull(c_.maxlen_reached), ull(c_.enobufs), ull(c_.id_gaps), opt_.fail_open ? "true" : "false",
                 ull(c_.kernel_timestamps), ull(kernel_.queue_dropped), ull(kernel_.user_dropped),
                 ll(late_.percentile_us(0.50)), ll(late_.percentile_us(0.90)), ll(late_.percentile_us(0.99)),
                 ll(late_.percentile_us(0.999)), ll(late_.max_us()), ll(hold_.percentile_us(0.50)),
                 ll(hold_.percentile_us(0.99)), ll(hold_.max_us()));
  }

 private:
  static unsigned long long ull(std::uint64_t v) { return v; }
  static long long ll(std::int64_t v) { return v; }

  bool fail(std::string& error, const std::string& what) {
    int err = errno;
    error = what + " failed: " + (err ? std::strerror(err) : "unknown error");
    if (err == EPERM || err == EACCES || geteuid() != 0) error += " (needs root / CAP_NET_ADMIN, or another process already owns this queue)";
    if (err == EBUSY) error += " (another process owns this queue)";
    return false;
  }

  static int on_packet(nfq_q_handle*, nfgenmsg*, nfq_data* nfa, void* self) {
    static_cast<DelayDaemon*>(self)->hold(nfa);
    return 0;
  }

  void hold(nfq_data* nfa) {
    const nfqnl_msg_packet_hdr* hdr = nfq_get_msg_packet_hdr(nfa);
    if (!hdr) return;
    std::uint32_t id = ntohl(hdr->packet_id);
    std::int64_t received = now_ns(CLOCK_MONOTONIC);
    // A kernel receive timestamp (CLOCK_REALTIME) is used when present and
    // plausible, mapped onto CLOCK_MONOTONIC through the current offset.
    timeval tv{};
    if (nfq_get_timestamp(nfa, &tv) == 0 && tv.tv_sec > 0) {
      std::int64_t age = now_ns(CLOCK_REALTIME) - (static_cast<std::int64_t>(tv.tv_sec) * 1'000'000'000 +
                                                    static_cast<std::int64_t>(tv.tv_usec) * 1000);
      if (age >= 0 && age < 1'000'000'000) {
        received -= age;
        ++c_.kernel_timestamps;
      }
    }
    std::int64_t due = received + opt_.delay_us * 1000;
    // Keep due times monotonic so the list stays FIFO even if timestamps jitter.
    if (!held_.empty() && due < held_.back().due_ns) due = held_.back().due_ns;
    if (have_last_id_ && id - last_id_ > 1 && id - last_id_ < 0x80000000u) c_.id_gaps += id - last_id_ - 1;
    last_id_ = id;
    have_last_id_ = true;
    held_.push_back({id, received, due});
    ++c_.packets;
    if (held_.size() > c_.held_max) c_.held_max = held_.size();
    if (held_.size() == opt_.maxlen) ++c_.maxlen_reached;
  }

  // Reads every message waiting on the socket without blocking.
  void drain_socket() {
    for (int i = 0; i < 4096; ++i) {  // bounded so due packets are not starved
      ssize_t n = recv(fd_, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
      if (n < 0) {
        if (errno == ENOBUFS) {  // socket overflowed: count it, the kernel already accounted the packets
          ++c_.enobufs;
          continue;
        }
        if (errno == EINTR) continue;
        return;  // EAGAIN: drained
      }
      nfq_handle_packet(handle_, buffer_.data(), static_cast<int>(n));
    }
  }

  // Busy-polls the socket until `due_ns` (only with --spin-us).
  void spin_until(std::int64_t due_ns) {
    while (now_ns(CLOCK_MONOTONIC) < due_ns && !g_stop_signal) drain_socket();
  }

  // Accepts every held packet whose due time has passed, up to --batch per
  // verdict message. A batch verdict accepts all queued ids <= the given one,
  // which are exactly the packets ahead of it in our FIFO.
  void release_due(std::int64_t now) {
    std::uint32_t in_batch = 0;
    std::uint32_t last_id = 0;
    while (!held_.empty() && held_.front().due_ns <= now) {
      const HeldPacket& p = held_.front();
      late_.add_ns(now - p.due_ns);
      hold_.add_ns(now - p.received_ns);
      last_id = p.id;
      held_.pop_front();
      if (++in_batch == opt_.batch) {
        send_verdict(last_id, in_batch);
        in_batch = 0;
      }
    }
    if (in_batch) send_verdict(last_id, in_batch);
  }

  void send_verdict(std::uint32_t id, std::uint32_t count) {
    int rc = count == 1 ? nfq_set_verdict(queue_, id, NF_ACCEPT, 0, nullptr)
                        : nfq_set_verdict_batch(queue_, id, NF_ACCEPT);
    ++c_.verdict_messages;
    if (rc < 0)
      ++c_.verdict_errors;
    else
      c_.accepted += count;
  }

  // Accept everything still held or waiting in the socket, read the kernel's
  // counters, then unbind (unbinding drops whatever is still queued).
  void shutdown() {
    drain_socket();
    release_due(INT64_MAX);
    if (auto k = netsim::nfq::read_kernel_queue_stats(opt_.queue)) kernel_ = *k;
    close();
  }

  void close() {
    if (queue_) nfq_destroy_queue(queue_);
    queue_ = nullptr;
    if (handle_) nfq_close(handle_);
    handle_ = nullptr;
  }

  netsim::nfq::Options opt_;
  nfq_handle* handle_ = nullptr;
  nfq_q_handle* queue_ = nullptr;
  int fd_ = -1;
  std::vector<char> buffer_ = std::vector<char>(64 * 1024);
  std::deque<HeldPacket> held_;
  std::uint32_t last_id_ = 0;
  bool have_last_id_ = false;
  Counters c_;
  netsim::nfq::KernelQueueStats kernel_;
  netsim::nfq::LatencyHistogram late_;
  netsim::nfq::LatencyHistogram hold_{10'000'000};
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string error;
  bool help = false;
  auto opt = netsim::nfq::parse_options(args, error, help);
  if (help) {
    std::fputs(netsim::nfq::usage_text(), stdout);
    return 0;
  }
  if (!opt) {
    std::fprintf(stderr, "netsim-nfq-delay: %s\n%s", error.c_str(), netsim::nfq::usage_text());
    return 2;
  }

  // No SA_RESTART: the signal must interrupt ppoll().
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // Default 50 us timer slack would add up to 50 us to every wake-up.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

  // Real-time priority so a busy CPU does not postpone due verdicts.
  if (opt->rt_priority > 0) {
    sched_param sp{};
    sp.sched_priority = opt->rt_priority;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
      std::fprintf(stderr, "netsim-nfq-delay: --rt-priority: sched_setscheduler: %s (continuing)\n",
                   std::strerror(errno));
  }

  DelayDaemon daemon(*opt);
  if (!daemon.open(error)) {
    std::fprintf(stderr, "netsim-nfq-delay: %s\n", error.c_str());
    return 3;
  }
  std::fprintf(stderr, "netsim-nfq-delay: queue %u bound, delay %lld us\n", opt->queue,
               static_cast<long long>(opt->delay_us));
  int rc = daemon.run();

  daemon.write_stats(stderr);
  if (!opt->stats_file.empty()) {
    std::FILE* f = std::fopen(opt->stats_file.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "netsim-nfq-delay: cannot write %s: %s\n", opt->stats_file.c_str(), std::strerror(errno));
      return 1;
    }
    daemon.write_stats(f);
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "netsim-nfq-delay: cannot write %s\n", opt->stats_file.c_str());
      return 1;
    }
  }
  return rc;
}
