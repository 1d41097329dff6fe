#!/usr/bin/env python3
"""A SIFTR 1.3.0 log against the --trace-tcp CSV of the same run: record by record.

Every inbound ('i') record of the data connection is taken before TCP
processes that ACK, so its cwnd, ssthresh and srtt must equal the state the
trace printed last before that ACK's own row (the previous ACK's, or an RTO's).
Usage: siftr_trace_agree.py SIFTR.log TRACE.csv FLOW
Prints "agree N" with the number of records compared, or the first mismatch.
"""
import csv
import sys
from collections import defaultdict

log, trace, flow = sys.argv[1:4]
inbound = defaultdict(list)  # local port -> (cwnd, ssthresh, srtt)
for line in open(log):
    if not line.startswith("i,"):
        continue
    f = line.rstrip("\n").split(",")
    inbound[f[3]].append((int(f[7]), int(f[6]), int(f[15])))
rows = [r for r in csv.DictReader(open(trace)) if r["flow"] == flow]
acks = sum(1 for r in rows if r["event"] == "ack")
# The data connection: the port with as many inbound records as the trace has ACKs.
ports = [p for p, recs in inbound.items() if len(recs) == acks]
if len(ports) != 1:
    sys.exit(f"no single connection with {acks} inbound records: {[(p, len(r)) for p, r in inbound.items()]}")
recs = inbound[ports[0]]
last = None
k = 0
compared = 0
for r in rows:
    state = (int(r["cwnd"]), int(r["ssthresh"]), int(r["srtt_us"]))
    if r["event"] == "ack":
        if last is not None:
            if recs[k] != last:
                sys.exit(f"record {k} (port {ports[0]}): siftr cwnd,ssthresh,srtt {recs[k]} != trace {last} "
                         f"before the ACK at {r['time_s']} s")
            compared += 1
        k += 1
    last = state
print(f"agree {compared}")
