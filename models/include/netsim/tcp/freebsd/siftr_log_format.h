// The text of a siftr.log: one record per line in the layout of the chosen
// version, and the enable and disable lines, formatted as the module's
// snprintf / sbuf_printf calls lay them out, conversion by conversion.
//
// Follows siftr_process_pkt and siftr_manage_ops of
//   1.2.4: sobomax/freebsd14_vendor @ 0f7ff3427c99afe8b7a0ccf8638dc10aed02c3f8 sys/netinet/siftr.c
//   1.3.0: FreeBSD main after review D40302 (ccfbsd/siftr 63710a5), sys/netinet/siftr.c
// (own code, no source text). Formats, per line:
//   1.2.4  %c,0x%08x,%jd.%06ld,<laddr>,%u,<faddr>,%u, 5 x %ld, 7 x %u, %d, 8 x %u \n
//          with IPv4 addresses as %u.%u.%u.%u and IPv6 as 8 x %x joined by ':'
//          (35 conversions for IPv4, 43 for IPv6)
//   1.3.0  %c,%jd.%06ld,%s,%hu,%s,%hu, 21 x %u \n   (28 conversions; the
//          address strings are formatted once per flow, inet_ntoa_r / ip6_sprintf)
// The count of conversions is what the CPU model charges the writer per
// record (docs/siftr.md); it comes out of formatting the line, not a table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "netsim/tcp/freebsd/siftr_record.h"

namespace netsim::tcp {

// MAX_LOG_MSG_LEN: the ALQ entry a record is formatted into.
inline constexpr std::size_t siftr_max_log_msg_len(SiftrVersion v) { return v == SiftrVersion::v1_2_4 ? 200 : 300; }

// An address as 1.3.0 caches it per flow: inet_ntoa_r (IPv4) or ip6_sprintf
// (IPv6, RFC 5952 text as inet_ntop gives it).
struct SiftrAddressText {
  std::array<char, 48> text{};  // INET6_ADDRSTRLEN (46) and a NUL
  std::uint8_t length = 0;
  std::string_view view() const { return {text.data(), length}; }
};
SiftrAddressText siftr_address_text(const SiftrAddress& a);

// One formatted line in a fixed buffer (no allocation), with the number of
// printf conversions formatting it took.
class SiftrLine {
 public:
  std::string_view view() const { return {buf_.data(), size_}; }
  std::size_t size() const { return size_; }
  int conversions() const { return conversions_; }
  void clear() {
    size_ = 0;
    conversions_ = 0;
  }
  void literal(std::string_view s);
  void ch(char c);  // %c
  void u(std::uint64_t v);                       // %u, %lu, %hu, %ju
  void d(std::int64_t v);                        // %d, %ld, %jd
  void zero_padded(std::uint64_t v, int width);  // %06ld
  void hex(std::uint32_t v, int width = 0);      // %x, %08x
  void s(std::string_view v);                    // %s
  // snprintf into MAX_LOG_MSG_LEN bytes: what does not fit (with its NUL) is cut.
  void truncate_to(std::size_t max_with_nul) {
    if (size_ + 1 > max_with_nul) size_ = max_with_nul - 1;
  }

 private:
  void put(char c) {
    if (size_ < buf_.size()) buf_[size_++] = c;
  }
  std::array<char, 320> buf_{};
  std::size_t size_ = 0;
  int conversions_ = 0;
};

// A data line. `laddr_text` / `faddr_text`: the flow's cached strings (1.3.0
// prints those; 1.2.4 formats the record's addresses itself).
void format_siftr_record(SiftrVersion v, const SiftrRecord& r, const SiftrAddressText& laddr_text,
                         const SiftrAddressText& faddr_text, SiftrLine& out);

// The enable and disable lines (sbuf_printf, tab-separated, newline-ended).
std::string format_siftr_enable(SiftrVersion v, const SiftrEnableLine& e);
std::string format_siftr_disable(SiftrVersion v, const SiftrDisableLine& d);

}  // namespace netsim::tcp
