// A Slurm job-array script (for sbatch) that runs a sweep as N shards: array
// task I runs `netsim sweep ... --shard I/N` into the shared result directory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace netsim::sweep {

struct SlurmScriptOptions {
  std::string job_name = "netsim-sweep";
  std::string netsim;                 // absolute path of the netsim binary (the nodes must see the same path)
  std::vector<std::string> sweep_args;  // `netsim sweep` arguments without --shard (absolute paths)
  std::string out_dir;                // absolute result directory; Slurm's own output goes to OUT/slurm/
  std::size_t shards = 1;             // array tasks 0 .. shards-1
  unsigned cpus_per_task = 1;         // also the sweep's -j in each task
};

// The whole script text: #SBATCH lines (--array, --cpus-per-task, --output),
// then an exec of netsim with --shard "$SLURM_ARRAY_TASK_ID/N". Options given
// to sbatch on its command line override the #SBATCH lines (e.g. --partition).
std::string slurm_script(const SlurmScriptOptions& o);

// `s` as one POSIX shell word: unchanged when it has only safe characters,
// else in single quotes with each ' written as '\''.
std::string shell_quote(std::string_view s);

}  // namespace netsim::sweep
