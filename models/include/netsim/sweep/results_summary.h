// `netsim results`: sweep records grouped by axis values and flow, with the
// mean, min and max of chosen flow metrics over the runs of each group
// (typically the seeds of one cell).
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/results/sweep_record.pb.h"
#include "netsim/stats/sample_summary.h"

namespace netsim::sweep {

// A --by key or --metric that the records do not have; the message lists the valid ones.
class SummaryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SummaryOptions {
  // Parameter keys to group by; empty: every key whose value differs between records, except seed.
  std::vector<std::string> group_by;
  // Numeric fields of results.FlowStats (receiver_mbps, retransmits, loss_pct, ...).
  std::vector<std::string> metrics{"receiver_mbps"};
};

struct SummaryRow {
  std::vector<std::string> group;  // values of Summary::group_by ("" where a record lacks the key)
  std::string flow;                // "" for a group none of whose runs succeeded
  std::size_t runs = 0;            // successful runs with this flow
  std::size_t failed = 0;          // failed runs of the group
  std::vector<stats::SampleSummary> metrics;  // one per Summary::metrics; n = 0 when runs = 0
};

struct Summary {
  std::vector<std::string> group_by;
  std::vector<std::string> metrics;
  std::vector<SummaryRow> rows;  // groups in order of first appearance, flows in record order
};

// Throws SummaryError for an unknown group key or metric.
Summary summarize_records(const std::vector<results::SweepRecord>& records, const SummaryOptions& options);

// An aligned table: group columns, flow, runs, failed, then METRIC_mean, _min, _max per metric.
void write_summary_text(std::ostream& out, const Summary& s);
// The same columns as CSV, doubles in shortest round-trip form.
void write_summary_csv(std::ostream& out, const Summary& s);

}  // namespace netsim::sweep
