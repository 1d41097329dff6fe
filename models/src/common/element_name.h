// The names a scenario file gives its elements, and the names of the
// congestion controls and filter types it can select: [A-Za-z0-9_-]+, so a
// name is one segment of a dotted field path and a plain YAML scalar.
#pragma once

#include <algorithm>
#include <string_view>

namespace netsim {

inline bool is_element_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace netsim
