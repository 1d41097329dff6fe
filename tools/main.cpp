#include <iostream>
#include "netsim/version.h"
int main() { std::cout << "netsim " << NETSIM_VERSION << "\n"; return 0; }
