// Packet captures: the header bytes the encoder writes (options, checksums),
// the pcap file libpcap reads back, and where a scenario's capture points sit
// (a packet the ingress filter drops is in `ingress`, not in `accepted`).
#include <gtest/gtest.h>
#include <pcap/pcap.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "netsim/results/machine_times.h"
#include "netsim/capture/pcap_file.h"
#include "netsim/capture/wire_frame.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/scenario/scenario_runner.h"

namespace netsim {
namespace {

std::uint32_t get16(const std::uint8_t* p) { return (std::uint32_t{p[0]} << 8) | p[1]; }
std::uint32_t get32(const std::uint8_t* p) { return (get16(p) << 16) | get16(p + 2); }

// RFC 1071 sum over `n` bytes plus `extra`, folded: 0xffff when the data
// holds a correct checksum.
std::uint32_t ones_sum(const std::uint8_t* p, std::size_t n, std::uint64_t extra = 0) {
  std::uint64_t s = extra;
  for (std::size_t i = 0; i + 1 < n; i += 2) s += get16(p + i);
  if ((n & 1) != 0) s += std::uint32_t{p[n - 1]} << 8;
  while ((s >> 16) != 0) s = (s & 0xffff) + (s >> 16);
  return static_cast<std::uint32_t>(s);
}

WireAddressBook two_hosts(const std::string& a, const std::string& b) {
  WireAddressBook book;
  book.add(1, a);
  book.add(2, b);
  return book;
}

Packet tcp_packet() {
  Packet p;
  p.id = 0x12345;
  p.src = 1;
  p.dst = 2;
  p.src_port = 49153;
  p.dst_port = 5201;
  p.protocol = IpProtocol::tcp;
  p.tcp.seq = 1000;
  p.tcp.ack = 2000;
  p.tcp.window = 1026;
  p.tcp.flags = tcp_flags::kAck;
  return p;
}

// IPv4 pseudo-header sum for a TCP segment of `l4_len` bytes between 1 and 2.
std::uint64_t pseudo4(const std::uint8_t* ip, std::uint32_t l4_len) {
  std::uint64_t s = 0;
  for (int i = 12; i < 20; i += 2) s += get16(ip + i);
  return s + ip[9] + l4_len;
}

TEST(WireFrame, SynCarriesMssSackPermittedTimestampsAndWindowScaleAsFreeBsdLaysThemOut) {
  const WireAddressBook book = two_hosts("192.168.1.10", "192.168.1.20");
  Packet p = tcp_packet();
  p.tcp.flags = tcp_flags::kSyn;
  p.tcp.mss = 1460;
  p.tcp.sack_permitted = true;
  p.tcp.ts_present = true;
  p.tcp.ts_val = 0x01020304;
  p.tcp.wscale = 6;
  p.l4_header_bytes = 20 + p.tcp.option_bytes();
  std::uint8_t f[kMaxWireHeaderBytes] = {};
  const std::size_t n = encode_wire_headers(p, book, f);
  ASSERT_EQ(n, 14u + 20u + 20u + 20u);  // MSS 4, SACKOK+TS 12, NOP+WS 4
  EXPECT_EQ(n, 14u + p.ip_bytes());
  EXPECT_EQ(get16(f + 12), 0x0800u);
  EXPECT_EQ(f[0], 0x02);  // locally administered MACs
  EXPECT_EQ(f[5], 2);
  EXPECT_EQ(f[11], 1);
  const std::uint8_t* ip = f + 14;
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(get16(ip + 2), 60u);
  EXPECT_EQ(get16(ip + 4), 0x2345u);  // id: the packet id's low 16 bits
  EXPECT_EQ(get16(ip + 6), 0x4000u);  // DF
  EXPECT_EQ(ip[9], 6);
  EXPECT_EQ(ones_sum(ip, 20), 0xffffu);
  const std::uint8_t* tcp = ip + 20;
  EXPECT_EQ(tcp[12] >> 4, 10);
  const std::vector<std::uint8_t> options(tcp + 20, tcp + 40);
  const std::vector<std::uint8_t> expected{2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 6};
  EXPECT_EQ(options, expected);
  EXPECT_EQ(ones_sum(tcp, 40, pseudo4(ip, 40)), 0xffffu);
}

TEST(WireFrame, DataSegmentChecksumCoversZeroPayloadAndSackBlocksFitFortyOptionBytes) {
  const WireAddressBook book = two_hosts("10.0.0.1", "10.0.0.2");
  Packet p = tcp_packet();
  p.tcp.ts_present = true;
  p.tcp.sack_block_count = 4;
  for (std::uint32_t i = 0; i < 4; ++i) p.tcp.sack_blocks[i] = SackBlock{10000 + 3000 * i, 11448 + 3000 * i};
  p.payload_bytes = 1448;
  std::uint8_t f[kMaxWireHeaderBytes] = {};
  const std::size_t n = encode_wire_headers(p, book, f);
  // Timestamps (12) leave room for three SACK blocks (4 + 24): 40 bytes.
  ASSERT_EQ(n, 14u + 20u + 60u);
  const std::uint8_t* ip = f + 14;
  const std::uint8_t* tcp = ip + 20;
  EXPECT_EQ(get16(ip + 2), 20u + 60u + 1448u);
  EXPECT_EQ(tcp[20 + 12 + 2], 5);            // SACK kind after NOP NOP
  EXPECT_EQ(tcp[20 + 12 + 3], 2 + 8 * 3);    // three blocks
  EXPECT_EQ(get32(tcp + 20 + 16), 10000u);
  EXPECT_EQ(get32(tcp + 20 + 16 + 20), 17448u);
  // Zero payload adds nothing to the sum, so the header alone verifies.
  EXPECT_EQ(ones_sum(tcp, 60, pseudo4(ip, 60 + 1448)), 0xffffu);
}

TEST(WireFrame, Ipv6UdpHasPayloadLengthAndAPseudoHeaderChecksum) {
  const WireAddressBook book = two_hosts("2001:db8::1", "2001:db8::2");
  Packet p;
  p.src = 1;
  p.dst = 2;
  p.src_port = 40000;
  p.dst_port = 5001;
  p.protocol = IpProtocol::udp;
  p.ip_version = IpVersion::v6;
  p.l4_header_bytes = 8;
  p.payload_bytes = 1452;
  std::uint8_t f[kMaxWireHeaderBytes] = {};
  const std::size_t n = encode_wire_headers(p, book, f);
  ASSERT_EQ(n, 14u + 40u + 8u);
  EXPECT_EQ(get16(f + 12), 0x86ddu);
  const std::uint8_t* ip = f + 14;
  EXPECT_EQ(ip[0] >> 4, 6);
  EXPECT_EQ(get16(ip + 4), 8u + 1452u);  // payload length
  EXPECT_EQ(ip[6], 17);
  EXPECT_EQ(ip[39], 2);
  const std::uint8_t* udp = ip + 40;
  EXPECT_EQ(get16(udp + 4), 1460u);
  std::uint64_t pseudo = 17 + 1460;
  for (int i = 8; i < 40; i += 2) pseudo += get16(ip + i);
  EXPECT_EQ(ones_sum(udp, 8, pseudo), 0xffffu);
  EXPECT_NE(get16(udp + 6), 0u);  // IPv6 forbids a zero UDP checksum
}

// An echo request (to the responder's port 0) or reply of 16 data bytes.
Packet echo(IpProtocol protocol, IpVersion v, bool request) {
  Packet p;
  p.src = request ? 1 : 2;
  p.dst = request ? 2 : 1;
  p.src_port = request ? 0x4d2 : 0;
  p.dst_port = request ? 0 : 0x4d2;
  p.protocol = protocol;
  p.ip_version = v;
  p.app_seq = 3;
  p.l4_header_bytes = kIcmpHeaderBytes;
  p.payload_bytes = 16;
  return p;
}

TEST(WireFrame, Icmpv6EchoHasNextHeader58Types128And129AndAPseudoHeaderChecksum) {
  const WireAddressBook book = two_hosts("fd00::2", "fd00::3");
  for (bool request : {true, false}) {
    SCOPED_TRACE(request ? "request" : "reply");
    std::uint8_t f[kMaxWireHeaderBytes] = {};
    const std::size_t n = encode_wire_headers(echo(IpProtocol::icmpv6, IpVersion::v6, request), book, f);
    ASSERT_EQ(n, 14u + 40u + 8u);
    EXPECT_EQ(get16(f + 12), 0x86ddu);
    const std::uint8_t* ip = f + 14;
    EXPECT_EQ(get16(ip + 4), 8u + 16u);
    EXPECT_EQ(ip[6], 58);  // next header: ICMPv6
    EXPECT_EQ(ip[7], 64);  // hop limit
    const std::uint8_t* icmp = ip + 40;
    EXPECT_EQ(icmp[0], request ? 128 : 129);
    EXPECT_EQ(icmp[1], 0);
    EXPECT_EQ(get16(icmp + 4), 0x4d2u);  // identifier
    EXPECT_EQ(get16(icmp + 6), 3u);      // sequence
    // RFC 4443 2.3: the checksum covers the IPv6 pseudo-header (addresses,
    // upper-layer length, next header 58) and the message (zero data).
    std::uint64_t pseudo = 58 + 24;
    for (int i = 8; i < 40; i += 2) pseudo += get16(ip + i);
    EXPECT_EQ(ones_sum(icmp, 8, pseudo), 0xffffu);
    EXPECT_NE(ones_sum(icmp, 8), 0xffffu);  // not the ICMPv4 checksum
  }
  // ICMPv4: protocol 1, types 8 and 0, no pseudo-header.
  const WireAddressBook book4 = two_hosts("10.0.0.2", "10.0.0.3");
  std::uint8_t f[kMaxWireHeaderBytes] = {};
  ASSERT_EQ(encode_wire_headers(echo(IpProtocol::icmp, IpVersion::v4, true), book4, f), 14u + 20u + 8u);
  EXPECT_EQ(f[14 + 9], 1);
  EXPECT_EQ(f[14 + 20], 8);
  EXPECT_EQ(ones_sum(f + 14 + 20, 8), 0xffffu);
  ASSERT_EQ(encode_wire_headers(echo(IpProtocol::icmp, IpVersion::v4, false), book4, f), 14u + 20u + 8u);
  EXPECT_EQ(f[14 + 20], 0);
}

TEST(WireFrame, RejectsAnAddressThatIsNotIp) {
  WireAddressBook book;
  EXPECT_THROW(book.add(1, "192.168.1"), std::invalid_argument);
}

std::filesystem::path temp_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("netsim-pcap-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

struct ReadBack {
  int linktype = -1;
  int snaplen = -1;
  std::vector<pcap_pkthdr> headers;
  std::vector<std::vector<std::uint8_t>> frames;
};

ReadBack read_pcap(const std::string& path) {
  char err[PCAP_ERRBUF_SIZE] = {};
  pcap_t* p = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  ReadBack r;
  if (p == nullptr) {
    ADD_FAILURE() << path << ": " << err;
    return r;
  }
  r.linktype = pcap_datalink(p);
  r.snaplen = pcap_snapshot(p);
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  while (pcap_next_ex(p, &h, &data) == 1) {
    r.headers.push_back(*h);
    r.frames.emplace_back(data, data + h->caplen);
  }
  pcap_close(p);
  return r;
}

TEST(PcapFile, LibpcapReadsBackNanosecondTimestampsSnaplenAndLengths) {
  const auto dir = temp_dir("file");
  const std::string path = (dir / "x.pcap").string();
  std::uint8_t frame[200];
  for (int i = 0; i < 200; ++i) frame[i] = static_cast<std::uint8_t>(i);
  {
    PcapFile f(path, 128);
    f.write(1'234'567'891'234, frame, 200, 1514);  // 1.234567891234 s: truncated to ns
    f.write(2'000'000'000'999, frame, 60, 60);
    EXPECT_EQ(f.frames(), 2u);
    EXPECT_EQ(f.bytes_written(), 128u + 60u);
    f.close();
  }
  const ReadBack r = read_pcap(path);
  EXPECT_EQ(r.linktype, DLT_EN10MB);
  EXPECT_EQ(r.snaplen, 128);
  ASSERT_EQ(r.headers.size(), 2u);
  EXPECT_EQ(r.headers[0].ts.tv_sec, 1);
  EXPECT_EQ(r.headers[0].ts.tv_usec, 234567891);  // nanoseconds with the nano precision
  EXPECT_EQ(r.headers[0].caplen, 128u);
  EXPECT_EQ(r.headers[0].len, 1514u);
  EXPECT_EQ(r.frames[0][127], 127);
  EXPECT_EQ(r.headers[1].ts.tv_sec, 2);
  EXPECT_EQ(r.headers[1].ts.tv_usec, 0);
  EXPECT_EQ(r.headers[1].caplen, 60u);
  std::filesystem::remove_all(dir);
}

TEST(PcapFile, AnUnwritablePathIsAnErrorNamingIt) {
  try {
    PcapFile f("/nonexistent-dir/x.pcap", 128);
    FAIL() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.pcap"), std::string::npos) << e.what();
  }
}

// A two-host TCP run whose receiver drops every 50th packet toward port 5201
// on ingress, from the 11th on (the handshake passes).
std::string drop_scenario(const std::string& capture) {
  return R"(name: cap
seed: 1
duration: 400ms
hosts:
  sender:   { address: 10.0.0.1, hz: 1000 }
  receiver: { address: 10.0.0.2, hz: 250 }
switches:
  sw: { buffer: 1MB }
links:
  a: { ends: [sender, sw], rate: 1Gbps, delay: 50us }
  b: { ends: [sw, receiver], rate: 1Gbps, delay: 50us }
filters:
  drop:
    host: receiver
    hook: ingress
    type: nth
    every: 50
    packet: 10
    match: { protocol: tcp, dst_port: 5201 }
traffic:
  bulk: { type: tcp, from: sender, to: receiver, dst_port: 5201, cc: newreno }
)" + capture;
}

TEST(ScenarioCapture, DroppedPacketIsInIngressNotInAcceptedAndWireFramesEqualLinkCounters) {
  const auto dir = temp_dir("scenario");
  const ScenarioSpec spec = parse_scenario_text(drop_scenario(R"(capture:
  snaplen: 96
  hosts: { receiver: [ingress, accepted], sender: [wire_out] }
  links: { b: both }
)"),
                                                "cap.yaml");
  RunOptions o;
  o.pcap_dir = dir.string();
  const results::RunResult r = run_scenario(spec, o);
  ASSERT_EQ(r.filters_size(), 1);
  const std::uint64_t dropped = r.filters(0).dropped();
  ASSERT_GT(dropped, 10u);
  std::map<std::string, std::uint64_t> frames;
  for (const auto& c : r.captures()) frames[c.point()] = c.frames();
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_EQ(frames["receiver.ingress"] - frames["receiver.accepted"], dropped);

  const ReadBack ingress = read_pcap((dir / "receiver.ingress.pcap").string());
  const ReadBack accepted = read_pcap((dir / "receiver.accepted.pcap").string());
  EXPECT_EQ(ingress.headers.size(), frames["receiver.ingress"]);
  EXPECT_EQ(accepted.headers.size(), frames["receiver.accepted"]);
  EXPECT_EQ(ingress.snaplen, 96);
  // Every frame reaching the receiver goes to port 5201, so the rule's first
  // victim is ingress frame 10: accepted holds frames 0-9, then frame 11.
  ASSERT_GT(ingress.frames.size(), 12u);
  ASSERT_GT(accepted.frames.size(), 11u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ingress.frames[i], accepted.frames[i]) << i;
  EXPECT_NE(ingress.frames[10], accepted.frames[10]);
  EXPECT_EQ(ingress.frames[11], accepted.frames[10]);

  for (const auto& l : r.links()) {
    if (l.link() == "b") {
      const std::string point = "b." + l.from();
      EXPECT_EQ(frames[point], l.packets_sent()) << point;
    }
    if (l.link() == "a" && l.from() == "sender") {
      EXPECT_EQ(frames["sender.wire_out"], l.packets_sent());
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(ScenarioCapture, WithoutCaptureTheRunIsBitIdenticalToOneWithCapture) {
  const auto dir = temp_dir("identical");
  const ScenarioSpec spec = parse_scenario_text(drop_scenario(""), "cap.yaml");
  const results::RunResult plain = run_scenario(spec);
  RunOptions o;
  o.pcap_dir = dir.string();
  results::RunResult captured = run_scenario(spec, o);
  EXPECT_EQ(captured.captures_size(), 10);  // every host's five points
  captured.clear_captures();
  results::RunResult p = plain;
  results::clear_machine_times(p);
  results::clear_machine_times(captured);
  EXPECT_EQ(p.SerializeAsString(), captured.SerializeAsString());
  std::filesystem::remove_all(dir);
}

std::string capture_error(const std::string& block) {
  try {
    parse_scenario_text(drop_scenario(block), "cap.yaml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScenarioCapture, BadCaptureBlocksNameFileLineAndField) {
  EXPECT_NE(capture_error("capture: { hosts: { nobody: [ingress] } }\n").find("cap.yaml:22"), std::string::npos)
      << capture_error("capture: { hosts: { nobody: [ingress] } }\n");
  EXPECT_NE(capture_error("capture: { hosts: { nobody: [ingress] } }\n").find("capture.hosts.nobody"), std::string::npos);
  EXPECT_NE(capture_error("capture: { hosts: { sender: [inbound] } }\n").find("wire_in"), std::string::npos);
  EXPECT_NE(capture_error("capture: { snaplen: 10 }\n").find("capture.snaplen"), std::string::npos);
  EXPECT_NE(capture_error("capture: { links: { c: both } }\n").find("capture.links.c"), std::string::npos);
  EXPECT_NE(capture_error("capture: { links: { a: receiver } }\n").find("capture.links.a"), std::string::npos);
  EXPECT_NE(capture_error("capture: { hosts: { sender: [egress, egress] } }\n").find("egress"), std::string::npos);
  EXPECT_NE(capture_error("capture: { snap: 100 }\n").find("capture.snap"), std::string::npos);
}

}  // namespace
}  // namespace netsim
