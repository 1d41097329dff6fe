#include "netsim/sim/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace netsim {

void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& fn) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) fn(i);
  };
  const unsigned wanted = jobs != 0 ? jobs : std::max(1u, std::thread::hardware_concurrency());
  const auto n = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, count)));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

}  // namespace netsim
