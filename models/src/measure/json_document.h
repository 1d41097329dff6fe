// A strict JSON (RFC 8259) reader that keeps the line of every value.
//
// Why not yaml-cpp or protobuf's JSON utilities, both already linked: yaml-cpp
// accepts much that is not JSON (unquoted strings, comments, single quotes)
// and rejects tab characters in some positions where cJSON (iperf3) puts them;
// protobuf's JsonStringToMessage reports a byte offset at best and no line for
// a value that parses but is wrong (a string where iperf3 writes a number).
// Measurement errors must name the line, so values carry theirs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace netsim::measure::json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  int line = 0;  // where the value starts
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> items;          // array elements, or object member values
  std::vector<std::string> keys;     // object member names, parallel to items
  std::vector<int> key_lines;        // the line of each member name

  // The member `key` of an object, or nullptr (also for non-objects).
  const Value* find(std::string_view key) const;
};

// "an object", "a number", ... for messages.
std::string describe(Value::Kind kind);

// The top-level values of `text`, in order (iperf3 --logfile appends one
// document per run; whitespace between them is allowed). Throws MeasureError
// naming `file` and the line of the first syntax error, of a duplicate member
// name, or of nesting deeper than 200 levels.
std::vector<Value> parse_documents(std::string_view text, const std::string& file);

}  // namespace netsim::measure::json
