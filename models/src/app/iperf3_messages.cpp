#include "netsim/app/iperf3_messages.h"

#include "cjson_print.h"

namespace netsim::app {
namespace {

// cJSON_PrintUnformatted of an object built member by member: {"k":v,"k":v}.
class UnformattedObject {
 public:
  UnformattedObject& number(const char* key, double value) {
    open_member(key);
    cjson_print_number(out_, value);
    return *this;
  }
  UnformattedObject& string(const char* key, const std::string& value) {
    open_member(key);
    cjson_print_string(out_, value);
    return *this;
  }
  UnformattedObject& boolean(const char* key, bool value) {
    open_member(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  // An array of already printed values.
  UnformattedObject& array(const char* key, const std::vector<std::string>& items) {
    open_member(key);
    out_ += '[';
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += items[i];
    }
    out_ += ']';
    return *this;
  }
  std::string text() const { return out_ + '}'; }

 private:
  void open_member(const char* key) {
    out_ += out_.size() == 1 ? "" : ",";
    cjson_print_string(out_, key);
    out_ += ':';
  }
  std::string out_ = "{";
};

}  // namespace

std::string iperf3_parameters_json(const Iperf3ParametersMessage& m) {
  UnformattedObject j;
  j.boolean("tcp", true);
  j.number("omit", m.omit_s);
  j.number("time", m.time_s);
  j.number("parallel", m.parallel);
  if (m.reverse) j.boolean("reverse", true);
  if (m.len != 0) j.number("len", static_cast<double>(m.len));
  if (m.pacing_timer_us != 0) j.number("pacing_timer", m.pacing_timer_us);
  if (!m.congestion.empty()) j.string("congestion", m.congestion);
  j.string("client_version", m.client_version);
  return j.text();
}

std::string iperf3_results_json(const Iperf3ResultsMessage& m) {
  UnformattedObject j;
  j.number("cpu_util_total", m.cpu_util_total);
  j.number("cpu_util_user", m.cpu_util_user);
  j.number("cpu_util_system", m.cpu_util_system);
  j.number("sender_has_retransmits", m.sender_has_retransmits);
  if (!m.congestion_used.empty()) j.string("congestion_used", m.congestion_used);
  std::vector<std::string> streams;
  streams.reserve(m.streams.size());
  for (const Iperf3StreamResultsEntry& s : m.streams) {
    UnformattedObject e;
    e.number("id", s.id);
    e.number("bytes", static_cast<double>(s.bytes));
    e.number("retransmits", static_cast<double>(s.retransmits));
    e.number("jitter", 0);
    e.number("errors", 0);
    e.number("omitted_errors", 0);
    e.number("packets", 0);
    e.number("omitted_packets", 0);
    e.number("start_time", s.start_time);
    e.number("end_time", s.end_time);
    streams.push_back(e.text());
  }
  j.array("streams", streams);
  return j.text();
}

}  // namespace netsim::app
