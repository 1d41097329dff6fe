// A pcap capture file written through libpcap's dump API (pcap_dump_open on
// a dead Ethernet handle): LINKTYPE_ETHERNET, nanosecond timestamps (the
// 0xa1b23c4d magic), the chosen snapshot length.
#pragma once

#include <cstdint>
#include <string>

#include "netsim/sim/time.h"

struct pcap;
struct pcap_dumper;

namespace netsim {

class PcapFile {
 public:
  // Creates (truncates) `path`. Throws std::runtime_error naming the path and
  // libpcap's reason when it cannot.
  PcapFile(const std::string& path, std::uint32_t snaplen);
  ~PcapFile();
  PcapFile(const PcapFile&) = delete;
  PcapFile& operator=(const PcapFile&) = delete;

  // One frame at simulated time `at` (picoseconds, truncated to ns): `frame`
  // holds its first min(captured, snaplen) bytes, `length` its length on the wire.
  void write(SimTime at, const std::uint8_t* frame, std::uint32_t captured, std::uint32_t length);
  // Flushes and closes; throws std::runtime_error when the data did not reach
  // the file (a full disk). The destructor closes silently.
  void close();

  const std::string& path() const { return path_; }
  std::uint32_t snaplen() const { return snaplen_; }
  std::uint64_t frames() const { return frames_; }
  std::uint64_t bytes_written() const { return bytes_; }  // captured bytes, without record headers

 private:
  std::string path_;
  std::uint32_t snaplen_;
  pcap* handle_ = nullptr;
  pcap_dumper* dumper_ = nullptr;
  std::uint64_t frames_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace netsim
