# Shared helpers of the black-box command-line tests (sourced, not run).
# $work is a scratch directory, removed on exit; the helpers count into
# $passes and $failures, which the sourcing script reports at the end.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passes=0
failures=0

pass() { passes=$((passes + 1)); echo "ok   $1"; }
fail() { failures=$((failures + 1)); echo "FAIL $1"; }

# expect NAME EXPECTED_EXIT STDOUT_REGEX STDERR_REGEX -- COMMAND...
expect() {
  local name=$1 want=$2 out_re=$3 err_re=$4
  shift 5
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  local ok=1
  [ "$got" -eq "$want" ] || { echo "FAIL $name: exit $got, expected $want"; ok=0; }
  if [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$work/out"; then echo "FAIL $name: stdout lacks /$out_re/"; ok=0; fi
  if [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$work/err"; then echo "FAIL $name: stderr lacks /$err_re/"; ok=0; fi
  if [ $ok -eq 1 ]; then
    pass "$name"
  else
    failures=$((failures + 1))
    echo "---- stdout:"; head -c 2000 "$work/out"; echo "---- stderr:"; head -c 2000 "$work/err"
  fi
}

# For the testbed kits' tests (needs $src): $stubs, a directory for
# stand-ins of the testbed's commands (put it first on PATH), $log, where
# they write what they were asked, $data, the sample outputs they print,
# and $shell, dash if installed (the kits are POSIX sh, as FreeBSD's /bin/sh).
kit_stubs() {
  stubs="$work/bin"
  mkdir -p "$stubs"
  log="$work/commands.log"
  data="$src/tests/data/measure"
  shell=$(command -v dash || command -v sh)
}
