// What iperf 2.1.8 puts on a TCP test's connection besides the data, for a
// plain `iperf -c HOST [-l L] [-t T] [-i I] [-e] [-P N]` against `iperf -s`
// (own code; read in iperf 2.1.8's include/payloads.h, src/Settings.cpp
// Settings_GenerateClientHdr / Settings_GenerateClientHdrV1 /
// Settings_ClientTestHdrLen, src/Client.cpp StartSynch / SendFirstPayload /
// PeerXchange and src/Listener.cpp apply_client_settings_tcp /
// client_test_ack, as shipped in buildroot's iperf-2.1.8 tree):
//
//  * There is no control connection. Each of the -P threads connects its own
//    data socket to the server port (5001 by default) and, once connected,
//    sends the test header with one send(): struct client_tcp_testhdr filled
//    as far as a plain test needs, i.e. client_hdr_v1 (flags, numThreads,
//    mPort, mBufLen, mWinBand, mAmount: 6 x 4 bytes) and client_hdrext (type,
//    length, upper/lower flags, version_u/version_l, reserved, tos, lRate,
//    uRate, TCPWritePrefetch: 36 bytes), 60 bytes in all. Its flags are
//    HEADER_EXTEND | HEADER_LEN_BIT with the length (60) in HEADER_LEN_MASK;
//    no HEADER_VERSION2, as neither -X (peer detect), --trip-times,
//    isochronous, -r/-d/--full-duplex nor --permit-key is given. -e does not
//    change the header.
//  * The client counts these 60 bytes as data (its first report packet, in
//    the first interval) but not as a write: that packet's write count is 0.
//  * The listener reads the 60 bytes (recvn: 4 bytes of flags, then the rest
//    of the announced length), so the server counts them as one read of 60
//    bytes. Because the flags carry HEADER_EXTEND without HEADER_VERSION2,
//    the listener answers with client_test_ack: a struct client_hdr_ack
//    without its timestamps (type, length, flags, version_u, version_l,
//    reserved1, reserved2: 28 bytes), sent with TCP_NODELAY on. That is where
//    the server learns the client's version ("(peer 2.1.8)").
//  * Without -X the client never reads that ack (PeerXchange runs only for
//    peer detection): it waits in the client's receive buffer until the
//    final recv() that awaits the server's close. The client's TCP still
//    acknowledges it (delayed ACK, riding on the next data segment).
//  * The test clock (-t and -i) of each thread starts right after the header
//    is sent (SetReportStartTime, then InitTrafficLoop sets the end time):
//    i.e. when connect() returned. With -P > 1, every thread connects first
//    and waits at a barrier until all are connected (clientside_client_basic
//    in src/Launch.cpp), then sends its header and starts its clock.
//  * The send loop (RunTCP) writes -l bytes per write() while the previous
//    write completed before the end time (InProgress compares the end time
//    with the last write's completion), so the last write completes after
//    it. Then shutdown(SHUT_WR) (a FIN after the data); the server reads
//    until end of file and closes, and the client's final report ends when
//    it sees that close.
#pragma once

#include <cstdint>

namespace netsim::app {

// sizeof(struct client_hdr_v1): flags, numThreads, mPort, mBufLen, mWinBand, mAmount.
inline constexpr std::uint32_t kIperf2ClientHdrV1Bytes = 6 * 4;
// sizeof(struct client_hdrext): type, length (4 each), upperflags, lowerflags
// (2 each), version_u, version_l (4 each), reserved, tos (2 each), lRate,
// uRate, TCPWritePrefetch (4 each).
inline constexpr std::uint32_t kIperf2ClientHdrExtBytes = 4 + 4 + 2 + 2 + 4 + 4 + 2 + 2 + 4 + 4 + 4;
// The first write of a plain TCP test: client_hdr_v1 + client_hdrext.
inline constexpr std::uint32_t kIperf2TestHeaderBytes = kIperf2ClientHdrV1Bytes + kIperf2ClientHdrExtBytes;
// sizeof(struct client_hdr_ack) less its client_hdr_ack_ts (only sent with --trip-times).
inline constexpr std::uint32_t kIperf2HeaderAckBytes = 4 + 4 + 4 + 4 + 4 + 4 + 4;

// Header flag bits (include/payloads.h).
inline constexpr std::uint32_t kIperf2HeaderExtend = 0x40000000;
inline constexpr std::uint32_t kIperf2HeaderVersion2 = 0x04000000;
inline constexpr std::uint32_t kIperf2HeaderLenBit = 0x00010000;
inline constexpr std::uint32_t kIperf2HeaderLenMask = 0x000001FE;

// The flags word of a plain TCP test's header: HEADER_EXTEND | HEADER_LEN_BIT
// and the header length shifted into HEADER_LEN_MASK.
constexpr std::uint32_t iperf2_plain_tcp_flags() {
  return kIperf2HeaderExtend | kIperf2HeaderLenBit | ((kIperf2TestHeaderBytes << 1) & kIperf2HeaderLenMask);
}

// The header length the listener reads from the flags (Settings_ClientTestHdrLen).
constexpr std::uint32_t iperf2_header_length(std::uint32_t flags) {
  return (flags & kIperf2HeaderLenBit) != 0 ? (flags & kIperf2HeaderLenMask) >> 1 : 0;
}

// Whether the listener answers the header with client_test_ack: TCP, and
// either HEADER_EXTEND without HEADER_VERSION2 (a 2.0.13-style client) or
// HEADER_V2PEERDETECT (-X).
constexpr bool iperf2_server_acks_header(std::uint32_t flags) {
  constexpr std::uint32_t kPeerDetect = 0x02000000;
  return ((flags & kIperf2HeaderVersion2) == 0 && (flags & kIperf2HeaderExtend) != 0) || (flags & kPeerDetect) != 0;
}

// iperf 2.1.8's version words (include/version.h): IPERF_VERSION_MAJORHEX and
// IPERF_VERSION_MINORHEX, which the server prints as "(peer 2.1.8)".
inline constexpr std::uint32_t kIperf2VersionMajorHex = 0x00020001;
inline constexpr std::uint32_t kIperf2VersionMinorHex = 0x00080003;

// The Reads=Dist histogram: 8 bins of read_len / 8 bytes (TCPREADBINCOUNT).
inline constexpr int kIperf2ReadBins = 8;

}  // namespace netsim::app
