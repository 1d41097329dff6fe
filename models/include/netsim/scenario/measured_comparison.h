// Simulated beside measured: the `measured:` block of a scenario and the
// comparison of a sweep's results against it.
//
// The block names which sweep keys identify a cell, which flow metric is
// compared, and the measured value of each cell (see docs/scenario-format.md):
//
//   measured:
//     source: "measured-tables.md, T1"
//     metric: receiver_mbps            # or sender_mbps
//     flow: iperf3                     # optional: the flow compared (default: the first)
//     keys: { hz: hosts.sender.hz, cc: traffic.iperf3.cc, every: filters.drop.every }
//     cells:
//       - { hz: 100, cc: newreno, every: 100, value: 915 }
//     claims:                          # optional ratios between cells
//       - { text: "patched / stock, hz=100, 1%", measured: 4.5,
//           numerator: { hz: 100, cc: cubic_d46046, every: 100 },
//           denominator: { hz: 100, cc: cubic, every: 100 } }
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netsim/results/run_result.pb.h"
#include "netsim/scenario/scenario_spec.h"

namespace netsim {

struct MeasuredCell {
  std::vector<std::string> key_values;  // in the order of MeasuredSpec::keys
  double value = 0;
};

struct MeasuredClaim {
  std::string text;
  double measured = 0;
  std::vector<std::string> numerator;    // key values
  std::vector<std::string> denominator;
};

struct MeasuredSpec {
  std::string source;
  std::string metric = "receiver_mbps";
  std::string flow;  // empty: the first flow of each run
  std::vector<std::pair<std::string, std::string>> keys;  // column name, scenario path
  std::vector<MeasuredCell> cells;
  std::vector<MeasuredClaim> claims;
};

// Parses spec.measured; nullopt when the scenario has no `cells`. Throws
// ScenarioError (file, line, column, field) on a malformed block.
std::optional<MeasuredSpec> parse_measured(const ScenarioSpec& spec);

// One row per measured cell: simulated mean and range over the runs (seeds)
// whose overrides match the cell's key values.
struct ComparisonRow {
  std::vector<std::string> key_values;
  std::size_t runs = 0;
  double sim_mean = 0, sim_min = 0, sim_max = 0;
  double measured = 0;
  double error_pct = 0;  // (sim_mean - measured) / measured * 100
};

std::vector<ComparisonRow> compare(const results::RunSet& runs, const MeasuredSpec& m);

// The comparison as an aligned table plus the claimed ratios, simulated beside measured.
void write_comparison_text(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m);
// One row per run (seed) of the compared flow: the key columns, seed,
// sender_mbps, receiver_mbps, retransmits, measured_mbps, error_pct.
void write_comparison_csv(std::ostream& out, const results::RunSet& runs, const MeasuredSpec& m);

}  // namespace netsim
