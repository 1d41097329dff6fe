#!/usr/bin/env python3
"""Compares two sweep result directories record for record.

Usage: compare_sweeps.py DIR_A DIR_B [EXPECTED_COUNT]

Reads DIR/results.jsonl of both (one JSON record a line, see docs/sweeps.md),
checks that neither has a duplicate run key, that both hold the same keys (and
EXPECTED_COUNT of them when given), and that each pair of records is equal
except for the wall-clock times (wall_time_s, startup_time_s, load_time_s),
the fields that may differ between runs. Exits 0
when equal, 1 with the differences on stdout otherwise.
"""
import json
import sys


def load(directory):
    records = {}
    with open(directory + "/results.jsonl", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            record = json.loads(line)
            key = record["key"]
            if key in records:
                sys.exit(f"{directory}/results.jsonl:{n}: duplicate run key {key}")
            for machine_time in ("wall_time_s", "startup_time_s", "load_time_s"):
                record["result"].pop(machine_time, None)
            records[key] = record
    return records


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    problems = []
    if len(sys.argv) > 3 and len(a) != int(sys.argv[3]):
        problems.append(f"{sys.argv[1]}: {len(a)} records, expected {sys.argv[3]}")
    problems += [f"only in {sys.argv[1]}: {k}" for k in sorted(a.keys() - b.keys())]
    problems += [f"only in {sys.argv[2]}: {k}" for k in sorted(b.keys() - a.keys())]
    problems += [f"record {k} differs" for k in sorted(a.keys() & b.keys()) if a[k] != b[k]]
    for p in problems[:20]:
        print(p)
    if problems:
        sys.exit(1)
    print(f"{len(a)} records equal (except the wall-clock times)")


main()
