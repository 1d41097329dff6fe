#include "netsim/measure/siftr_log.h"

#include <arpa/inet.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <system_error>
#include <utility>

namespace netsim::measure {
namespace {

using tcp::SiftrAddress;
using tcp::SiftrCounters;
using tcp::SiftrDirection;
using tcp::SiftrDisableLine;
using tcp::SiftrEnableLine;
using tcp::SiftrFlow;
using tcp::SiftrRecord;
using tcp::SiftrVersion;

constexpr std::string_view kEnablePrefix = "enable_time_secs=";
constexpr std::string_view kDisablePrefix = "disable_time_secs=";

// The data line fields by number (1-based), as siftr_process_pkt prints them.
constexpr std::array<std::string_view, 27> kFields130 = {
    "direction", "time",      "laddr",     "lport",     "faddr",   "fport",    "snd_ssthresh", "snd_cwnd", "t_flags2",
    "snd_wnd",   "rcv_wnd",   "snd_scale", "rcv_scale", "t_state", "t_maxseg", "srtt",         "sack",     "t_flags",
    "rto",       "snd_hiwat", "snd_cc",    "rcv_hiwat", "rcv_cc",  "inflight", "t_segqlen",    "flowid",   "flowtype"};
constexpr std::array<std::string_view, 28> kFields124 = {
    "direction",    "hash",      "time",     "laddr",    "lport",     "faddr",     "fport",
    "snd_ssthresh", "snd_cwnd",  "snd_bwnd", "snd_wnd",  "rcv_wnd",   "snd_scale", "rcv_scale",
    "t_state",      "t_maxseg",  "srtt",     "sack",     "t_flags",   "rto",       "snd_hiwat",
    "snd_cc",       "rcv_hiwat", "rcv_cc",   "inflight", "t_segqlen", "flowid",    "flowtype"};

// The enable and disable lines' keys in the order siftr_manage_ops prints them.
constexpr std::array<std::string_view, 6> kEnableKeys130 = {
    "enable_time_secs", "enable_time_usecs", "siftrver", "sysname", "sysver", "ipmode"};
constexpr std::array<std::string_view, 8> kEnableKeys124 = {
    "enable_time_secs", "enable_time_usecs", "siftrver", "hz", "tcp_rtt_scale", "sysname", "sysver", "ipmode"};
constexpr std::array<std::string_view, 15> kDisableKeys124 = {"disable_time_secs",
                                                              "disable_time_usecs",
                                                              "num_inbound_tcp_pkts",
                                                              "num_outbound_tcp_pkts",
                                                              "total_tcp_pkts",
                                                              "num_inbound_skipped_pkts_malloc",
                                                              "num_outbound_skipped_pkts_malloc",
                                                              "num_inbound_skipped_pkts_mtx",
                                                              "num_outbound_skipped_pkts_mtx",
                                                              "num_inbound_skipped_pkts_tcpcb",
                                                              "num_outbound_skipped_pkts_tcpcb",
                                                              "num_inbound_skipped_pkts_inpcb",
                                                              "num_outbound_skipped_pkts_inpcb",
                                                              "total_skipped_tcp_pkts",
                                                              "flow_list"};
// 1.3.0 dropped the two mtx counters (never incremented in 1.2.4 either).
constexpr std::array<std::string_view, 13> kDisableKeys130 = [] {
  std::array<std::string_view, 13> keys{};
  std::size_t n = 0;
  for (std::string_view k : kDisableKeys124) {
    if (!k.ends_with("_mtx")) keys[n++] = k;
  }
  return keys;
}();

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string joined(const std::string_view* keys, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += keys[i];
  }
  return out;
}

// Where an error is: the file and line, and which field of the line.
struct Where {
  const std::string& file;
  int line;

  [[noreturn]] void fail(const std::string& message) const { throw MeasureError(file, line, message); }
  [[noreturn]] void bad(std::string_view what, std::string_view value, std::string_view problem) const {
    std::string m(what);
    m += ": '";
    m += value;
    m += "' ";
    m += problem;
    fail(m);
  }

  std::uint64_t unsigned_value(std::string_view what, std::string_view v, std::uint64_t max) const {
    std::uint64_t value = 0;
    bool digits = !v.empty();
    for (char c : v) digits = digits && is_digit(c);
    if (!digits) bad(what, v, "is not an unsigned integer");
    const auto r = std::from_chars(v.data(), v.data() + v.size(), value);
    if (r.ec != std::errc() || value > max) bad(what, v, "is out of range (at most " + std::to_string(max) + ")");
    return value;
  }
  std::uint32_t u32(std::string_view what, std::string_view v) const {
    return static_cast<std::uint32_t>(unsigned_value(what, v, std::numeric_limits<std::uint32_t>::max()));
  }
  // %u of an int (t_state, t_segqlen): a negative value prints as its
  // unsigned counterpart, so the cast gives the value back.
  std::int32_t int_as_u32(std::string_view what, std::string_view v) const {
    return static_cast<std::int32_t>(u32(what, v));
  }
  std::uint16_t port(std::string_view what, std::string_view v) const {
    return static_cast<std::uint16_t>(unsigned_value(what, v, 65535));
  }
  std::int64_t seconds(std::string_view what, std::string_view v) const {
    return static_cast<std::int64_t>(
        unsigned_value(what, v, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())));
  }
  std::int32_t usecs(std::string_view what, std::string_view v) const {
    return static_cast<std::int32_t>(unsigned_value(what, v, 999'999));
  }

  // "%jd.%06ld": microtime()'s seconds and exactly six digits of microseconds.
  void time(std::string_view what, std::string_view v, std::int64_t& sec, std::int32_t& usec) const {
    const std::size_t dot = v.find('.');
    const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : v.substr(dot + 1);
    bool ok = dot != std::string_view::npos && dot > 0 && frac.size() == 6;
    for (char c : frac) ok = ok && is_digit(c);
    if (!ok) bad(what, v, "is not a time SECONDS.MICROSECONDS (six digits after the point)");
    sec = seconds(what, v.substr(0, dot));
    usec = usecs(what, frac);
  }

  // inet_ntoa_r and 1.2.4's "%u.%u.%u.%u" give dotted quads; ip6_sprintf
  // and 1.2.4's eight "%x" groups are both IPv6 text inet_pton reads.
  SiftrAddress address(std::string_view what, std::string_view v) const {
    SiftrAddress a;
    char text[INET6_ADDRSTRLEN + 1];
    if (v.size() < sizeof(text)) {
      std::memcpy(text, v.data(), v.size());
      text[v.size()] = '\0';
      if (inet_pton(AF_INET, text, a.bytes.data()) == 1) {
        a.family = IpVersion::v4;
        return a;
      }
      if (inet_pton(AF_INET6, text, a.bytes.data()) == 1) {
        a.family = IpVersion::v6;
        return a;
      }
    }
    bad(what, v, "is not an IPv4 or IPv6 address");
  }
};

// The pieces accept a line with its line end, as a writer formats it.
std::string_view without_line_end(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

std::string field_name(SiftrVersion version, std::size_t index) {
  const std::string_view name = version == SiftrVersion::v1_2_4 ? kFields124[index] : kFields130[index];
  return "field " + std::to_string(index + 1) + " (" + std::string(name) + ")";
}

// "key=value" words separated by tabs (as siftr_manage_ops writes them) or
// spaces (as copies of logs often show them).
struct KeyValue {
  std::string_view key;
  std::string_view value;
};

std::vector<KeyValue> key_values(std::string_view text, std::string_view what, const Where& at) {
  std::vector<KeyValue> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_blank(text[i])) ++i;
    const std::size_t b = i;
    while (i < text.size() && !is_blank(text[i])) ++i;
    if (i == b) break;
    const std::string_view word = text.substr(b, i - b);
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) at.bad(what, word, "is not KEY=VALUE");
    out.push_back({word.substr(0, eq), word.substr(eq + 1)});
  }
  return out;
}

// The words must carry exactly `keys`, in that order.
template <std::size_t N>
void expect_keys(const std::vector<KeyValue>& kv, const std::array<std::string_view, N>& keys, std::string_view what,
                 SiftrVersion version, const Where& at) {
  const std::string layout = "a siftrver " + std::string(tcp::siftr_version_name(version)) + " " + std::string(what) +
                             " has " + joined(keys.data(), N);
  for (std::size_t i = 0; i < N; ++i) {
    if (i >= kv.size()) at.fail(std::string(what) + ": no " + std::string(keys[i]) + "= (" + layout + ")");
    if (kv[i].key != keys[i]) {
      at.fail(std::string(what) + ": expected " + std::string(keys[i]) + "=, found " + std::string(kv[i].key) + "= (" +
              layout + ")");
    }
  }
  if (kv.size() > N) {
    at.fail(std::string(what) + ": unexpected " + std::string(kv[N].key) + "= after " + std::string(keys[N - 1]) +
            "= (" + layout + ")");
  }
}

// "laddr;lport-faddr;fport"
SiftrFlow flow_entry(std::string_view entry, std::size_t number, const Where& at) {
  const std::string what = "disable line, flow_list entry " + std::to_string(number);
  const std::size_t semi1 = entry.find(';');
  const std::size_t dash = semi1 == std::string_view::npos ? semi1 : entry.find('-', semi1);
  const std::size_t semi2 = dash == std::string_view::npos ? dash : entry.find(';', dash);
  if (semi2 == std::string_view::npos) at.bad(what, entry, "is not LADDR;LPORT-FADDR;FPORT");
  SiftrFlow f;
  f.laddr = at.address(what + " laddr", entry.substr(0, semi1));
  f.lport = at.port(what + " lport", entry.substr(semi1 + 1, dash - semi1 - 1));
  f.faddr = at.address(what + " faddr", entry.substr(dash + 1, semi2 - dash - 1));
  f.fport = at.port(what + " fport", entry.substr(semi2 + 1));
  return f;
}

}  // namespace

std::optional<SiftrVersion> siftr_version_from_name(std::string_view siftrver) {
  if (siftrver == "1.2.4") return SiftrVersion::v1_2_4;
  if (siftrver == "1.3.0") return SiftrVersion::v1_3_0;
  return std::nullopt;
}

std::size_t siftr_field_count(SiftrVersion version) {
  return version == SiftrVersion::v1_2_4 ? kFields124.size() : kFields130.size();
}

SiftrEnableLine parse_siftr_enable_line(std::string_view text, const std::string& file, int line) {
  const Where at{file, line};
  const auto kv = key_values(without_line_end(text), "enable line", at);
  std::string_view ver;
  for (const KeyValue& w : kv) {
    if (w.key == "siftrver") ver = w.value;
  }
  if (ver.empty()) at.fail("enable line without siftrver=");
  const auto version = siftr_version_from_name(ver);
  if (!version) at.bad("enable line, siftrver", ver, "is not supported (expected 1.2.4 or 1.3.0)");
  const bool old = *version == SiftrVersion::v1_2_4;
  if (old) {
    expect_keys(kv, kEnableKeys124, "enable line", *version, at);
  } else {
    expect_keys(kv, kEnableKeys130, "enable line", *version, at);
  }
  SiftrEnableLine e;
  e.secs = at.seconds("enable line, enable_time_secs", kv[0].value);
  e.usecs = at.usecs("enable line, enable_time_usecs", kv[1].value);
  e.siftrver = std::string(ver);
  std::size_t i = 3;
  if (old) {
    e.hz = at.u32("enable line, hz", kv[i].value);
    if (e.hz == 0) at.bad("enable line, hz", kv[i].value, "is not a tick rate");
    e.tcp_rtt_scale = at.u32("enable line, tcp_rtt_scale", kv[i + 1].value);
    if (e.tcp_rtt_scale == 0) at.bad("enable line, tcp_rtt_scale", kv[i + 1].value, "is not a scale");
    i += 2;
  }
  if (kv[i].value.empty()) at.fail("enable line: empty sysname=");
  e.sysname = std::string(kv[i].value);
  e.sysver = at.u32("enable line, sysver", kv[i + 1].value);
  e.ipmode = at.u32("enable line, ipmode", kv[i + 2].value);
  if (e.ipmode != 4 && e.ipmode != 6) at.bad("enable line, ipmode", kv[i + 2].value, "is not 4 or 6");
  return e;
}

SiftrDisableLine parse_siftr_disable_line(std::string_view text, SiftrVersion version, const std::string& file,
                                          int line) {
  const Where at{file, line};
  const auto kv = key_values(without_line_end(text), "disable line", at);
  const bool old = version == SiftrVersion::v1_2_4;
  if (old) {
    expect_keys(kv, kDisableKeys124, "disable line", version, at);
  } else {
    expect_keys(kv, kDisableKeys130, "disable line", version, at);
  }
  auto name = [&kv](std::size_t i) { return "disable line, " + std::string(kv[i].key); };
  auto u64 = [&](std::size_t i) {
    return at.unsigned_value(name(i), kv[i].value, std::numeric_limits<std::uint64_t>::max());
  };
  auto u32 = [&](std::size_t i) { return at.u32(name(i), kv[i].value); };
  SiftrDisableLine d;
  d.secs = at.seconds(name(0), kv[0].value);
  d.usecs = at.usecs(name(1), kv[1].value);
  SiftrCounters& c = d.counters;
  c.n_in = u64(2);
  c.n_out = u64(3);
  const std::uint64_t total = u64(4);
  c.nskip_in_malloc = u32(5);
  c.nskip_out_malloc = u32(6);
  std::size_t i = 7;
  if (old) {
    c.nskip_in_mtx = u32(7);
    c.nskip_out_mtx = u32(8);
    i = 9;
  }
  c.nskip_in_tcpcb = u32(i);
  c.nskip_out_tcpcb = u32(i + 1);
  c.nskip_in_inpcb = u32(i + 2);
  c.nskip_out_inpcb = u32(i + 3);
  const std::uint32_t skipped = u32(i + 4);
  // SIFTR prints the totals from the same counters: a mismatch is damage.
  if (total != c.n_in + c.n_out) {
    at.fail("disable line: total_tcp_pkts " + std::to_string(total) +
            " is not num_inbound_tcp_pkts + num_outbound_tcp_pkts (" + std::to_string(c.n_in + c.n_out) + ")");
  }
  if (skipped != c.total_skipped()) {
    at.fail("disable line: total_skipped_tcp_pkts " + std::to_string(skipped) +
            " is not the sum of the skipped counts (" + std::to_string(c.total_skipped()) + ")");
  }
  // One "laddr;lport-faddr;fport," per flow, the last one with its comma too.
  std::string_view list = kv[i + 5].value;
  std::size_t number = 1;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view entry = list.substr(0, comma);
    if (entry.empty()) at.bad("disable line, flow_list entry " + std::to_string(number), entry, "is empty");
    d.flows.push_back(flow_entry(entry, number++, at));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return d;
}

SiftrRecord parse_siftr_record(std::string_view text, SiftrVersion version, const std::string& file, int line) {
  const Where at{file, line};
  text = without_line_end(text);
  const std::size_t expected = siftr_field_count(version);
  std::array<std::string_view, kFields124.size()> f{};
  std::size_t n = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    if (n < f.size()) f[n] = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    ++n;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (n != expected) {
    const SiftrVersion other = version == SiftrVersion::v1_2_4 ? SiftrVersion::v1_3_0 : SiftrVersion::v1_2_4;
    if (n == siftr_field_count(other)) {
      at.fail(std::to_string(n) + " fields, a siftrver " + tcp::siftr_version_name(other) +
              " data line, in a siftrver " + tcp::siftr_version_name(version) + " session (whose data lines have " +
              std::to_string(expected) + ")");
    }
    at.fail("expected " + std::to_string(expected) + " comma-separated fields (siftrver " +
            tcp::siftr_version_name(version) + "), found " + std::to_string(n));
  }
  auto name = [version](std::size_t i) { return field_name(version, i); };
  SiftrRecord r;
  if (f[0] == "i") {
    r.direction = SiftrDirection::in;
  } else if (f[0] == "o") {
    r.direction = SiftrDirection::out;
  } else {
    at.bad(name(0), f[0], "is not 'i' or 'o'");
  }
  std::size_t k = 1;  // the next field
  if (version == SiftrVersion::v1_2_4) {
    // "0x%08x"
    const std::string_view h = f[1];
    std::uint32_t hash = 0;
    const auto res = h.size() == 10 && h.starts_with("0x")
                         ? std::from_chars(h.data() + 2, h.data() + h.size(), hash, 16)
                         : std::from_chars_result{h.data(), std::errc::invalid_argument};
    if (res.ec != std::errc() || res.ptr != h.data() + h.size()) at.bad(name(1), h, "is not a hash 0xXXXXXXXX");
    r.hash = hash;
    k = 2;
  }
  at.time(name(k), f[k], r.tv_sec, r.tv_usec);
  r.laddr = at.address(name(k + 1), f[k + 1]);
  r.lport = at.port(name(k + 2), f[k + 2]);
  r.faddr = at.address(name(k + 3), f[k + 3]);
  if (r.faddr.family != r.laddr.family) {
    at.bad(name(k + 3), f[k + 3],
           r.faddr.family == IpVersion::v6 ? "is an IPv6 address, laddr an IPv4 one"
                                           : "is an IPv4 address, laddr an IPv6 one");
  }
  r.fport = at.port(name(k + 4), f[k + 4]);
  k += 5;
  // From snd_ssthresh on both versions have the same fields in the same
  // order (1.2.4's snd_bwnd where 1.3.0 has t_flags2).
  std::uint32_t* const u32_fields[] = {&r.snd_ssthresh, &r.snd_cwnd,  &r.t_flags2, &r.snd_wnd,
                                       &r.rcv_wnd,      &r.snd_scale, &r.rcv_scale};
  for (std::uint32_t* p : u32_fields) {
    *p = at.u32(name(k), f[k]);
    ++k;
  }
  r.conn_state = at.int_as_u32(name(k), f[k]);
  ++k;
  std::uint32_t* const rest[] = {&r.mss,          &r.srtt,
                                 &r.sack_enabled, &r.t_flags,
                                 &r.rto,          &r.snd_buf_hiwater,
                                 &r.snd_buf_cc,   &r.rcv_buf_hiwater,
                                 &r.rcv_buf_cc,   &r.sent_inflight_bytes};
  for (std::uint32_t* p : rest) {
    *p = at.u32(name(k), f[k]);
    ++k;
  }
  r.t_segqlen = at.int_as_u32(name(k), f[k]);
  r.flowid = at.u32(name(k + 1), f[k + 1]);
  r.flowtype = at.u32(name(k + 2), f[k + 2]);
  return r;
}

namespace {

// The session state machine, fed one line at a time.
class Reader {
 public:
  Reader(const std::string& file, SiftrLogVisitor& visitor) : file_(file), visitor_(visitor) {}

  // `raw` is the line without its '\n'; `terminated` whether it had one.
  void line(std::string_view raw, bool terminated) {
    ++number_;
    const std::uint64_t size = raw.size() + (terminated ? 1 : 0);
    std::string_view text = raw;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    text = trim(text);
    if (text.empty()) {
      if (open_) pending_bytes_ += size;
      return;
    }
    const Where at{file_, number_};
    if (text.starts_with(kEnablePrefix)) {
      if (!terminated && !parses([&] { parse_siftr_enable_line(text, file_, number_); })) {
        if (open_) session_.dropped_partial_line = true;
        return;
      }
      if (open_) close();
      begin(parse_siftr_enable_line(text, file_, number_), size);
      return;
    }
    if (text.starts_with(kDisablePrefix)) {
      if (!open_) at.fail("disable line without an enable line (enable_time_secs=...) before it");
      if (!terminated && !parses([&] { parse_siftr_disable_line(text, session_.version, file_, number_); })) {
        session_.dropped_partial_line = true;
        return;
      }
      session_.disable = parse_siftr_disable_line(text, session_.version, file_, number_);
      add_bytes(size);
      close();
      return;
    }
    const bool data = text.size() > 1 && (text[0] == 'i' || text[0] == 'o') && text[1] == ',';
    if (!open_) {
      if (data) at.fail("data line before any enable line (enable_time_secs=...)");
      return;  // not SIFTR's: a prompt or a note around the log
    }
    if (!terminated) {
      // SIFTR ends every line: this one was cut in the middle of a write.
      session_.dropped_partial_line = true;
      return;
    }
    if (!data && text.find(',') == std::string_view::npos) {
      at.fail("expected a data line or the disable line (disable_time_secs=...), found '" +
              std::string(text.substr(0, 40)) + (text.size() > 40 ? "...'" : "'"));
    }
    const SiftrRecord r = parse_siftr_record(text, session_.version, file_, number_);
    ++(r.direction == SiftrDirection::in ? session_.records_in : session_.records_out);
    add_bytes(size);
    visitor_.record(session_, r);
  }

  void finish() {
    if (open_) close();
  }

 private:
  template <typename F>
  static bool parses(F&& f) {
    try {
      f();
      return true;
    } catch (const MeasureError&) {
      return false;
    }
  }

  void begin(SiftrEnableLine enable, std::uint64_t size) {
    session_ = SiftrSession{};
    session_.line = number_;
    session_.version = *siftr_version_from_name(enable.siftrver);
    session_.enable = std::move(enable);
    session_.bytes = size;
    session_.end_line = number_;
    pending_bytes_ = 0;
    open_ = true;
    visitor_.begin(session_);
  }

  // Blank lines count once a later line of the session follows them.
  void add_bytes(std::uint64_t size) {
    session_.bytes += pending_bytes_ + size;
    pending_bytes_ = 0;
    session_.end_line = number_;
  }

  void close() {
    open_ = false;
    visitor_.end(session_);
  }

  const std::string& file_;
  SiftrLogVisitor& visitor_;
  SiftrSession session_;
  bool open_ = false;
  int number_ = 0;
  std::uint64_t pending_bytes_ = 0;
};

// Keeps every session with its records.
class Collector : public SiftrLogVisitor {
 public:
  void begin(const SiftrSession& s) override { sessions.push_back(s); }
  void record(const SiftrSession&, const SiftrRecord& r) override { sessions.back().records.push_back(r); }
  void end(const SiftrSession& s) override {
    std::vector<SiftrRecord> records = std::move(sessions.back().records);
    sessions.back() = s;
    sessions.back().records = std::move(records);
  }

  std::vector<SiftrSession> sessions;
};

}  // namespace

void read_siftr_log(std::string_view text, const std::string& file, SiftrLogVisitor& visitor) {
  Reader reader(file, visitor);
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      reader.line(text, false);
      break;
    }
    reader.line(text.substr(0, nl), true);
    text.remove_prefix(nl + 1);
  }
  reader.finish();
}

void read_siftr_log(std::istream& in, const std::string& file, SiftrLogVisitor& visitor) {
  Reader reader(file, visitor);
  std::string buffer;
  while (std::getline(in, buffer)) reader.line(buffer, !in.eof());
  if (in.bad()) throw MeasureError(file, 0, "cannot read the file: read error");
  reader.finish();
}

void read_siftr_log_file(const std::string& path, SiftrLogVisitor& visitor) {
  // As read_file_text, but streamed: a log may be larger than memory allows
  // to hold twice (an ifstream opens a directory and then reads nothing).
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw MeasureError(path, 0, "cannot read the file: it is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw MeasureError(path, 0,
                       "cannot read the file: " +
                           (errno != 0 ? std::generic_category().message(errno) : std::string("cannot open it")));
  }
  read_siftr_log(in, path, visitor);
}

std::vector<SiftrSession> parse_siftr_log(std::string_view text, const std::string& file) {
  Collector c;
  read_siftr_log(text, file, c);
  return std::move(c.sessions);
}

std::vector<SiftrSession> load_siftr_log(const std::string& path) {
  Collector c;
  read_siftr_log_file(path, c);
  return std::move(c.sessions);
}

}  // namespace netsim::measure
