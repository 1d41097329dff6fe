#include "netsim/results/result_writers.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <istream>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <system_error>
#include <type_traits>

namespace netsim {
namespace {

constexpr double kPsPerSecond = 1e12;
constexpr double kBytesPerMiB = 1024.0 * 1024.0;  // nuttcp's and iperf's "MB"

// --- number formatting (std::to_chars: locale-independent, deterministic) ---

std::string fixed(double value, int precision) { return format_fixed(value, precision); }

template <typename Int>
std::string integer(Int value) {
  static_assert(std::is_integral_v<Int>);
  std::array<char, 24> buf;
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  (void)ec;  // 24 chars hold any 64-bit integer
  return std::string(buf.data(), end);
}

double seconds(std::int64_t ps) { return static_cast<double>(ps) / kPsPerSecond; }

// Exact decimal seconds from integer picoseconds, rounded half away from zero to `decimals`.
std::string seconds_text(std::int64_t ps, int decimals) {
  std::uint64_t mag = ps < 0 ? 0 - static_cast<std::uint64_t>(ps) : static_cast<std::uint64_t>(ps);
  std::uint64_t quantum = 1;
  for (int i = decimals; i < 12; ++i) quantum *= 10;
  std::uint64_t units = (mag + quantum / 2) / quantum;  // cannot overflow: mag <= 2^63, quantum <= 10^12
  std::uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  std::string text = (ps < 0 ? "-" : "") + integer(units / scale);
  if (decimals > 0) {
    std::string frac = integer(units % scale);
    text += '.' + std::string(static_cast<std::size_t>(decimals) - frac.size(), '0') + frac;
  }
  return text;
}

// Fewest decimals (at least `min_decimals`, at most 12) that show every time in `times_ps` exactly.
int exact_decimals(const std::vector<std::int64_t>& times_ps, int min_decimals) {
  int decimals = min_decimals;
  for (std::int64_t t : times_ps) {
    while (decimals < 12) {
      std::int64_t quantum = 1;
      for (int i = decimals; i < 12; ++i) quantum *= 10;
      if (t % quantum == 0) break;
      ++decimals;
    }
  }
  return decimals;
}

std::string overrides_text(const results::RunResult& run, std::string_view separator) {
  std::string text;
  for (const auto& o : run.overrides()) {
    if (!text.empty()) text += separator;
    text += o.key() + '=' + o.value();
  }
  return text;
}

// --- aligned tables for the text report ---

enum class Align { left, right };

struct Column {
  std::string_view title;
  Align align;
};

using Row = std::vector<std::string>;  // an empty row prints as a blank line, to separate groups

void write_table(std::ostream& out, std::string_view indent, const std::vector<Column>& columns,
                 const std::vector<Row>& rows, bool with_header = true) {
  std::vector<std::size_t> widths(columns.size(), 0);
  if (with_header)
    for (std::size_t c = 0; c < columns.size(); ++c) widths[c] = columns[c].title.size();
  for (const Row& row : rows)
    for (std::size_t c = 0; c < columns.size() && c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());

  auto line = [&](auto cell_at) {
    std::string text(indent);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::string_view cell = cell_at(c);
      std::string pad(widths[c] - cell.size(), ' ');
      if (c > 0) text += "  ";
      text += columns[c].align == Align::right ? pad + std::string(cell) : std::string(cell) + pad;
    }
    text.erase(text.find_last_not_of(' ') + 1);  // no trailing blanks from left-aligned last columns
    out << text << '\n';
  };
  if (with_header) line([&](std::size_t c) { return columns[c].title; });
  for (const Row& row : rows) {
    if (row.empty())
      out << '\n';
    else
      line([&](std::size_t c) { return c < row.size() ? std::string_view(row[c]) : ""; });
  }
}

void write_run_text(std::ostream& out, const results::RunResult& run, int index, int count) {
  std::string header = "== run " + integer(index + 1) + "/" + integer(count) + ": ";
  header += run.scenario_name().empty() ? std::string("(unnamed)") : run.scenario_name();
  if (!run.scenario_file().empty()) header += " (" + run.scenario_file() + ")";
  header += "  seed=" + integer(run.seed());
  if (run.overrides_size() > 0) header += "  " + overrides_text(run, " ");
  header += "  sim_time=" + seconds_text(run.sim_time_ps(), exact_decimals({run.sim_time_ps()}, 2)) + " s";
  header += "  events=" + integer(run.events());
  header += "  wall_time=" + fixed(run.wall_time_s(), 3) + " s";
  if (run.startup_time_s() > 0) header += " (startup " + fixed(run.startup_time_s(), 3) + " s)";
  out << header << '\n';

  if (!run.error().empty()) {
    // Banner lines so that a failed run stands out among many successful ones.
    std::string_view error = run.error();
    out << "!! ERROR: ";
    for (std::size_t pos = 0;;) {
      std::size_t nl = error.find('\n', pos);
      out << error.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos) << '\n';
      if (nl == std::string_view::npos || nl + 1 == error.size()) break;
      pos = nl + 1;
      out << "!!        ";
    }
  }

  if (run.flows_size() > 0) {
    std::vector<Row> rows;
    for (const auto& f : run.flows())
      rows.push_back({f.name(), f.src() + "->" + f.dst(), integer(f.packets_sent()), integer(f.packets_received()),
                      integer(f.packets_lost()), fixed(f.loss_pct(), 2), fixed(f.sender_mbps(), 4),
                      fixed(f.receiver_mbps(), 4)});
    out << "flows:\n";
    write_table(out, "  ",
                {{"name", Align::left}, {"src->dst", Align::left}, {"sent pkts", Align::right},
                 {"rcvd pkts", Align::right}, {"lost", Align::right}, {"loss %", Align::right},
                 {"sender Mbit/s", Align::right}, {"receiver Mbit/s", Align::right}},
                rows);
    if (run.tcp_jain_index() > 0) {
      const auto n = std::count_if(run.flows().begin(), run.flows().end(), [](const auto& f) { return f.kind() == "tcp"; });
      out << "  Jain's fairness index over the " << n << " tcp flows' receiver Mbit/s: " << fixed(run.tcp_jain_index(), 4)
          << '\n';
    }
    // nuttcp -u receiver summary: MB are 2^20 bytes received, drops are counted against packets sent.
    for (const auto& f : run.flows()) {
      if (f.kind() != "udp") continue;
      out << "  " << f.name() << ": " << fixed(static_cast<double>(f.bytes_received()) / kBytesPerMiB, 4) << " MB / "
          << fixed(seconds(f.end_ps() - f.start_ps()), 2) << " sec = " << fixed(f.receiver_mbps(), 4) << " Mbps "
          << integer(f.packets_lost()) << " / " << integer(f.packets_sent()) << " drop/pkt "
          << fixed(f.loss_pct(), 2) << " %loss\n";
    }
    // TCP flows: the sender's view, as iperf3 -V and TCP_INFO report it, and
    // the Linux receiver's ACKs by cause (delayed-ACK timer, quickack mode).
    std::vector<Row> tcp_rows;
    for (const auto& f : run.flows()) {
      if (f.kind() != "tcp") continue;
      tcp_rows.push_back({f.name(), integer(f.retransmits()), integer(f.recovery_episodes()), integer(f.rto_count()),
                          integer(f.receiver_delayed_acks()), integer(f.receiver_quickack_acks()),
                          integer(f.final_cwnd()), integer(f.srtt_us())});
    }
    // Ping flows: ping(8)'s summary, round-trip times in ms.
    std::vector<Row> ping_rows;
    for (const auto& f : run.flows()) {
      if (f.kind() != "ping") continue;
      const auto ms = [&f](bool has, double v) { return has ? fixed(v, 3) : std::string("-"); };
      ping_rows.push_back({f.name(), integer(f.packets_sent()), integer(f.packets_received()),
                           ms(f.has_rtt_min_ms(), f.rtt_min_ms()), ms(f.has_rtt_avg_ms(), f.rtt_avg_ms()),
                           ms(f.has_rtt_max_ms(), f.rtt_max_ms()), ms(f.has_rtt_stddev_ms(), f.rtt_stddev_ms())});
    }
    if (!ping_rows.empty()) {
      out << "ping:\n";
      write_table(out, "  ",
                  {{"flow", Align::left}, {"transmitted", Align::right}, {"received", Align::right},
                   {"min ms", Align::right}, {"avg ms", Align::right}, {"max ms", Align::right},
                   {"stddev ms", Align::right}},
                  ping_rows);
    }
    if (!tcp_rows.empty()) {
      out << "tcp:\n";
      write_table(out, "  ",
                  {{"flow", Align::left}, {"retransmits", Align::right}, {"recoveries", Align::right},
                   {"RTOs", Align::right}, {"delayed ACKs", Align::right}, {"quick ACKs", Align::right},
                   {"cwnd bytes", Align::right}, {"srtt us", Align::right}},
                  tcp_rows);
    }
  }

  if (run.links_size() > 0) {
    std::vector<Row> rows;
    for (const auto& l : run.links())
      rows.push_back({l.link(), l.from() + "->" + l.to(), integer(l.packets_sent()), integer(l.bytes_sent()),
                      integer(l.packets_dropped()), fixed(l.utilization() * 100.0, 2), integer(l.max_queue_packets()),
                      integer(l.max_queue_bytes())});
    out << "links:\n";
    write_table(out, "  ",
                {{"link", Align::left}, {"from->to", Align::left}, {"packets", Align::right}, {"bytes", Align::right},
                 {"dropped", Align::right}, {"utilization %", Align::right}, {"max queue pkts", Align::right},
                 {"max queue bytes", Align::right}},
                rows);
  }

  std::vector<Row> lpi_rows;
  for (const auto& l : run.links()) {
    if (!l.low_power_idle()) continue;
    lpi_rows.push_back({l.link(), l.from() + "->" + l.to(), integer(l.lpi_wakeups()), integer(l.lpi_joined()),
                        fixed(static_cast<double>(l.lpi_wait_ps()) / 1e6, 3)});
  }
  if (!lpi_rows.empty()) {
    out << "eee:\n";
    write_table(out, "  ",
                {{"link", Align::left}, {"from->to", Align::left}, {"wake-ups", Align::right},
                 {"joined a wake-up", Align::right}, {"waited us", Align::right}},
                lpi_rows);
  }

  std::vector<Row> pause_rows;
  for (const auto& l : run.links()) {
    if (l.pause_frames() == 0 && l.pause_frames_sent() == 0) continue;
    pause_rows.push_back({l.link(), l.from() + "->" + l.to(), integer(l.pause_frames_sent()),
                          integer(l.pause_frames()), fixed(static_cast<double>(l.paused_ps()) / 1e6, 3)});
  }
  if (!pause_rows.empty()) {
    out << "pause (802.3x):\n";
    write_table(out, "  ",
                {{"link", Align::left}, {"from->to", Align::left}, {"pause frames carried", Align::right},
                 {"pause frames obeyed", Align::right}, {"frames held us", Align::right}},
                pause_rows);
  }

  if (run.netem_size() > 0) {
    std::vector<Row> rows;
    for (const auto& q : run.netem())
      rows.push_back({q.host(), seconds_text(q.delay_ps(), exact_decimals({q.delay_ps()}, 3)) + " s",
                      integer(q.limit()), integer(q.packets()), integer(q.dropped()), integer(q.max_queued())});
    out << "netem:\n";
    write_table(out, "  ",
                {{"host", Align::left}, {"delay", Align::right}, {"limit", Align::right}, {"packets", Align::right},
                 {"dropped", Align::right}, {"max queued", Align::right}},
                rows);
  }

  if (run.filters_size() > 0) {
    std::vector<Row> rows;
    for (const auto& f : run.filters())
      rows.push_back({f.name(), f.host(), f.hook(), f.type(), integer(f.matched()), integer(f.dropped())});
    out << "filters:\n";
    write_table(out, "  ",
                {{"name", Align::left}, {"host", Align::left}, {"hook", Align::left}, {"type", Align::left},
                 {"matched", Align::right}, {"dropped", Align::right}},
                rows);
  }

  if (run.nics_size() > 0) {
    // Columns for the optional stages appear only when some NIC uses them, so
    // the table of a plain receive path keeps its shape.
    bool box_nic = false;
    bool wakeups = false;
    bool timer_polls = false;
    bool fifo = false;
    bool frags = false;
    for (const auto& n : run.nics()) {
      frags = frags || n.rx_fragments() > 0;
      fifo = fifo || n.max_fifo_bytes() > 0 || n.pause_xoff_frames() > 0;
      box_nic = box_nic || n.host_rx_interrupts() > 0;
      wakeups = wakeups || n.idle_wakeups() > 0;
      timer_polls = timer_polls || n.timer_polls() > 0;
    }
    std::vector<Column> columns{{"host", Align::left},         {"link", Align::left},
                                {"wire pkts", Align::right},   {"delivered", Align::right},
                                {"segs/aggregate", Align::right}, {"max", Align::right},
                                {"interrupts", Align::right}};
    if (box_nic) {
      columns.push_back({"box nic irqs", Align::right});
      columns.push_back({"box timer frames", Align::right});
    }
    if (wakeups) columns.push_back({"idle wakeups", Align::right});
    if (timer_polls) columns.push_back({"timer polls", Align::right});
    columns.push_back({"ring drops", Align::right});
    if (frags) {
      columns.push_back({"rx buffers", Align::right});
      columns.push_back({"acks merged", Align::right});
    }
    if (fifo) {
      columns.push_back({"max fifo bytes", Align::right});
      columns.push_back({"xoff sent", Align::right});
      columns.push_back({"xon sent", Align::right});
    }
    columns.push_back({"filtered", Align::right});
    std::vector<Row> rows;
    for (const auto& n : run.nics()) {
      Row row{n.host(),
              n.link(),
              integer(n.wire_packets()),
              integer(n.delivered_packets()),
              fixed(n.mean_aggregate_segments(), 2),
              integer(n.max_aggregate_segments()),
              integer(n.interrupts())};
      if (box_nic) {
        row.push_back(integer(n.host_rx_interrupts()));
        row.push_back(integer(n.host_timer_frames()));
      }
      if (wakeups) row.push_back(integer(n.idle_wakeups()));
      if (timer_polls) row.push_back(integer(n.timer_polls()));
      row.push_back(integer(n.ring_drops()));
      if (frags) {
        row.push_back(integer(n.rx_fragments()));
        row.push_back(integer(n.acks_merged()));
      }
      if (fifo) {
        row.push_back(integer(n.max_fifo_bytes()));
        row.push_back(integer(n.pause_xoff_frames()));
        row.push_back(integer(n.pause_xon_frames()));
      }
      row.push_back(integer(n.filtered()));
      rows.push_back(std::move(row));
    }
    out << "receive nics:\n";
    write_table(out, "  ", columns, rows);
  }

  if (run.cpus_size() > 0) {
    std::vector<Row> rows;
    for (const auto& c : run.cpus())
      rows.push_back({c.host(), fixed(c.utilization_pct(), 2), fixed(c.user_pct(), 2), fixed(c.system_pct(), 2),
                      fixed(c.interrupt_pct(), 2), integer(c.work_items())});
    out << "cpus:\n";
    write_table(out, "  ",
                {{"host", Align::left}, {"busy %", Align::right}, {"user %", Align::right},
                 {"system %", Align::right}, {"interrupt %", Align::right}, {"work items", Align::right}},
                rows);
  }

  if (run.vswitches_size() > 0) {
    std::vector<Row> rows;
    for (const auto& v : run.vswitches())
      rows.push_back({v.name(), integer(v.frames()), integer(v.tso_frames_whole()), integer(v.tso_frames_segmented()),
                      integer(v.segments_made()), fixed(v.cpu_pct(), 2)});
    out << "vswitches (hypervisor):\n";
    write_table(out, "  ",
                {{"name", Align::left}, {"frames", Align::right}, {"tso whole", Align::right},
                 {"tso segmented", Align::right}, {"segments made", Align::right}, {"cpu %", Align::right}},
                rows);
  }

  if (run.siftr_size() > 0) {
    std::vector<Row> rows;
    for (const auto& c : run.siftr())
      rows.push_back({c.host(), c.version(), integer(c.inbound_packets()), integer(c.outbound_packets()),
                      integer(c.skipped_packets()), integer(c.records_logged()), integer(c.log_bytes()),
                      fixed(c.hook_cpu_s(), 3), fixed(c.writer_cpu_s(), 3), c.log_file().empty() ? "-" : c.log_file()});
    out << "siftr:\n";
    write_table(out, "  ",
                {{"host", Align::left}, {"version", Align::left}, {"in pkts", Align::right},
                 {"out pkts", Align::right}, {"skipped", Align::right}, {"records", Align::right},
                 {"log bytes", Align::right}, {"hook cpu s", Align::right}, {"writer cpu s", Align::right},
                 {"log", Align::left}},
                rows);
  }

  if (run.captures_size() > 0) {
    std::vector<Row> rows;
    for (const auto& c : run.captures())
      rows.push_back({c.point(), c.file(), integer(c.frames()), integer(c.captured_bytes()), integer(c.snaplen())});
    out << "captures:\n";
    write_table(out, "  ",
                {{"point", Align::left}, {"file", Align::left}, {"frames", Align::right},
                 {"captured bytes", Align::right}, {"snaplen", Align::right}},
                rows);
  }

  if (run.intervals_size() > 0) {
    // Grouped per flow in order of first appearance; samples keep their recorded order within a flow.
    std::vector<std::string> flows;
    std::vector<std::int64_t> times;
    for (const auto& s : run.intervals()) {
      if (std::find(flows.begin(), flows.end(), s.flow()) == flows.end()) flows.push_back(s.flow());
      times.push_back(s.start_ps());
      times.push_back(s.end_ps());
    }
    int decimals = exact_decimals(times, 2);  // iperf shows 2; more only when the period needs them
    out << "intervals:\n";
    std::vector<Row> rows;  // one table for all groups, so that columns line up across flows
    for (std::size_t g = 0; g < flows.size(); ++g) {
      if (g > 0) rows.emplace_back();
      for (const auto& s : run.intervals()) {
        if (s.flow() != flows[g]) continue;
        rows.push_back({"[" + s.flow() + "]",
                        seconds_text(s.start_ps(), decimals) + "-" + seconds_text(s.end_ps(), decimals) + " sec",
                        fixed(static_cast<double>(s.bytes()) / kBytesPerMiB, 4) + " MBytes",
                        fixed(s.mbps(), 4) + " Mbits/sec", integer(s.packets()) + " pkts"});
      }
    }
    write_table(out, "  ",
                {{"", Align::left}, {"", Align::right}, {"", Align::right}, {"", Align::right}, {"", Align::right}},
                rows, /*with_header=*/false);
  }
}

// --- CSV ---

// Column groups of the CSV tables: kept in step with kFlowCsvColumns / kLinkCsvColumns.
constexpr std::size_t kRunCsvFields = 5;         // scenario .. sim_time_s, shared by both tables
constexpr std::size_t kFlowCsvFields = 12;       // flow .. receiver_mbps
constexpr std::size_t kLinkCsvFields = 17;       // link .. pause_frames_sent
static_assert(std::size(kFlowCsvColumns) == kRunCsvFields + 2 + kFlowCsvFields + 1);  // + events, wall_time_s; error
static_assert(std::size(kLinkCsvColumns) == kRunCsvFields + kLinkCsvFields + 1);

}  // namespace

static bool needs_quotes(std::string_view field) { return field.find_first_of(",\"\r\n") != std::string_view::npos; }

void write_csv_record(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out << ',';
    const std::string& f = fields[i];
    if (!needs_quotes(f)) {
      out << f;
      continue;
    }
    out << '"';
    for (char c : f) {
      if (c == '"') out << '"';
      out << c;
    }
    out << '"';
  }
  out << '\n';
}

namespace {

template <std::size_t N>
void write_csv_header(std::ostream& out, const std::string_view (&columns)[N]) {
  write_csv_record(out, std::vector<std::string>(std::begin(columns), std::end(columns)));
}

std::vector<std::string> run_csv_fields(const results::RunResult& run) {
  return {run.scenario_name(), run.scenario_file(), integer(run.seed()), overrides_text(run, ";"),
          format_double_roundtrip(seconds(run.sim_time_ps()))};
}

// Throws with the line where the record started, so that the message points at the bad data.
[[noreturn]] void csv_error(std::size_t line, const std::string& what) {
  throw std::runtime_error("CSV line " + integer(line) + ": " + what);
}

}  // namespace

std::string format_double_roundtrip(double value) {
  std::array<char, 32> buf;  // shortest form of any double is at most 24 chars
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  (void)ec;
  return std::string(buf.data(), end);
}

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  if (name == "text") return OutputFormat::text;
  if (name == "json") return OutputFormat::json;
  if (name == "csv") return OutputFormat::csv;
  if (name == "pb") return OutputFormat::pb;
  return std::nullopt;
}

std::string_view to_string(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return "text";
    case OutputFormat::json: return "json";
    case OutputFormat::csv: return "csv";
    case OutputFormat::pb: return "pb";
  }
  return "?";
}

void write_results(std::ostream& out, const results::RunSet& runs, OutputFormat format) {
  switch (format) {
    case OutputFormat::text: write_text(out, runs); return;
    case OutputFormat::json: write_json(out, runs); return;
    case OutputFormat::csv: write_csv(out, runs); return;
    case OutputFormat::pb: write_pb(out, runs); return;
  }
  throw std::invalid_argument("write_results: unknown output format");
}

void write_text(std::ostream& out, const results::RunSet& runs) {
  if (runs.runs_size() == 0) {
    out << "(no runs)\n";
    return;
  }
  for (int i = 0; i < runs.runs_size(); ++i) {
    if (i > 0) out << '\n';
    write_run_text(out, runs.runs(i), i, runs.runs_size());
  }
}

void write_json(std::ostream& out, const results::RunSet& runs) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(runs, &json, options);
  if (!status.ok()) throw std::runtime_error("cannot convert results to JSON: " + status.ToString());
  out << json;
  if (json.empty() || json.back() != '\n') out << '\n';
}

void write_csv(std::ostream& out, const results::RunSet& runs) {
  write_csv_header(out, kFlowCsvColumns);
  for (const auto& run : runs.runs()) {
    std::vector<std::string> run_fields = run_csv_fields(run);
    run_fields.push_back(integer(run.events()));
    run_fields.push_back(format_double_roundtrip(run.wall_time_s()));
    auto emit = [&](std::vector<std::string> flow_fields) {
      std::vector<std::string> record = run_fields;
      record.insert(record.end(), flow_fields.begin(), flow_fields.end());
      record.push_back(run.error());
      write_csv_record(out, record);
    };
    if (run.flows_size() == 0) emit(std::vector<std::string>(kFlowCsvFields));
    for (const auto& f : run.flows())
      emit({f.name(), f.kind(), f.src(), f.dst(), integer(f.packets_sent()), integer(f.bytes_sent()),
            integer(f.packets_received()), integer(f.bytes_received()), integer(f.packets_lost()),
            format_double_roundtrip(f.loss_pct()), format_double_roundtrip(f.sender_mbps()),
            format_double_roundtrip(f.receiver_mbps())});
  }
}

void write_links_csv(std::ostream& out, const results::RunSet& runs) {
  write_csv_header(out, kLinkCsvColumns);
  for (const auto& run : runs.runs()) {
    std::vector<std::string> run_fields = run_csv_fields(run);
    auto emit = [&](std::vector<std::string> link_fields) {
      std::vector<std::string> record = run_fields;
      record.insert(record.end(), link_fields.begin(), link_fields.end());
      record.push_back(run.error());
      write_csv_record(out, record);
    };
    if (run.links_size() == 0) emit(std::vector<std::string>(kLinkCsvFields));
    for (const auto& l : run.links()) {
      const bool lpi = l.low_power_idle();
      emit({l.link(), l.from(), l.to(), integer(l.packets_sent()), integer(l.bytes_sent()),
            integer(l.packets_dropped()), integer(l.bytes_dropped()), format_double_roundtrip(seconds(l.busy_ps())),
            format_double_roundtrip(l.utilization()), integer(l.max_queue_packets()), integer(l.max_queue_bytes()),
            lpi ? integer(l.lpi_wakeups()) : "", lpi ? integer(l.lpi_joined()) : "",
            lpi ? format_double_roundtrip(seconds(l.lpi_wait_ps())) : "", integer(l.pause_frames()),
            format_double_roundtrip(seconds(l.paused_ps())), integer(l.pause_frames_sent())});
    }
  }
}

void write_pb(std::ostream& out, const results::RunSet& runs) {
  if (!runs.SerializeToOstream(&out)) throw std::runtime_error("cannot write binary results: serialization failed");
}

results::RunSet read_json(std::string_view json) {
  results::RunSet runs;
  google::protobuf::util::JsonParseOptions options;  // strict: unknown fields are errors
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &runs, options);
  if (!status.ok()) throw std::runtime_error("malformed JSON results: " + status.ToString());
  return runs;
}

results::RunSet read_pb(std::istream& in) {
  results::RunSet runs;
  if (!runs.ParseFromIstream(&in)) throw std::runtime_error("malformed binary results: not a netsim.results.RunSet");
  return runs;
}

std::vector<std::map<std::string, std::string>> read_csv(std::istream& in) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw std::runtime_error("CSV: read error");
  std::string_view s = text;
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);  // spreadsheets like to add a BOM

  // Parse every record first; the header is record 0.
  std::vector<std::vector<std::string>> records;
  std::vector<std::size_t> record_lines;
  std::size_t line = 1;
  std::size_t i = 0;
  while (i < s.size()) {
    std::vector<std::string> fields;
    record_lines.push_back(line);
    for (;;) {  // one field per iteration
      std::string field;
      if (i < s.size() && s[i] == '"') {
        std::size_t quote_line = line;
        ++i;
        for (;;) {
          if (i >= s.size()) csv_error(quote_line, "quoted field is not closed");
          char c = s[i++];
          if (c == '"') {
            if (i < s.size() && s[i] == '"') {
              field += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          field += c;
        }
        if (i < s.size() && s[i] != ',' && s[i] != '\n' && s[i] != '\r')
          csv_error(line, "unexpected character after closing quote");
      } else {
        std::size_t end = s.find_first_of(",\r\n\"", i);
        if (end == std::string_view::npos) end = s.size();
        if (end < s.size() && s[end] == '"') csv_error(line, "quote inside an unquoted field");
        field.assign(s.substr(i, end - i));
        i = end;
      }
      fields.push_back(std::move(field));
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      break;  // end of record: line end or end of input
    }
    if (i < s.size()) {
      if (s[i] == '\r') {
        ++i;
        if (i >= s.size() || s[i] != '\n') csv_error(line, "bare CR (expected CRLF or LF)");
      }
      ++i;  // the '\n'
      ++line;
    }
    records.push_back(std::move(fields));
  }

  if (records.empty()) throw std::runtime_error("CSV: empty input, expected a header row");
  const std::vector<std::string>& header = records.front();
  for (std::size_t c = 0; c < header.size(); ++c)
    for (std::size_t d = 0; d < c; ++d)
      if (header[c] == header[d]) csv_error(record_lines.front(), "duplicate column name \"" + header[c] + "\"");

  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != header.size())
      csv_error(record_lines[r], integer(records[r].size()) + " fields, but the header has " + integer(header.size()));
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size(); ++c) row.emplace(header[c], std::move(records[r][c]));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_fixed(double value, int precision) {
  std::array<char, 512> buf;  // enough for any double in fixed notation with <= 17 decimals
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::fixed, precision);
  if (ec != std::errc{}) return "?";
  return std::string(buf.data(), end);
}

}  // namespace netsim
