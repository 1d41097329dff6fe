// The merged views of sweep records: JSON Lines and a CSV table for pandas.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "netsim/results/sweep_record.pb.h"

namespace netsim::sweep {

// One record per line, in the Protobuf JSON mapping of results::SweepRecord
// (proto field names, every field present; 64-bit integers are strings, as
// the mapping prescribes). Throws std::runtime_error if a record cannot be converted.
void write_records_jsonl(std::ostream& out, const std::vector<results::SweepRecord>& records);

// Reads what write_records_jsonl wrote. Throws std::runtime_error naming the line.
std::vector<results::SweepRecord> read_records_jsonl(std::istream& in);

// One row per (run, flow); a failed run or a run without flows gives one row
// with empty flow columns. Columns: key, run_index, status (ok | failed), one
// column per parameter key found in any record (named by the key, e.g.
// hosts.sender.hz; sorted; empty where a record lacks it), seed, then
// kRecordFlowColumns, then error. RFC 4180 quoting, "\n" line ends, doubles in
// shortest round-trip form.
void write_records_csv(std::ostream& out, const std::vector<results::SweepRecord>& records);

inline constexpr const char* kRecordFlowColumns[] = {
    "scenario", "flow", "kind", "src", "dst", "packets_sent", "bytes_sent", "packets_received", "bytes_received",
    "packets_lost", "loss_pct", "sender_mbps", "receiver_mbps", "retransmits", "rto_count", "recovery_episodes",
    "final_cwnd", "srtt_us", "sender_cpu_pct", "receiver_cpu_pct", "sim_time_s", "events", "wall_time_s"};

}  // namespace netsim::sweep
