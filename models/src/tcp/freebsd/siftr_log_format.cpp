#include "netsim/tcp/freebsd/siftr_log_format.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>

namespace netsim::tcp {
namespace {

std::uint32_t word(const SiftrAddress& a, int i) {
  const auto* b = &a.bytes[static_cast<std::size_t>(4 * i)];
  return (static_cast<std::uint32_t>(b[0]) << 24) | (static_cast<std::uint32_t>(b[1]) << 16) |
         (static_cast<std::uint32_t>(b[2]) << 8) | b[3];
}

// 1.2.4's per-record address text: the four octets of an IPv4 address
// (FIRST_OCTET .. FOURTH_OCTET of the ntohl'ed word), or the eight 16-bit
// groups of an IPv6 one (UPPER_SHORT / LOWER_SHORT of each ntohl'ed word).
void address_v124(SiftrLine& out, const SiftrAddress& a) {
  if (a.family == IpVersion::v4) {
    for (int i = 0; i < 4; ++i) {
      if (i > 0) out.literal(".");
      out.u(a.bytes[static_cast<std::size_t>(i)]);
    }
    return;
  }
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t w = word(a, i);
    if (i > 0) out.literal(":");
    out.hex(w >> 16);
    out.literal(":");
    out.hex(w & 0xFFFF);
  }
}

// laddr PORT_SEP lport BETWEEN faddr PORT_SEP fport: a record's "a,p,a,p"
// and a flow_list entry's "a;p-a;p". 1.3.0 prints the flow's cached address
// text (%s), 1.2.4 formats the address itself.
void endpoints(SiftrLine& out, SiftrVersion v, const SiftrFlow& f, const SiftrAddressText& laddr_text,
               const SiftrAddressText& faddr_text, std::string_view port_sep, std::string_view between) {
  const auto address = [&](const SiftrAddress& a, const SiftrAddressText& text) {
    if (v == SiftrVersion::v1_2_4) {
      address_v124(out, a);
    } else {
      out.s(text.view());
    }
  };
  address(f.laddr, laddr_text);
  out.literal(port_sep);
  out.u(f.lport);
  out.literal(between);
  address(f.faddr, faddr_text);
  out.literal(port_sep);
  out.u(f.fport);
}

// The fields both versions print after the ports, from ssthresh on.
void tcpcb_fields(SiftrVersion v, const SiftrRecord& r, SiftrLine& out) {
  const bool old = v == SiftrVersion::v1_2_4;
  // 1.2.4 prints the u_long windows with %ld; the text is the same.
  const auto wnd = [&](std::uint32_t x) {
    out.literal(",");
    if (old) {
      out.d(static_cast<std::int64_t>(x));
    } else {
      out.u(x);
    }
  };
  const auto field = [&](std::uint64_t x) {
    out.literal(",");
    out.u(x);
  };
  wnd(r.snd_ssthresh);
  wnd(r.snd_cwnd);
  wnd(r.t_flags2);
  wnd(r.snd_wnd);
  wnd(r.rcv_wnd);
  field(r.snd_scale);
  field(r.rcv_scale);
  field(static_cast<std::uint32_t>(r.conn_state));
  field(r.mss);
  field(r.srtt);
  field(r.sack_enabled);
  field(r.t_flags);
  out.literal(",");
  if (old) {
    out.d(static_cast<std::int32_t>(r.rto));  // rxt_length is an int, %d
  } else {
    out.u(r.rto);
  }
  field(r.snd_buf_hiwater);
  field(r.snd_buf_cc);
  field(r.rcv_buf_hiwater);
  field(r.rcv_buf_cc);
  field(r.sent_inflight_bytes);
  field(static_cast<std::uint32_t>(r.t_segqlen));
  field(r.flowid);
  field(r.flowtype);
  out.literal("\n");
}

}  // namespace

SiftrAddressText siftr_address_text(const SiftrAddress& a) {
  SiftrAddressText t;
  const int af = a.family == IpVersion::v4 ? AF_INET : AF_INET6;
  if (inet_ntop(af, a.bytes.data(), t.text.data(), static_cast<socklen_t>(t.text.size())) != nullptr) {
    t.length = static_cast<std::uint8_t>(std::string_view(t.text.data()).size());
  }
  return t;
}

void SiftrLine::literal(std::string_view s) {
  for (const char c : s) put(c);
}

void SiftrLine::ch(char c) {
  ++conversions_;
  put(c);
}

void SiftrLine::u(std::uint64_t v) {
  ++conversions_;
  char tmp[24];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  literal({tmp, static_cast<std::size_t>(r.ptr - tmp)});
}

void SiftrLine::d(std::int64_t v) {
  ++conversions_;
  char tmp[24];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  literal({tmp, static_cast<std::size_t>(r.ptr - tmp)});
}

void SiftrLine::zero_padded(std::uint64_t v, int width) {
  ++conversions_;
  char tmp[24];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  for (auto n = r.ptr - tmp; n < width; ++n) put('0');
  literal({tmp, static_cast<std::size_t>(r.ptr - tmp)});
}

void SiftrLine::hex(std::uint32_t v, int width) {
  ++conversions_;
  char tmp[12];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v, 16);
  for (auto n = r.ptr - tmp; n < width; ++n) put('0');
  literal({tmp, static_cast<std::size_t>(r.ptr - tmp)});
}

void SiftrLine::s(std::string_view v) {
  ++conversions_;
  literal(v);
}

void format_siftr_record(SiftrVersion v, const SiftrRecord& r, const SiftrAddressText& laddr_text,
                         const SiftrAddressText& faddr_text, SiftrLine& out) {
  out.clear();
  out.ch(r.direction == SiftrDirection::in ? 'i' : 'o');
  out.literal(",");
  if (v == SiftrVersion::v1_2_4) {
    out.literal("0x");
    out.hex(r.hash, 8);
    out.literal(",");
  }
  out.d(r.tv_sec);
  out.literal(".");
  out.zero_padded(static_cast<std::uint64_t>(r.tv_usec), 6);
  out.literal(",");
  endpoints(out, v, {r.laddr, r.lport, r.faddr, r.fport}, laddr_text, faddr_text, ",", ",");
  tcpcb_fields(v, r, out);
  out.truncate_to(siftr_max_log_msg_len(v));
}

namespace {
// %06ld
std::string usecs6(std::int32_t us) {
  SiftrLine l;
  l.zero_padded(static_cast<std::uint64_t>(us), 6);
  return std::string(l.view());
}

// One flow_list entry: "laddr;lport-faddr;fport,".
std::string flow_text(SiftrVersion v, const SiftrFlow& f) {
  const bool cached = v == SiftrVersion::v1_3_0;
  SiftrLine l;
  endpoints(l, v, f, cached ? siftr_address_text(f.laddr) : SiftrAddressText{},
            cached ? siftr_address_text(f.faddr) : SiftrAddressText{}, ";", "-");
  l.literal(",");
  return std::string(l.view());
}
}  // namespace

std::string format_siftr_enable(SiftrVersion v, const SiftrEnableLine& e) {
  std::string s = "enable_time_secs=" + std::to_string(e.secs) + "\tenable_time_usecs=" + usecs6(e.usecs) +
                  "\tsiftrver=" + e.siftrver;
  if (v == SiftrVersion::v1_2_4) {
    s += "\thz=" + std::to_string(e.hz) + "\ttcp_rtt_scale=" + std::to_string(e.tcp_rtt_scale);
  }
  s += "\tsysname=" + e.sysname + "\tsysver=" + std::to_string(e.sysver) + "\tipmode=" + std::to_string(e.ipmode) +
       "\n";
  return s;
}

std::string format_siftr_disable(SiftrVersion v, const SiftrDisableLine& d) {
  const SiftrCounters& c = d.counters;
  std::string s = "disable_time_secs=" + std::to_string(d.secs) + "\tdisable_time_usecs=" + usecs6(d.usecs) +
                  "\tnum_inbound_tcp_pkts=" + std::to_string(c.n_in) +
                  "\tnum_outbound_tcp_pkts=" + std::to_string(c.n_out) +
                  "\ttotal_tcp_pkts=" + std::to_string(c.n_in + c.n_out) +
                  "\tnum_inbound_skipped_pkts_malloc=" + std::to_string(c.nskip_in_malloc) +
                  "\tnum_outbound_skipped_pkts_malloc=" + std::to_string(c.nskip_out_malloc);
  if (v == SiftrVersion::v1_2_4) {
    s += "\tnum_inbound_skipped_pkts_mtx=" + std::to_string(c.nskip_in_mtx) +
         "\tnum_outbound_skipped_pkts_mtx=" + std::to_string(c.nskip_out_mtx);
  }
  s += "\tnum_inbound_skipped_pkts_tcpcb=" + std::to_string(c.nskip_in_tcpcb) +
       "\tnum_outbound_skipped_pkts_tcpcb=" + std::to_string(c.nskip_out_tcpcb) +
       "\tnum_inbound_skipped_pkts_inpcb=" + std::to_string(c.nskip_in_inpcb) +
       "\tnum_outbound_skipped_pkts_inpcb=" + std::to_string(c.nskip_out_inpcb) +
       "\ttotal_skipped_tcp_pkts=" + std::to_string(c.total_skipped()) + "\tflow_list=";
  for (const SiftrFlow& f : d.flows) s += flow_text(v, f);
  s += "\n";
  return s;
}

}  // namespace netsim::tcp
