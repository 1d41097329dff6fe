#!/usr/bin/env bash
# Black-box tests of the netsim command line: exit codes, stdout/stderr split,
# error messages, output formats. Usage: cli_test.sh NETSIM_BINARY SOURCE_DIR
set -u
netsim=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

udp=$src/scenarios/udp-switch-nth.yaml
sweep=$src/scenarios/udp-drop-sweep.yaml

expect version 0 '^netsim [0-9]+\.[0-9]+\.[0-9]+$' '' -- "$netsim" --version
expect help 0 'Exit codes' '' -- "$netsim" --help
expect run-help 0 '--format' '' -- "$netsim" run --help
expect no-command 2 '' 'missing command' -- "$netsim"
expect unknown-command 2 '' "unknown command 'frobnicate'" -- "$netsim" frobnicate
expect run-without-file 2 '' 'needs a scenario FILE' -- "$netsim" run
expect bad-format 2 '' "--format must be text, json, csv, pb, iperf3, iperf3-json, iperf2, nuttcp, ping or compare, got 'xml'" -- "$netsim" run "$udp" --format xml
expect compare-needs-measured 2 '' "--format compare: .*udp-switch-nth.yaml has no measured: cells" -- "$netsim" run "$udp" --format compare
expect compare-only 0 '^simulated vs measured' '' -- "$netsim" run "$src/tests/data/cli/measured-udp.yaml" --format compare
expect bad-seed 2 '' '--seed needs an unsigned integer' -- "$netsim" run "$udp" --seed -3
expect bad-jobs 2 '' 'needs a positive integer' -- "$netsim" run "$udp" -j 0
expect unknown-option 2 '' "unknown option '--frob'" -- "$netsim" run "$udp" --frob
expect set-without-equals 2 '' '--set' -- "$netsim" run "$udp" --set links.sender-sw1.delay
expect topo-needs-dot 2 '' 'needs --dot' -- "$netsim" topo "$udp"
expect missing-file 3 '' 'no-such-file.yaml' -- "$netsim" run "$work/no-such-file.yaml"

printf 'name: x\nduration: 1s\nhosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2, hz: fast }\n' >"$work/bad.yaml"
expect bad-field-location 3 '' "bad.yaml:5:[0-9]+: error: field 'hosts.b.hz'" -- "$netsim" validate "$work/bad.yaml"
expect bad-override 3 '' "^--set links.sender-sw1.delay=5 parsecs: error: field 'links.sender-sw1.delay'" -- \
  "$netsim" run "$udp" --set 'links.sender-sw1.delay=5 parsecs'
expect validate-ok 0 'udp-switch-nth.yaml: ok \(1 run\)' '' -- "$netsim" validate "$udp"
expect validate-sweep 0 'ok \(8 runs\)' '' -- "$netsim" validate "$sweep"
expect topo-dot 0 '^sw1\[label="sw1.*shape=diamond' '' -- "$netsim" topo "$udp" --dot
expect run-text 0 'udp1: .* 765 / 76427 drop/pkt' '' -- "$netsim" run "$udp"
expect run-csv 0 '^scenario,file,seed,' '' -- "$netsim" run "$udp" --format csv
expect run-json 0 '"packets_received": "75662"' '' -- "$netsim" run "$udp" --format json
expect run-override 0 'delay=300us' '' -- "$netsim" run "$udp" --set links.sw1-receiver.delay=300us
expect run-seed 0 'seed=42' '' -- "$netsim" run "$udp" --seed 42

measured=$src/tests/data/cli/measured-udp.yaml
expect measured-text 0 '200Mbps +1 +200\.1 +250\.0 +-20\.0' '' -- "$netsim" run "$measured"
expect measured-csv 0 '^rate,seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct$' '' -- \
  "$netsim" run "$measured" --format csv

t1=$src/scenarios/t1-loss-resilience.yaml
expect t1-validate 0 'ok \(24 runs\)' '' -- "$netsim" validate "$t1"
expect t1-csv 0 '^hz,cc,every,seed,sender_mbps,receiver_mbps,retransmits,measured_mbps,error_pct$' '' -- \
  "$netsim" run "$t1" --format csv
hzsweep=$src/scenarios/d46046-hz-sweep.yaml
expect hz-sweep-validate 0 'ok \(8 runs\)' '' -- "$netsim" validate "$hzsweep"
expect hz-sweep-csv 0 '^100000,50,1,[0-9.]+,[0-9.]+,[0-9]+,547,' '' -- "$netsim" run "$hzsweep" --format csv -j 2
# A host CPU from the command line: the cpus: table; an impossible hardclock
# cost is an error naming the field, with a non-zero exit.
tcpbulk=$src/scenarios/tcp-bulk-nth.yaml
expect cpu-table 0 '^  sender +[0-9.]+ +0\.00 +[0-9.]+ +0\.00 ' '' -- "$netsim" run "$tcpbulk" --set duration=2s \
  --set 'hosts.sender.cpu={tx_segment: 20us}'
expect cpu-bad-tick 3 '' "^--set hosts.sender.cpu={tick: 1ms}: error: field 'hosts.sender.cpu.tick'.*not shorter than the tick period at hz=1000" -- \
  "$netsim" run "$tcpbulk" --set 'hosts.sender.cpu={tick: 1ms}'

# A sweep writes one CSV row per cell (8 cells, one flow each) plus the header.
"$netsim" run "$sweep" --format csv -j 2 >"$work/sweep.csv" 2>/dev/null
lines=$(wc -l <"$work/sweep.csv")
if [ "$lines" -eq 9 ]; then passes=$((passes + 1)); echo "ok   sweep-rows"; else failures=$((failures + 1)); echo "FAIL sweep-rows: $lines lines"; fi

# --out writes the file (atomically, via a temporary beside it) and nothing to stdout.
expect out-file 0 '' '' -- "$netsim" run "$udp" --format pb --out "$work/r.pb"
if [ -s "$work/r.pb" ] && [ ! -e "$work/r.pb.tmp" ] && [ ! -s "$work/out" ]; then
  passes=$((passes + 1)); echo "ok   out-file-content"
else
  failures=$((failures + 1)); echo "FAIL out-file-content"
fi
# An unwritable --out is refused before anything runs; a write that fails at
# the end (here a file size limit, EFBIG) puts the results on stdout instead.
expect out-unwritable 4 '' 'cannot write .*/no/such/dir/r.txt: No such file or directory' -- \
  "$netsim" run "$udp" --out "$work/no/such/dir/r.txt"
mkdir -p "$work/adir"
expect out-is-a-directory 4 '' 'cannot write .*/adir: it is a directory' -- "$netsim" run "$udp" --out "$work/adir"
(trap '' XFSZ; ulimit -f 1; "$netsim" run "$udp" --format json --out "$work/big.json" 2>"$work/rescue.err"
 echo $? >"$work/rescue.rc") | cat >"$work/rescue.out"
if [ "$(cat "$work/rescue.rc")" = 4 ] && grep -q 'the results follow on standard output instead' "$work/rescue.err" &&
   grep -q '"runs"' "$work/rescue.out" && [ "$(tail -c 2 "$work/rescue.out" | head -c 1)" = "}" ] &&
   [ ! -e "$work/big.json.tmp" ] && [ ! -e "$work/big.json" ]; then
  passes=$((passes + 1)); echo "ok   out-rescued-to-stdout"
else
  failures=$((failures + 1)); echo "FAIL out-rescued-to-stdout: exit $(cat "$work/rescue.rc")"; cat "$work/rescue.err"
fi

# iperf3's own output for an iperf3 flow, and an error when there is none.
expect iperf3-text 0 'iperf Done\.' '' -- "$netsim" run "$t1" --set duration=3s --set hosts.sender.hz=1000 \
  --set traffic.iperf3.cc=newreno --set filters.drop.every=100 --format iperf3
expect iperf3-server 0 'Server listening on 5201' '' -- "$netsim" run "$t1" --set duration=3s --set hosts.sender.hz=1000 \
  --set traffic.iperf3.cc=newreno --set filters.drop.every=100 --format iperf3 --iperf3-side server
expect iperf3-json 0 '"sum_sent"' '' -- "$netsim" run "$t1" --set duration=3s --set hosts.sender.hz=1000 \
  --set traffic.iperf3.cc=newreno --set filters.drop.every=100 --format iperf3-json
expect iperf3-none 2 '' 'no flow with app: iperf3' -- "$netsim" run "$udp" --format iperf3
expect iperf3-bad-side 2 '' '--iperf3-side must be client or server' -- "$netsim" run "$t1" --iperf3-side both

# What the nuttcp client prints for app: nuttcp flows (TCP -N2 -i and UDP -u -R -i).
nuttcp=$src/tests/data/cli/nuttcp.yaml
expect nuttcp-tcp-interval 0 '^ +[0-9]+\.[0-9]{4} MB / +0\.50 sec = +[0-9]+\.[0-9]{4} Mbps +[0-9]+ retrans$' '' -- \
  "$netsim" run "$nuttcp" --format nuttcp
expect nuttcp-tcp-final 0 '^ +[0-9]+\.[0-9]{4} MB / +1\.0[0-9] sec = +[0-9]+\.[0-9]{4} Mbps 0 %TX 0 %RX [0-9]+ retrans [0-9]+\.[0-9]{2} msRTT$' '' -- \
  "$netsim" run "$nuttcp" --format nuttcp
expect nuttcp-udp-interval 0 '^ +[0-9]+\.[0-9]{4} MB / +0\.50 sec = +[0-9]+\.[0-9]{4} Mbps +0 / +[0-9]+ ~drop/pkt +0\.00 ~%loss$' '' -- \
  "$netsim" run "$nuttcp" --format nuttcp
expect nuttcp-udp-final 0 '^ +11\.9[0-9]{3} MB / +1\.00 sec = +(99|100)\.[0-9]{4} Mbps 0 %TX 0 %RX 0 / 1220[0-9] drop/pkt 0\.00 %loss$' '' -- \
  "$netsim" run "$nuttcp" --format nuttcp
expect nuttcp-flows 0 '^== run 1/1: nuttcp-cli flow udp' '' -- "$netsim" run "$nuttcp" --format nuttcp
expect nuttcp-version5 0 '^ +[0-9]+\.[0-9]{4} MB / +1\.0[0-9] sec = +[0-9]+\.[0-9]{4} Mbps 0 %TX 0 %RX$' '' -- \
  "$netsim" run "$nuttcp" --format nuttcp --set traffic.tcp.version=5
expect nuttcp-none 2 '' 'has no flow with app: nuttcp' -- "$netsim" run "$udp" --format nuttcp
# The printed report parses as a measurement file (--data): the comparison
# shows the simulated rate beside the same rate read back from nuttcp's text.
work_nuttcp=$(mktemp -d)
cat >"$work_nuttcp/n.yaml" <<'YAML'
name: nuttcp-data
duration: 2s
hosts:
  s: { address: 10.0.0.1, os: linux }
  r: { address: 10.0.0.2, os: linux }
links:
  sr: { ends: [s, r], rate: 300Mbps, delay: 100us }
traffic:
  n: { type: tcp, app: nuttcp, time: 1s, interval: 250ms, from: s, to: r }
measured:
  keys: { delay: links.sr.delay }
  cells:
    - { delay: 100us, value: 1 }
YAML
"$netsim" run "$work_nuttcp/n.yaml" --format nuttcp >"$work_nuttcp/n.txt" 2>/dev/null
rate=$(sed -n 's/.* sec = *\([0-9.]*\) Mbps [0-9]* %TX.*/\1/p' "$work_nuttcp/n.txt" | python3 -c "import sys; print(round(float(sys.stdin.read()), 1))")
expect nuttcp-data 0 "^  100us +1 +[0-9.]+ +$rate " 'run: 1 measurements in 1 cells from --data' -- \
  "$netsim" run "$work_nuttcp/n.yaml" --set links.sr.delay=100us --data "$work_nuttcp/n.txt:delay=100us"
rm -rf "$work_nuttcp"

# iperf 2.1.8's own -e output for iperf2 flows (two senders here), both sides.
iperf2=$src/tests/data/cli/iperf2.yaml
expect iperf2-interval 0 '^\[  1\] 1\.0000-2\.0000 sec +[0-9.]+ MBytes +[0-9.]+ Mbits/sec +[0-9]+/0 +[0-9]+ +[0-9]+K/[0-9]+\([0-9]+\) us' '' -- \
  "$netsim" run "$iperf2" --format iperf2
expect iperf2-summary 0 '^\[  1\] 0\.0000-2\.0[0-9]{3} sec +[0-9.]+ MBytes +[0-9.]+ Mbits/sec +[0-9]+/0' '' -- \
  "$netsim" run "$iperf2" --format iperf2
expect iperf2-flows 0 '^== run 1/1: iperf2-cli flow s2' '' -- "$netsim" run "$iperf2" --format iperf2
expect iperf2-server 0 'connected with 10\.0\.0\.1 port [0-9]+ \(sock=4\) \(peer 2\.1\.8\)' '' -- "$netsim" run "$iperf2" --format iperf2 --app-side server
expect iperf2-server-reads 0 '^\[  1\] 0\.0000-2\.0[0-9]{3} sec .* [0-9]+=[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9]+:[0-9]+$' '' -- \
  "$netsim" run "$iperf2" --format iperf2 --app-side server
expect iperf2-none 2 '' 'no flow with app: iperf2' -- "$netsim" run "$udp" --format iperf2
expect app-side-bad 2 '' '--app-side must be client or server' -- "$netsim" run "$iperf2" --app-side both

# ping(8)'s own output for ping flows (the T1 testbed's idle ping), both layouts,
# and the comparison of its round-trip times with the measured ping.
ping=$src/scenarios/t1-idle-ping.yaml
expect ping-freebsd 0 '^round-trip min/avg/max/stddev = 0\.[4-8][0-9]{2}/0\.[5-8][0-9]{2}/0\.[5-8][0-9]{2}/0\.[0-9]{3} ms$' '' -- \
  "$netsim" run "$ping" --format ping --set seeds=1
expect ping-linux 0 '^64 bytes from 192\.168\.1\.20: icmp_seq=10 ttl=64 time=0\.[4-8][0-9]{2} ms$' '' -- \
  "$netsim" run "$ping" --format ping --set seeds=1 --set traffic.ping.output=linux
expect ping-runs 0 '^== run 2/2: t1-idle-ping flow ping' '' -- "$netsim" run "$ping" --format ping --set seeds=2
expect ping-measured 0 '^  1000 +5 +0\.[0-9]{3} +0\.[0-9]{3}-0\.[0-9]{3} +0\.485 ' '' -- "$netsim" run "$ping"
expect ping-none 2 '' 'no flow with type: ping' -- "$netsim" run "$udp" --format ping

# --trace-tcp: one file for a single run, one per run (PATH.<n>.csv) for a sweep.
tcpbulk=$src/scenarios/tcp-bulk-nth.yaml
expect trace-single 0 '' '' -- "$netsim" run "$tcpbulk" --set duration=1500ms --trace-tcp "$work/trace.csv" --out "$work/t.txt"
if head -1 "$work/trace.csv" | grep -q '^flow,time_s,event,cwnd,ssthresh' && [ "$(wc -l <"$work/trace.csv")" -gt 100 ]; then
  passes=$((passes + 1)); echo "ok   trace-single-content"
else
  failures=$((failures + 1)); echo "FAIL trace-single-content"
fi
"$netsim" run "$t1" --set duration=50ms --set interval=10ms --trace-tcp "$work/tr.csv" --out "$work/t2.txt" 2>/dev/null
if [ -s "$work/tr.1.csv" ] && [ -s "$work/tr.24.csv" ] && [ ! -e "$work/tr.25.csv" ] && [ ! -e "$work/tr.csv" ]; then
  passes=$((passes + 1)); echo "ok   trace-per-run"
else
  failures=$((failures + 1)); echo "FAIL trace-per-run"
fi
expect trace-unwritable 4 '' 'cannot write TCP trace .*/t.csv: No such file or directory' -- "$netsim" run "$tcpbulk" \
  --set duration=100ms --set interval=10ms --trace-tcp "$work/no/such/dir/t.csv"
if grep -q 'run failed' "$work/err"; then failures=$((failures + 1)); echo "FAIL trace-unwritable-before-running"; else
  passes=$((passes + 1)); echo "ok   trace-unwritable-before-running"; fi

# --trace-queue: every switch output port's occupancy after each change.
expect trace-queue 0 '' '' -- "$netsim" run "$udp" --set duration=20ms --set interval=10ms --trace-queue "$work/q.csv" \
  --out "$work/q.txt"
if head -1 "$work/q.csv" | grep -qx 'link,from,to,time_s,event,packet_bytes,packets,bytes,dropped_packets' &&
   grep -q '^sw1-receiver,sw1,receiver,0\.[0-9]*,enqueue,1500,1,1500,0$' "$work/q.csv"; then
  passes=$((passes + 1)); echo "ok   trace-queue-content"
else
  failures=$((failures + 1)); echo "FAIL trace-queue-content"; head -3 "$work/q.csv"
fi

# T2: the stable CSV columns, one row per pairing and seed (shortened runs, one seed).
t2=$src/scenarios/t2-tcp-friendliness.yaml
expect t2-validate 0 'ok \(40 runs\)' '' -- "$netsim" validate "$t2"
short=(--set duration=300ms --set interval=100ms --set traffic.s1.time=200ms --set traffic.s2.time=200ms --set seeds=1)
expect t2-csv 0 '^hz,cc1,cc2,seed,s1_mbps,s2_mbps,jain,measured_s1_mbps,measured_s2_mbps,measured_jain,error_pct$' '' -- \
  "$netsim" run "$t2" "${short[@]}" --format csv -j 2
rows=$(grep -Ec '^(100|1000),(cubic|newreno|cubic_d46046),(cubic|newreno|cubic_d46046),1,[^,]+,[^,]+,[^,]+,[^,]+,[^,]+,[^,]+,[^,]+$' "$work/out")
if [ "$(wc -l <"$work/out")" -eq 9 ] && [ "$rows" -eq 8 ] && grep -q '^100,cubic,newreno,1,.*,317,533,0\.94,[^,]*$' "$work/out"; then
  passes=$((passes + 1)); echo "ok   t2-csv-rows"
else
  failures=$((failures + 1)); echo "FAIL t2-csv-rows"; cat "$work/out"
fi
expect t2-text 0 'hz +cc1 +cc2 +runs +s1 +range +measured +error % +s2 +range +measured +error % +jain +range +measured +error pt' '' -- \
  "$netsim" run "$t2" "${short[@]}" --set seeds=2 -j 2

# ixgb (docs/ixgb.md): the example validates and runs, paced by the sender's
# PCI-X reads at MMRBC 512 (7.54 Gbit/s of payload at most); a bad MMRBC
# through --set is named with its field.
ixgb=$src/scenarios/ixgb-10g-jumbo.yaml
expect ixgb-validate 0 'ok' '' -- "$netsim" validate "$ixgb"
expect ixgb-run 0 '^  bulk +sender->receiver ' '' -- "$netsim" run "$ixgb"
if awk '$1 == "bulk" && $2 == "sender->receiver" { r = $NF } END { exit !(r > 7000 && r < 7540) }' "$work/out"; then
  passes=$((passes + 1)); echo "ok   ixgb-bus-paced"
else
  failures=$((failures + 1)); echo "FAIL ixgb-bus-paced"; cat "$work/out"
fi
expect ixgb-bad-mmrbc 3 '' "error: field 'hosts\.sender\.nic\.bus\.mmrbc': must be 512, 1024, 2048 or 4096" -- \
  "$netsim" validate "$ixgb" --set hosts.sender.nic.bus.mmrbc=1000

# T4: the stable CSV columns, one row per cell and seed (48 runs: both labs).
t4=$src/scenarios/t4-vmxnet3-lro.yaml
expect t4-csv 0 '^lab,os,lro,mtu,streams,seed,gbps,server_cpu_pct,client_cpu_pct,measured_gbps,measured_server_cpu_pct,measured_client_cpu_pct,error_pct$' '' -- \
  "$netsim" run "$t4" --profile "$src/scenarios/profiles/t4-home-p1-fit.profile.yaml" --format csv -j 2
if [ "$(wc -l <"$work/out")" -eq 49 ] && grep -Eq '^home,freebsd,off,1500,1,1,[0-9.]+,[0-9.]+,[0-9.]+,2\.4,95,95,' "$work/out"; then
  passes=$((passes + 1)); echo "ok   t4-csv-rows"
else
  failures=$((failures + 1)); echo "FAIL t4-csv-rows"; cat "$work/out"
fi

# T5: the stable CSV columns; with the newreno fit, cubic's throughput is
# predicted within 10% of 731 Mbit/s and both stay at 97-99% sender CPU.
t5=$src/scenarios/t5-cpu-bound-sender.yaml
expect t5-csv 0 '^cc,seed,mbps,sender_cpu_pct,retransmits,max_cwnd_bytes,measured_mbps,measured_sender_cpu_pct,measured_retransmits,measured_max_cwnd_bytes,error_pct$' '' -- \
  "$netsim" run "$t5" --profile "$src/scenarios/profiles/t5-newreno-fit.profile.yaml" --format csv -j 2
if awk -F, 'NR > 1 && $1 == "cubic" { n++; if ($3 < 657.9 || $3 > 804.1) bad++ } NR > 1 { if ($4 < 97 || $4 > 99) bad++ }
            END { exit !(n == 5 && bad == 0) }' "$work/out"; then
  passes=$((passes + 1)); echo "ok   t5-predictions"
else
  failures=$((failures + 1)); echo "FAIL t5-predictions"; cat "$work/out"
fi

# T3: the CSV columns; with the fit, 2.6.12 above 2.6.14 for one stream,
# 2.6.14 frozen well below it, 3 streams on 2.6.14 recovering, and UDP at
# the CPU's pace on every kernel (within 5% of one another, above 95 %TX).
t3=$src/scenarios/t3-linux-2.6-regression.yaml
expect t3-csv 0 '^kernel,proto,streams,seed,mbps,sender_cpu_pct,receiver_cpu_pct,measured_mbps,measured_sender_cpu_pct,measured_receiver_cpu_pct,error_pct$' '' -- \
  "$netsim" run "$t3" --profile "$src/scenarios/profiles/t3-fit.profile.yaml" --set seeds=1 --format csv -j 2
if awk -F, '$2 == "tcp" && $1 == "2.6.12" && $3 == 1 { a = $5 } $2 == "tcp" && $1 == "2.6.14" && $3 == 1 { b = $5; tx = $6 }
            $2 == "tcp" && $1 == "2.6.14" && $3 == 3 { c = $5 }
            $2 == "udp" { n++; if (lo == "" || $5 < lo) lo = $5; if ($5 > hi) hi = $5; if ($6 < 95) slow = 1 }
            END { exit !(a > 1.8 * b && c > 1.5 * b && tx < 50 && n == 3 && hi < 1.05 * lo && !slow) }' "$work/out"; then
  passes=$((passes + 1)); echo "ok   t3-directions"
else
  failures=$((failures + 1)); echo "FAIL t3-directions"; cat "$work/out"
fi

# iperf3 -R: the shipped example validates and runs; the client's report says
# reverse mode; reverse on a non-iperf3 flow is named with file, line and field.
rev=$src/scenarios/iperf3-reverse.yaml
expect reverse-validate 0 'ok' '' -- "$netsim" validate "$rev"
expect reverse-run 0 '^Reverse mode, remote host 10\.0\.0\.1 is sending$' '' -- "$netsim" run "$rev" --format iperf3
expect reverse-set-false 0 '^Connecting to host 10\.0\.0\.2, port 5201$' '' -- \
  "$netsim" run "$rev" --set traffic.iperf3.reverse=false --set duration=2s --set traffic.iperf3.time=1s --format iperf3
sed 's/cc: newreno }$/cc: newreno, reverse: true }/' "$tcpbulk" >"$work/bad-reverse.yaml"
expect reverse-bad 3 '' "bad-reverse\.yaml:[0-9]+:[0-9]+: error: field 'traffic\.iperf3\.reverse': reverse \(-R\) applies only to flows with app: iperf3" -- \
  "$netsim" validate "$work/bad-reverse.yaml"
expect reverse-not-bool 3 '' "field 'traffic\.iperf3\.reverse'" -- "$netsim" validate "$rev" --set traffic.iperf3.reverse=perhaps

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
