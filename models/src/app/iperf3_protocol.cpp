#include "netsim/app/iperf3_protocol.h"

namespace netsim::app {

std::string_view iperf3_state_name(Iperf3State s) {
  switch (s) {
    case Iperf3State::test_start: return "TEST_START";
    case Iperf3State::test_running: return "TEST_RUNNING";
    case Iperf3State::test_end: return "TEST_END";
    case Iperf3State::param_exchange: return "PARAM_EXCHANGE";
    case Iperf3State::create_streams: return "CREATE_STREAMS";
    case Iperf3State::exchange_results: return "EXCHANGE_RESULTS";
    case Iperf3State::display_results: return "DISPLAY_RESULTS";
    case Iperf3State::iperf_done: return "IPERF_DONE";
  }
  return "?";
}

}  // namespace netsim::app
