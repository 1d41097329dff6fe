#include "netsim/capture/pcap_file.h"

#include <pcap/pcap.h>

#include <stdexcept>

namespace netsim {

PcapFile::PcapFile(const std::string& path, std::uint32_t snaplen) : path_(path), snaplen_(snaplen) {
  handle_ = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, static_cast<int>(snaplen), PCAP_TSTAMP_PRECISION_NANO);
  if (handle_ == nullptr) throw std::runtime_error("pcap: cannot create a capture handle for " + path);
  dumper_ = pcap_dump_open(handle_, path.c_str());
  if (dumper_ == nullptr) {
    const std::string why = pcap_geterr(handle_);
    pcap_close(handle_);
    handle_ = nullptr;
    throw std::runtime_error("cannot write capture file " + path + ": " + why);
  }
}

PcapFile::~PcapFile() {
  if (dumper_ != nullptr) pcap_dump_close(dumper_);
  if (handle_ != nullptr) pcap_close(handle_);
}

void PcapFile::write(SimTime at, const std::uint8_t* frame, std::uint32_t captured, std::uint32_t length) {
  pcap_pkthdr h{};
  const SimTime ns = at / 1000;
  // With nanosecond precision libpcap stores tv_usec as nanoseconds.
  h.ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  h.ts.tv_usec = static_cast<suseconds_t>(ns % 1'000'000'000);
  h.caplen = captured < snaplen_ ? captured : snaplen_;
  h.len = length;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &h, frame);
  ++frames_;
  bytes_ += h.caplen;
}

void PcapFile::close() {
  if (dumper_ == nullptr) return;
  const bool flushed = pcap_dump_flush(dumper_) == 0;
  pcap_dump_close(dumper_);  // fclose: its result is not reported, so the flush above is the check
  dumper_ = nullptr;
  pcap_close(handle_);
  handle_ = nullptr;
  if (!flushed) throw std::runtime_error("writing capture file " + path_ + " failed (disk full?)");
}

}  // namespace netsim
