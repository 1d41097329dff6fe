#!/usr/bin/env bash
# Installs netsim's build dependencies (Debian 12) if any are missing, then
# configures and builds the project with CMake + Ninja.
#
#   tools/setup.sh [CMAKE_ARG...]
#
# Arguments are passed to the CMake configure step, e.g.
#   tools/setup.sh -DNETSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
# Environment:
#   BUILD_DIR         build directory (default: build, relative to the repository root)
#   CMAKE_BUILD_TYPE  build type of a new build directory (default: RelWithDebInfo)
#   NETSIM_*          every such variable is passed on as -DNETSIM_...=VALUE,
#                     e.g. NETSIM_SANITIZE=ON tools/setup.sh
#   JOBS              parallel build jobs (default: all cores)
#
# Safe to re-run: with everything installed it does no apt work, and the
# build is incremental. Progress and build output go to stderr.
set -euo pipefail

readonly packages=(
  cmake ninja-build g++ pkg-config
  libboost-graph-dev libeigen3-dev libyaml-cpp-dev
  libprotobuf-dev protobuf-compiler
  libgtest-dev libbenchmark-dev
  python3                # tests: results.csv through Python's csv module, record comparisons
  python3-yaml           # tests: the input fuzzer (tests/fuzz) reads the scenarios' keys
  slurm-wlm              # tests: the emitted job array on a single-node Slurm cluster (auth/none, no munge)
  libnetfilter-queue-dev # netsim-nfq-delay: the lab's NFQUEUE delay line (this kernel has no sch_netem)
  iproute2 iptables ethtool  # netsim lab: ip netns, veth, tc htb; statistic nth rules; veth offloads
  iputils-ping jq        # netsim lab: tools/lab/nfq_delay_check.sh (RTT samples, daemon stats)
  iperf3 iperf nuttcp    # netsim lab: the real traffic tools the scenario's flows name
  gnuplot-nox            # netsim plot: PNG (pngcairo) and SVG pictures
  libpcap-dev            # capture: pcap files through libpcap's dump API
  tshark                 # tests: the capture files read back by Wireshark's TCP analysis
  pybind11-dev python3-dev  # the Python module (import netsim)
  python3-pandas         # netsim.sweep / netsim.results return a pandas DataFrame
)

say() { printf 'setup.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"

# --- 1. Debian packages ------------------------------------------------------
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$p")
  done
else
  say "dpkg-query not found: not a Debian system; make sure these are installed: ${packages[*]}"
fi

if ((${#missing[@]} > 0)); then
  say "installing missing packages: ${missing[*]}"
  if ((EUID == 0)); then
    as_root=(env DEBIAN_FRONTEND=noninteractive)
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo env DEBIAN_FRONTEND=noninteractive)
  else
    die "not root and sudo is not installed; as root, run: apt-get install ${missing[*]}"
  fi
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install: ${missing[*]}"
  "${as_root[@]}" apt-get update >&2 || die "apt-get update failed"
  "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install failed"
fi

# --- 2. Configure -------------------------------------------------------------
build_dir=${BUILD_DIR:-build}
cmake_args=()
for name in $(compgen -e | sort); do
  if [[ $name == NETSIM_* ]]; then cmake_args+=("-D$name=${!name}"); fi
done
cmake_args+=("$@")

command -v cmake >/dev/null 2>&1 || die "cmake not found"
if [[ -f $build_dir/CMakeCache.txt ]]; then
  # Existing tree: keep its generator and build type unless told otherwise.
  say "configuring $build_dir (existing)"
  cmake -S . -B "$build_dir" "${cmake_args[@]}" >&2 || die "CMake configure failed"
else
  say "configuring $build_dir (Ninja, ${CMAKE_BUILD_TYPE:-RelWithDebInfo})"
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
    "${cmake_args[@]}" >&2 || die "CMake configure failed"
fi

# --- 3. Build -----------------------------------------------------------------
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
say "building $build_dir with $jobs jobs"
cmake --build "$build_dir" --parallel "$jobs" >&2 || die "build failed"
say "done: binaries in $build_dir/bin (tests: ctest --test-dir $build_dir)"
