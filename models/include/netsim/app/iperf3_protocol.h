// The iperf3 3.17.1 control protocol as byte counts: what each side writes on
// the control connection, in which order, and how long each message is.
//
// Read (own code, no source text) from esnet/iperf: src/iperf_api.h (state
// values), src/iperf.h (COOKIE_SIZE), src/iperf_client_api.c (iperf_connect,
// iperf_handle_message_client, iperf_run_client, iperf_create_streams),
// src/iperf_server_api.c (iperf_accept, iperf_handle_message_server,
// iperf_run_server), src/iperf_api.c (iperf_set_send_state,
// iperf_exchange_parameters, send_parameters, iperf_exchange_results,
// send_results, JSON_write, iperf_add_stream), src/iperf_tcp.c
// (iperf_tcp_connect, iperf_tcp_accept). See docs/iperf3.md.
#pragma once

#include <cstdint>
#include <string_view>

namespace netsim::app {

// A state change is one signed char written on the control connection
// (iperf_set_send_state).
enum class Iperf3State : std::int8_t {
  test_start = 1,
  test_running = 2,
  test_end = 4,
  param_exchange = 9,
  create_streams = 10,
  exchange_results = 13,
  display_results = 14,
  iperf_done = 16,
};

inline constexpr std::uint64_t kIperf3CookieBytes = 37;     // COOKIE_SIZE: 36 characters and a NUL
inline constexpr std::uint64_t kIperf3StateBytes = 1;       // sizeof(signed char)
inline constexpr std::uint64_t kIperf3JsonLengthBytes = 4;  // JSON_write: uint32_t length, network order

// One message on the control connection, as the reading side parses it.
enum class Iperf3Message : std::uint8_t {
  cookie,          // client -> server, 37 bytes
  state,           // either way, 1 byte: the Iperf3State in `state`
  json_length,     // 4 bytes before each JSON text
  parameters,      // client -> server: send_parameters' JSON
  client_results,  // client -> server: the client's send_results JSON
  server_results,  // server -> client: the server's send_results JSON
};

std::string_view iperf3_state_name(Iperf3State s);

}  // namespace netsim::app
