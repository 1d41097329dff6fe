// 128-bit integers for exact intermediate products (rate x time, ticks x 1e12).
// GCC and Clang provide them; __extension__ keeps -Wpedantic quiet.
#pragma once

namespace netsim {
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;
}  // namespace netsim
