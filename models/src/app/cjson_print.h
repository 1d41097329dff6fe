// How cJSON 1.7.15 (the copy bundled with iperf3 3.17.1) prints a number and a
// string: shared by the -J report and by the control-connection messages, whose
// lengths depend on it. Internal to the app models.
#pragma once

#include <string>

namespace netsim::app {

// cJSON's print_number: numbers are doubles; one equal to its (saturated) int
// value prints as "%d", otherwise "%1.15g" if that reads back within
// DBL_EPSILON (relative), else "%1.17g"; NaN and infinities print as null.
void cjson_print_number(std::string& out, double d);

// cJSON's print_string_ptr: quoted, with ", \ and control characters escaped;
// other bytes as they are.
void cjson_print_string(std::string& out, const std::string& s);

}  // namespace netsim::app
