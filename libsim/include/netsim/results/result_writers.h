// Writing run results (results::RunSet) as text, JSON, CSV or binary Protobuf, and reading them back.
//
// All number formatting goes through std::to_chars, so output never depends on
// the C or C++ locale and is byte-identical across machines for equal input.
// Writers leave stream errors to the caller (check the stream state afterwards),
// except write_pb, which can only report failure by throwing.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/results/run_result.pb.h"

namespace netsim {

enum class OutputFormat { text, json, csv, pb };

// "text", "json", "csv" or "pb" (exact, lower case); nullopt for anything else.
std::optional<OutputFormat> parse_output_format(std::string_view name);
std::string_view to_string(OutputFormat format);

void write_results(std::ostream& out, const results::RunSet& runs, OutputFormat format);

// A report for humans on a terminal: per run a header line, then aligned tables
// of flows (with nuttcp -u style summary lines), links, filters and interval samples.
void write_text(std::ostream& out, const results::RunSet& runs);

// Pretty-printed proto3 JSON with proto field names and all primitive fields present.
// Throws std::runtime_error if the message cannot be converted.
void write_json(std::ostream& out, const results::RunSet& runs);

// One table, one row per (run, flow); a run without flows yields one row with empty
// flow columns. RFC 4180 quoting, "\n" line ends, doubles in shortest round-trip form,
// overrides as "k=v;k=v". Columns in the order of kFlowCsvColumns.
void write_csv(std::ostream& out, const results::RunSet& runs);
// One row per (run, link direction), columns kLinkCsvColumns; a run without links yields
// one row with empty link columns. utilization is a fraction (busy / simulated time);
// the lpi_ columns (Energy-Efficient Ethernet) are empty for a link without it.
void write_links_csv(std::ostream& out, const results::RunSet& runs);

// Line 1: the run; line 2: the flow (or link); then the run's error, last because it may be long.
inline constexpr std::string_view kFlowCsvColumns[] = {
    "scenario", "file", "seed", "overrides", "sim_time_s", "events", "wall_time_s",
    "flow", "kind", "src", "dst", "packets_sent", "bytes_sent", "packets_received", "bytes_received",
    "packets_lost", "loss_pct", "sender_mbps", "receiver_mbps",
    "error"};
inline constexpr std::string_view kLinkCsvColumns[] = {
    "scenario", "file", "seed", "overrides", "sim_time_s",
    "link", "from", "to", "packets_sent", "bytes_sent", "packets_dropped", "bytes_dropped", "busy_s",
    "utilization", "max_queue_packets", "max_queue_bytes", "lpi_wakeups", "lpi_joined", "lpi_wait_s",
    "pause_frames", "paused_s", "pause_frames_sent", "error"};

// One RFC 4180 record with a "\n" line end; a field is quoted only when it holds ',', '"', CR or LF.
void write_csv_record(std::ostream& out, const std::vector<std::string>& fields);

// Binary Protobuf serialization of the RunSet. Throws std::runtime_error on failure.
void write_pb(std::ostream& out, const results::RunSet& runs);

// Readers, for round trips and post-processing. All throw std::runtime_error on malformed input.
results::RunSet read_json(std::string_view json);
results::RunSet read_pb(std::istream& in);
// RFC 4180: the first record is the header; every record must have as many fields as the
// header. Accepts CRLF or LF line ends, an optional final line end and a leading UTF-8 BOM.
std::vector<std::map<std::string, std::string>> read_csv(std::istream& in);

// Shortest text that parses back (std::from_chars / strtod) to exactly `value`.
std::string format_double_roundtrip(double value);

// printf's "%.<precision>f" in the C locale, whatever the global locale is.
std::string format_fixed(double value, int precision);

}  // namespace netsim
