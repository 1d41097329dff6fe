// The message boundaries of an iperf3 control connection.
//
// The TCP models carry byte counts, not bytes. The writing side of each
// direction records what it wrote (message kind and length) in a queue; the
// reading side consumes in-order byte counts as its TCP endpoint delivers
// them and acts on each message once its last byte has arrived, as iperf3's
// blocking Nread of a fixed length (or of the length a JSON_write announced)
// does. The queue stands for the content of the byte stream, nothing else:
// timing, loss and retransmission are the TCP models'.
#pragma once

#include <cstdint>
#include <deque>

#include "netsim/app/iperf3_protocol.h"

namespace netsim::app {

struct Iperf3ControlMessage {
  Iperf3Message kind = Iperf3Message::state;
  Iperf3State state = Iperf3State::test_start;  // for kind == state
  std::uint64_t bytes = 0;
};

// One direction of the control connection.
class Iperf3MessageQueue {
 public:
  // The writer wrote `m` (after the messages pushed before it).
  void push(const Iperf3ControlMessage& m) { queue_.push_back(m); }

  // The reader got `bytes` more in-order bytes: calls `on_message` for every
  // message they complete, oldest first. Bytes beyond the last complete
  // message wait for the rest of it.
  template <typename F>
  void consume(std::uint64_t bytes, F&& on_message) {
    received_ += bytes;
    while (!queue_.empty() && received_ >= queue_.front().bytes) {
      const Iperf3ControlMessage m = queue_.front();
      queue_.pop_front();
      received_ -= m.bytes;
      on_message(m);
    }
  }

  // Messages written and not yet completely read.
  std::size_t in_flight() const { return queue_.size(); }

 private:
  std::deque<Iperf3ControlMessage> queue_;
  std::uint64_t received_ = 0;  // bytes of the front message read so far
};

// A state change as iperf_set_send_state writes it: one byte, sent with
// `write(bytes)` on the side's TCP endpoint and recorded for the reader.
template <typename Write>
void iperf3_write_state(Iperf3MessageQueue& queue, Write&& write, Iperf3State s) {
  write(kIperf3StateBytes);
  queue.push({Iperf3Message::state, s, kIperf3StateBytes});
}

// JSON_write: two writes, the 4-byte length and then the text (with
// TCP_NODELAY on the control connection, two segments).
template <typename Write>
void iperf3_write_json(Iperf3MessageQueue& queue, Write&& write, Iperf3Message kind, std::uint64_t length) {
  write(kIperf3JsonLengthBytes);
  queue.push({Iperf3Message::json_length, Iperf3State::test_start, kIperf3JsonLengthBytes});
  write(length);
  queue.push({kind, Iperf3State::test_start, length});
}

// Both directions of one test's control connection.
struct Iperf3ControlChannel {
  Iperf3MessageQueue to_server;  // written by the client
  Iperf3MessageQueue to_client;  // written by the server
};

}  // namespace netsim::app
