#include "json_document.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

#include "netsim/measure/measure_error.h"

namespace netsim::measure::json {
namespace {

constexpr int kMaxDepth = 200;

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<Value> documents() {
    std::vector<Value> out;
    skip_space();
    if (at_end()) fail("no JSON value in the file");
    while (!at_end()) {
      out.push_back(value(0));
      skip_space();
    }
    return out;
  }

 private:
  // At the end of the text the line is that of its last non-blank character:
  // a truncated file is reported where its content stops.
  [[noreturn]] void fail(const std::string& message) const {
    int line = line_;
    if (at_end()) {
      const std::size_t last = text_.find_last_not_of(" \t\r\n");
      line = 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(
                                                                                 last == std::string_view::npos ? 0 : last),
                                             '\n'));
    }
    throw MeasureError(file_, line, "JSON: " + message);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  void skip_space() {
    while (!at_end()) {
      const char c = peek();
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++pos_;
    }
  }

  std::string found() const {
    if (at_end()) return "the end of the file";
    const char c = peek();
    if (static_cast<unsigned char>(c) < 0x20) return "a control character";
    return std::string("'") + c + "'";
  }

  void expect(char c, const char* what) {
    skip_space();
    if (at_end() || peek() != c) fail(std::string("expected ") + what + ", found " + found());
    ++pos_;
  }

  Value value(int depth) {
    skip_space();
    if (at_end()) fail("expected a value, found the end of the file (truncated?)");
    if (depth > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    Value v;
    v.line = line_;
    const char c = peek();
    if (c == '{') {
      object(v, depth);
    } else if (c == '[') {
      array(v, depth);
    } else if (c == '"') {
      v.kind = Value::Kind::string;
      v.string = string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Value::Kind::number;
      v.number = number();
    } else if (literal("true")) {
      v.kind = Value::Kind::boolean;
      v.boolean = true;
    } else if (literal("false")) {
      v.kind = Value::Kind::boolean;
    } else if (literal("null")) {
      v.kind = Value::Kind::null;
    } else {
      fail("expected a value, found " + found());
    }
    return v;
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  void object(Value& v, int depth) {
    v.kind = Value::Kind::object;
    ++pos_;  // '{'
    skip_space();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return;
    }
    while (true) {
      skip_space();
      if (at_end() || peek() != '"') fail("expected a member name in double quotes, found " + found());
      const int key_line = line_;
      std::string key = string();
      if (std::find(v.keys.begin(), v.keys.end(), key) != v.keys.end()) {
        line_ = key_line;
        fail("duplicate member \"" + key + "\"");
      }
      expect(':', "':' after a member name");
      v.items.push_back(value(depth + 1));
      v.keys.push_back(std::move(key));
      v.key_lines.push_back(key_line);
      skip_space();
      if (at_end()) fail("expected ',' or '}' in an object, found the end of the file (truncated?)");
      if (peek() == '}') {
        ++pos_;
        return;
      }
      expect(',', "',' or '}' in an object");
    }
  }

  void array(Value& v, int depth) {
    v.kind = Value::Kind::array;
    ++pos_;  // '['
    skip_space();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      v.items.push_back(value(depth + 1));
      skip_space();
      if (at_end()) fail("expected ',' or ']' in an array, found the end of the file (truncated?)");
      if (peek() == ']') {
        ++pos_;
        return;
      }
      expect(',', "',' or ']' in an array");
    }
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::uint32_t hex4() {
    if (text_.size() - pos_ < 4) fail("\\u escape needs four hex digits");
    std::uint32_t cp = 0;
    const auto r = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, cp, 16);
    if (r.ec != std::errc() || r.ptr != text_.data() + pos_ + 4) fail("\\u escape needs four hex digits");
    pos_ += 4;
    return cp;
  }

  std::string string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string (truncated?)");
      const char c = peek();
      ++pos_;
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        fail("control character in a string (a newline must be written \\n)");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) fail("unterminated string (truncated?)");
      const char e = peek();
      ++pos_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          // A surrogate pair encodes one code point above U+FFFF.
          if (cp >= 0xD800 && cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("invalid UTF-16 surrogate pair in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: fail(std::string("invalid escape '\\") + e + "' in a string");
      }
    }
  }

  // RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  double number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (at_end()) fail("a number needs digits");
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("a number needs digits");
    }
    if (!at_end() && peek() == '.') {
      ++pos_;
      if (digits() == 0) fail("a number needs digits after '.'");
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
      if (digits() == 0) fail("a number needs digits in its exponent");
    }
    double d = 0;
    const auto r = std::from_chars(text_.data() + start, text_.data() + pos_, d);
    if (r.ec != std::errc() || r.ptr != text_.data() + pos_) fail("number out of range");
    return d;
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::object) return nullptr;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &items[i];
  }
  return nullptr;
}

std::string describe(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::null: return "null";
    case Value::Kind::boolean: return "a boolean";
    case Value::Kind::number: return "a number";
    case Value::Kind::string: return "a string";
    case Value::Kind::array: return "an array";
    case Value::Kind::object: return "an object";
  }
  return "a value";
}

std::vector<Value> parse_documents(std::string_view text, const std::string& file) {
  return Parser(text, file).documents();
}

}  // namespace netsim::measure::json
