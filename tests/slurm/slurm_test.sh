#!/usr/bin/env bash
# The emitted Slurm job array, on a real single-node Slurm cluster started
# here: slurmctld and slurmd as the current user, with a generated slurm.conf
# (auth/none, no cgroups, no accounting) and state in a temporary directory.
# The array's merged results must equal a local sweep's, record for record.
#
# If a part of Slurm cannot run on this machine, the test says exactly what
# failed (command, exit status, the daemon's log), runs the array's tasks by
# hand with SLURM_ARRAY_TASK_ID set instead, and still checks everything else.
# Usage: slurm_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$src/tests/cli/test_lib.sh"
compare="python3 $src/tests/cli/compare_sweeps.py"
cluster=$work/cluster
shards=4
sweep_args=(sweep "$src/scenarios/t1-loss-resilience.yaml" --seeds 2)  # 24 cells x 2 seeds = 48 runs

stop_slurm() {
  local f
  for f in "$cluster/slurmd.pid" "$cluster/slurmctld.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 0.5
  for f in "$cluster/slurmd.pid" "$cluster/slurmctld.pid"; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  return 0
}
trap 'stop_slurm; rm -rf "$work"' EXIT

# A TCP port nothing listens on (bash's /dev/tcp connect fails).
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

why=""  # what failed, when Slurm cannot be used here
start_slurm() {
  local cmd
  for cmd in slurmctld slurmd sbatch sinfo; do
    command -v "$cmd" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    command -v "$cmd" >/dev/null 2>&1 || { why="'$cmd' not found: install slurm-wlm (tools/setup.sh does)"; return 1; }
  done
  mkdir -p "$cluster/state" "$cluster/spool" "$cluster/log"
  local ctl_port slurmd_port user
  ctl_port=$(free_port) && slurmd_port=$(free_port) || { why="no free TCP port found"; return 1; }
  # Two draws can coincide (1 in 20000); the daemons must not share a port.
  while [ "$slurmd_port" = "$ctl_port" ]; do slurmd_port=$(free_port) || { why="no free TCP port found"; return 1; }; done
  user=$(id -un)
  cat >"$cluster/slurm.conf" <<CONF
ClusterName=netsimtest
SlurmctldHost=localhost
SlurmctldPort=$ctl_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/log/slurmctld.log
SlurmdLogFile=$cluster/log/slurmd.log
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$cluster/slurm.conf
  slurmctld -f "$SLURM_CONF" >"$cluster/log/slurmctld.out" 2>&1 ||
    { why="slurmctld -f $SLURM_CONF exited with $?: $(tail -5 "$cluster/log/slurmctld.out" "$cluster/log/slurmctld.log" 2>&1)"; return 1; }
  slurmd -f "$SLURM_CONF" -N localhost >"$cluster/log/slurmd.out" 2>&1 ||
    { why="slurmd -f $SLURM_CONF -N localhost exited with $?: $(tail -5 "$cluster/log/slurmd.out" "$cluster/log/slurmd.log" 2>&1)"; return 1; }
  local state=""
  for _ in $(seq 1 60); do
    state=$(sinfo -h -o %T 2>&1)
    [ "$state" = idle ] && return 0
    sleep 0.5
  done
  why="the node did not become idle within 30 s (sinfo: '$state'); slurmd log: $(tail -5 "$cluster/log/slurmd.log" 2>&1)"
  return 1
}

# The script and the local reference sweep.
expect emit-slurm 0 "48 runs in $shards array tasks" '' -- \
  "$netsim" "${sweep_args[@]}" --out "$work/cluster-results" --emit-slurm --shards "$shards"
script=$work/cluster-results/sweep.sbatch
"$netsim" "${sweep_args[@]}" -j 2 --out "$work/local" --progress none 2>/dev/null

if start_slurm; then
  pass "slurm cluster up (slurmctld + slurmd, auth/none, node localhost idle)"
  if timeout 120 sbatch --wait "$script" >"$work/sbatch.out" 2>&1; then
    pass "sbatch --wait: job array $(grep -o '[0-9]*' "$work/sbatch.out" | head -1) finished"
  else
    fail "sbatch --wait exited with $?: $(cat "$work/sbatch.out")"
    squeue 2>&1 | head -20
    tail -20 "$cluster/log/slurmctld.log" "$cluster/log/slurmd.log"
  fi
  outs=$(find "$work/cluster-results/slurm" -name '*.out' | wc -l)
  ran=$(cat "$work/cluster-results/slurm/"*.out 2>/dev/null | grep -c "runs in shard [0-3]/$shards (of 48)")
  if [ "$outs" -eq "$shards" ] && [ "$ran" -eq "$shards" ]; then
    pass "each of the $shards array tasks ran its shard (Slurm output files)"
  else
    fail "array task outputs: $outs files, $ran shard summaries"; cat "$work/cluster-results/slurm/"*.out
  fi
else
  echo "SLURM NOT USABLE HERE: $why"
  echo "running the array's $shards tasks by hand with SLURM_ARRAY_TASK_ID instead"
  for i in $(seq 0 $((shards - 1))); do SLURM_ARRAY_TASK_ID=$i bash "$script" 2>/dev/null; done
fi

expect results-merge 0 'iperf3' '48 records in .*, 0 failed' -- "$netsim" results "$work/cluster-results"
if $compare "$work/cluster-results" "$work/local" 48; then pass "cluster results equal the local sweep"; else fail "cluster results differ"; fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
