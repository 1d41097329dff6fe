#include "file_text.h"

#include <fstream>
#include <sstream>

#include "netsim/measure/measure_error.h"

namespace netsim::measure {

std::string read_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MeasureError(path, 0, "cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw MeasureError(path, 0, "cannot read the file");
  return text.str();
}

}  // namespace netsim::measure
