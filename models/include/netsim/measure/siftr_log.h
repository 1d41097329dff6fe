// Reading FreeBSD SIFTR logs (siftr.log, written by sys/netinet/siftr.c):
// one session per `enable_time_secs=...` line, its data lines (one per TCP
// packet the pfil hooks logged) and, unless the log was cut, its
// `disable_time_secs=...` line. Versions 1.2.4 (28 fields per data line) and
// 1.3.0 (27 fields); the enable line's siftrver says which, and every data
// line must have that version's field count. Formats: docs/measured-data.md,
// "SIFTR log"; the plain-data types: netsim/tcp/freebsd/siftr_record.h.
//
// Logs reach hundreds of megabytes (T6: 825 MB for two runs), so the reader
// goes line by line: read_siftr_log hands each record to a visitor and keeps
// none; parse_siftr_log is the convenience that keeps them all (about 130
// bytes a record in memory).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "netsim/measure/measure_error.h"
#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::measure {

// One enable..disable session.
struct SiftrSession {
  int line = 0;      // the enable line (1-based)
  int end_line = 0;  // the disable line, or the session's last line when it was cut
  tcp::SiftrVersion version = tcp::SiftrVersion::v1_3_0;
  tcp::SiftrEnableLine enable;
  // Empty when the log was cut: the machine stopped, or the file was copied
  // while SIFTR was still enabled, or another enable line followed.
  std::optional<tcp::SiftrDisableLine> disable;
  std::uint64_t records_in = 0;   // 'i' data lines
  std::uint64_t records_out = 0;  // 'o' data lines
  // The session's text from the start of its enable line to the end of its
  // disable line (of its last complete line when cut), line ends included:
  // what the log file grew by.
  std::uint64_t bytes = 0;
  // A cut session's last line had no line end (the copy stopped in the middle
  // of a write); SIFTR ends every line, so it was left out.
  bool dropped_partial_line = false;
  // The data lines in file order: filled by parse_siftr_log and
  // load_siftr_log, empty in what a SiftrLogVisitor is given.
  std::vector<tcp::SiftrRecord> records;

  bool cut() const { return !disable.has_value(); }
};

// Receives a log as it is read.
class SiftrLogVisitor {
 public:
  virtual ~SiftrLogVisitor() = default;
  // After a session's enable line: line, version and enable are set.
  virtual void begin(const SiftrSession& session) { (void)session; }
  // Each data line of the session, in file order.
  virtual void record(const SiftrSession& session, const tcp::SiftrRecord& record) = 0;
  // At the session's disable line, or where it was cut: counts, bytes,
  // end_line and disable are final.
  virtual void end(const SiftrSession& session) { (void)session; }
};

// Reads a log line by line. Blank lines are skipped, and so are lines outside
// a session that are not SIFTR lines (a pasted shell prompt); inside a
// session every line must be a data line or the disable line. Throws
// MeasureError ("FILE:LINE: error: ...", naming the field) at the first
// problem: a data or disable line before any enable line, a malformed enable
// or disable line, an unsupported siftrver, a data line with another field
// count than its session's version has, a field that does not parse.
void read_siftr_log(std::string_view text, const std::string& file, SiftrLogVisitor& visitor);
void read_siftr_log(std::istream& in, const std::string& file, SiftrLogVisitor& visitor);
// The same from the file at `path` (named `path` in errors), streamed; an
// unreadable file is a MeasureError on line 0.
void read_siftr_log_file(const std::string& path, SiftrLogVisitor& visitor);

// Every session with its records.
std::vector<SiftrSession> parse_siftr_log(std::string_view text, const std::string& file);
std::vector<SiftrSession> load_siftr_log(const std::string& path);

// The pieces, for writers that check their own lines: one line, with or
// without its line end; `file` and `line` only locate the errors.
std::optional<tcp::SiftrVersion> siftr_version_from_name(std::string_view siftrver);  // "1.2.4", "1.3.0"
std::size_t siftr_field_count(tcp::SiftrVersion version);                             // 28, 27
tcp::SiftrEnableLine parse_siftr_enable_line(std::string_view text, const std::string& file, int line);
tcp::SiftrDisableLine parse_siftr_disable_line(std::string_view text, tcp::SiftrVersion version,
                                               const std::string& file, int line);
tcp::SiftrRecord parse_siftr_record(std::string_view text, tcp::SiftrVersion version, const std::string& file,
                                    int line);

}  // namespace netsim::measure
