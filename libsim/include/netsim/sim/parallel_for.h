// Independent jobs on worker threads: fn(i) for every i in [0, count), each
// exactly once, on `jobs` threads (0: one per core, never more than count).
// Workers take the next index, so fn must write only its own slot; what is
// deterministic is the set of results, not the order they finish in. fn
// must not throw (catch and record per index).
#pragma once

#include <cstddef>
#include <functional>

namespace netsim {

void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& fn);

}  // namespace netsim
