#include <utility>

#include "netsim/scenario/scenario_loader.h"
#include "yaml_reader.h"

namespace netsim {
namespace {

std::string format_error(const SourceLoc& loc, const std::string& field, const std::string& message,
                         const std::string& override_text) {
  std::string out;
  if (loc.file == kOverrideSource) {
    out = loc.file;
    if (!override_text.empty()) out += " " + override_text;
  } else {
    out = loc.file;
    if (loc.line > 0) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
  }
  out += ": error: ";
  // The field path is made of the document's keys: printable, never cut.
  if (!field.empty()) out += "field '" + scenario_internal::printable(field) + "': ";
  out += message;
  return out;
}

}  // namespace

ScenarioError::ScenarioError(SourceLoc loc_in, std::string field_in, std::string message_in,
                             std::string override_text_in)
    : std::runtime_error(format_error(loc_in, field_in, message_in, override_text_in)),
      loc(std::move(loc_in)),
      field(std::move(field_in)),
      message(std::move(message_in)),
      override_text(std::move(override_text_in)) {}

}  // namespace netsim
