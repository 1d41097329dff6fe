// Damaged measurement files: every sample under tests/data/measure/, cut
// short, with lines dropped or doubled, and with words replaced by tokens
// the parsers treat specially. Whatever the damage, reading a file either
// gives runs or a MeasureError naming the file; nothing else escapes (and,
// under the sanitizers, nothing reads out of bounds).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "measure_test_support.h"
#include "netsim/measure/measurement_file.h"

namespace netsim::measure {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

// One random damage of `text`.
std::string damaged(const std::string& text, std::mt19937& rng) {
  static const std::vector<std::string> tokens = {
      "",        "-",      "0",         "x",       "1.2K",    "<Link#1>", "[SUM]",  "[  5]", "sec",
      "Name",    "tcp:",   "#kernel",   "{",       "}",       "\"end\"",  "nan",    "-1",    "1e9",
      "Drop",    "---",    "0.00-1.00", "Mbits/sec", "KBytes", "=",       "ms",     "time=", "99999999999999999999999"};
  auto pick = [&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  std::vector<std::string> lines = lines_of(text);
  switch (pick(4)) {
    case 0:  // cut short anywhere
      return text.substr(0, pick(text.size() + 1));
    case 1:  // a line dropped
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())));
      return joined(lines);
    case 2: {  // a line doubled
      const std::size_t i = pick(lines.size());
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), lines[i]);
      return joined(lines);
    }
    default: {  // a word replaced
      std::string& line = lines[pick(lines.size())];
      std::vector<std::pair<std::size_t, std::size_t>> words;
      for (std::size_t i = 0; i < line.size();) {
        while (i < line.size() && line[i] == ' ') ++i;
        const std::size_t b = i;
        while (i < line.size() && line[i] != ' ') ++i;
        if (i > b) words.emplace_back(b, i - b);
      }
      if (words.empty()) {
        line = tokens[pick(tokens.size())];
      } else {
        const auto [at, len] = words[pick(words.size())];
        line.replace(at, len, tokens[pick(tokens.size())]);
      }
      return joined(lines);
    }
  }
}

TEST(MeasureRobustness, DamagedSamplesGiveRunsOrAMeasureError) {
  std::mt19937 rng(20261201);
  int files = 0, parsed = 0, rejected = 0;
  // In name order, so that each file gets the same damage on every machine.
  std::vector<fs::path> samples;
  for (const auto& entry : fs::directory_iterator(test_support::kData)) {
    if (entry.path().extension() != ".yaml") samples.push_back(entry.path());
  }
  std::sort(samples.begin(), samples.end());
  for (const fs::path& path : samples) {
    const std::string name = path.filename().string();
    std::string text;
    {
      std::ifstream in(path, std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    ++files;
    for (int i = 0; i < 300; ++i) {
      const std::string bad = damaged(text, rng);
      try {
        const auto runs = parse_measurements(bad, name);
        EXPECT_FALSE(runs.empty()) << name;
        ++parsed;
      } catch (const MeasureError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(name, 0), 0u) << e.what();
        ++rejected;
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << ": " << e.what() << "\n--- damaged input:\n" << bad;
      }
    }
  }
  EXPECT_GT(files, 25);
  // Both outcomes occur: the damage is neither always fatal nor always harmless.
  EXPECT_GT(parsed, 1000);
  EXPECT_GT(rejected, 1000);
  std::cout << files << " samples, " << parsed << " damaged copies read, " << rejected << " rejected\n";
}

}  // namespace
}  // namespace netsim::measure
