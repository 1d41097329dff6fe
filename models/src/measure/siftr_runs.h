// SIFTR logs as measured runs: one MeasuredRun per enable..disable session,
// with its record counts, log size, the hooks' packet and skip counters and
// its per-flow series (siftr_flow_series.h, default bins) for the trace
// comparison. The records themselves are not kept, so a log of any size
// reads in the memory of its series.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measured_run.h"

namespace netsim::measure {

// Throws MeasureError as read_siftr_log does.
std::vector<MeasuredRun> parse_siftr(std::string_view text, const std::string& file);
// The same from a file, streamed.
std::vector<MeasuredRun> load_siftr(const std::string& path);

// An enable, disable or data line (i,/o, and 27 or 28 fields), not necessarily valid.
bool looks_like_siftr_line(std::string_view text);
// Whether the first non-blank line of `text` is an enable line: a SIFTR log
// as the module writes it (SIFTR's own lines never start any other way).
bool starts_as_siftr_log(std::string_view text);
// The same for the beginning of the file at `path`; false if unreadable.
bool file_starts_as_siftr_log(const std::string& path);

}  // namespace netsim::measure
