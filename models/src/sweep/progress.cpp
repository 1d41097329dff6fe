#include "netsim/sweep/progress.h"

#include <unistd.h>

#include <cstdio>

namespace netsim::sweep {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

}  // namespace

ProgressStyle progress_style_for(int fd) { return ::isatty(fd) ? ProgressStyle::bar : ProgressStyle::lines; }

Progress::Progress(std::ostream& out, ProgressStyle style, std::size_t total, double line_period_s, Clock clock)
    : out_(out),
      style_(style),
      total_(total),
      line_period_(line_period_s),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)),
      start_(clock_()) {}

void Progress::add_skipped(std::size_t n, std::size_t failed) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ += n;
  failed_ += failed;
}

void Progress::run_done(bool failed) {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  ++ran_;
  if (failed) ++failed_;
  draw(false);
}

void Progress::note(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (style_ == ProgressStyle::bar && bar_shown_) out_ << "\r\x1b[K";
  out_ << text << '\n';
  if (style_ == ProgressStyle::bar && bar_shown_) draw(true);
  out_.flush();
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (style_ == ProgressStyle::none) return;
  draw(true);
  if (style_ == ProgressStyle::bar) out_ << '\n';
  out_.flush();
}

std::string Progress::status() const {
  const double elapsed = clock_() - start_;
  const std::size_t pct = total_ > 0 ? done_ * 100 / total_ : 100;
  std::string s = std::to_string(done_) + "/" + std::to_string(total_) + " (" + std::to_string(pct) + "%)";
  if (ran_ > 0 && elapsed > 0) {
    const double rate = static_cast<double>(ran_) / elapsed;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", rate);
    s += std::string("  ") + buf + " runs/s";
    if (done_ < total_) s += "  ETA " + clock_text(static_cast<double>(total_ - done_) / rate);
  }
  s += "  " + std::to_string(failed_) + " failed";
  return s;
}

void Progress::draw(bool force) {
  const double now = clock_();
  if (style_ == ProgressStyle::none) return;
  if (style_ == ProgressStyle::bar) {
    // At most 10 redraws a second: a fast sweep must not spend its time drawing.
    if (!force && now - last_draw_ < 0.1 && done_ < total_) return;
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = total_ > 0 ? done_ * kWidth / total_ : kWidth;
    out_ << "\r\x1b[K[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << status();
    out_.flush();
    bar_shown_ = true;
  } else {
    if (!force && now - last_draw_ < line_period_) return;
    out_ << "netsim: " << label_ << " " << status() << '\n';
    out_.flush();
  }
  last_draw_ = now;
}

}  // namespace netsim::sweep
