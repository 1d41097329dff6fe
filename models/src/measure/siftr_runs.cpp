#include "siftr_runs.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <utility>

#include "netsim/measure/siftr_flow_series.h"
#include "netsim/measure/siftr_log.h"

namespace netsim::measure {
namespace {

class RunBuilder : public SiftrLogVisitor {
 public:
  explicit RunBuilder(const std::string& file) : file_(file) {}

  void begin(const SiftrSession& s) override { series_.emplace(s.enable); }
  void record(const SiftrSession&, const tcp::SiftrRecord& r) override { series_->add(r); }
  void end(const SiftrSession& s) override {
    MeasuredRun run;
    run.file = file_;
    run.line = s.line;
    run.tool = "siftr";
    run.side = "";
    run.has_rates = false;
    run.siftr_records_in = s.records_in;
    run.siftr_records_out = s.records_out;
    run.siftr_log_bytes = s.bytes;
    run.siftr_cut = s.cut();
    if (s.disable) {
      const tcp::SiftrCounters& c = s.disable->counters;
      run.siftr_packets = c.n_in + c.n_out;
      run.siftr_skipped = c.total_skipped();
      const auto span_us = (s.disable->secs - s.enable.secs) * 1'000'000 + (s.disable->usecs - s.enable.usecs);
      run.duration_s = static_cast<double>(span_us) / 1e6;
    }
    auto summary = std::make_shared<SiftrSummary>(std::move(*series_).finish());
    series_.reset();
    if (!s.disable && !summary->flows.empty()) {
      // Cut: the session lasted at least until its last record.
      std::int64_t last_us = 0;
      for (const SiftrFlowSeries& f : summary->flows) last_us = std::max(last_us, f.last_us);
      run.duration_s = static_cast<double>(last_us - (s.enable.secs * 1'000'000 + s.enable.usecs)) / 1e6;
    }
    run.streams = static_cast<int>(summary->flows.size());
    run.siftr_series = std::move(summary);
    runs.push_back(std::move(run));
  }

  std::vector<MeasuredRun> runs;

 private:
  const std::string& file_;
  std::optional<SiftrSummaryBuilder> series_;
};

}  // namespace

std::vector<MeasuredRun> parse_siftr(std::string_view text, const std::string& file) {
  RunBuilder b(file);
  read_siftr_log(text, file, b);
  return std::move(b.runs);
}

std::vector<MeasuredRun> load_siftr(const std::string& path) {
  RunBuilder b(path);
  read_siftr_log_file(path, b);
  return std::move(b.runs);
}

bool looks_like_siftr_line(std::string_view text) {
  if (text.starts_with("enable_time_secs=") || text.starts_with("disable_time_secs=")) return true;
  if (text.size() < 2 || (text[0] != 'i' && text[0] != 'o') || text[1] != ',') return false;
  const auto commas = std::count(text.begin(), text.end(), ',');
  return commas == 26 || commas == 27;
}

bool starts_as_siftr_log(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text.substr(first).starts_with("enable_time_secs=");
}

bool file_starts_as_siftr_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[4096];
  in.read(head, sizeof(head));
  return starts_as_siftr_log(std::string_view(head, static_cast<std::size_t>(in.gcount())));
}

}  // namespace netsim::measure
