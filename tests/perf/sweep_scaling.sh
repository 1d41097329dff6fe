#!/usr/bin/env bash
# Sweep throughput scaling: a 216-run T1 sweep (24 cells x 9 seeds) with -j 1
# and -j 2, interleaved (j1 j2 j1 j2 ...) so that a busy neighbour hurts both
# alike; prints each wall time, the medians and the ratio j2/j1.
# Exits 1 when the median ratio exceeds the target (0.6 on 2 cores).
#
# Not part of the default test run (timing on a shared machine is noisy):
#   tests/perf/sweep_scaling.sh build/bin/netsim . [SEEDS] [REPETITIONS]
# or configure with -DNETSIM_PERF_TESTS=ON and run `ctest -L perf`.
set -u
netsim=$1
src=$2
seeds=${3:-9}
reps=${4:-3}
target=0.6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg), $seeds seeds x 24 cells, $reps repetitions"
TIMEFORMAT='%R %U %S'
for rep in $(seq 1 "$reps"); do
  for j in 1 2; do
    rm -rf "$work/out"
    # bash's time keyword: wall, user and system seconds of the sweep.
    { time "$netsim" sweep "$src/scenarios/t1-loss-resilience.yaml" --seeds "$seeds" -j "$j" --out "$work/out" \
        --progress none 2>"$work/err"; } 2>"$work/time" || { cat "$work/err"; exit 2; }
    read -r secs user sys <"$work/time"
    echo "$secs" >>"$work/j$j"
    printf 'rep %d  -j %d  %6.2f s wall  %6.2f s CPU  (load %s)\n' "$rep" "$j" "$secs" \
      "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done
m1=$(median <"$work/j1")
m2=$(median <"$work/j2")
ratio=$(awk -v a="$m1" -v b="$m2" 'BEGIN { print b / a }')
printf 'median -j 1: %.2f s   median -j 2: %.2f s   ratio j2/j1: %.3f (target <= %s)\n' "$m1" "$m2" "$ratio" "$target"
awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r <= t) }'
