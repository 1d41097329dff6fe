"""The Python module against the netsim command line (ctest label: python).

    NETSIM_CLI=build/bin/netsim NETSIM_SOURCE_DIR=. PYTHONPATH=build/python \
        python3 tests/python/test_netsim.py -v

Each test runs one T1 cell at most a few times (well under a second each).
"""
import csv
import io
import json
import os
import subprocess
import tempfile
import threading
import unittest

import netsim

CLI = os.environ["NETSIM_CLI"]
SOURCE = os.environ["NETSIM_SOURCE_DIR"]
T1 = os.path.join(SOURCE, "scenarios", "t1-loss-resilience.yaml")
# One cell of T1, pinned as the CLI's tests pin it (a --set of a swept key drops that axis).
CELL = {"hosts.sender.hz": 1000, "traffic.iperf3.cc": "newreno", "filters.drop.every": 100}
CELL_ARGS = [a for k, v in CELL.items() for a in ("--set", f"{k}={v}")]


def cli(*args, check=True):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=check)


def comparable(x):
    """A run set as numbers and text only: the JSON mapping writes 64-bit
    integers (and integral doubles) as strings or ints where the module has
    ints and floats; fields the JSON leaves out are None in the module."""
    if isinstance(x, dict):
        return {k: comparable(v) for k, v in x.items() if v is not None and k not in ("wall_time_s", "startup_time_s", "load_time_s")}
    if isinstance(x, list):
        return [comparable(v) for v in x]
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, str):
        try:
            return float(x)
        except ValueError:
            return x
    return x


class RunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cli_json = json.loads(cli("run", T1, *CELL_ARGS, "--format", "json").stdout)
        cls.py = netsim.run(T1, set=CELL)

    def test_numbers_equal_the_cli(self):
        ours, theirs = self.py["runs"], self.cli_json["runs"]
        self.assertEqual(len(ours), 1)
        f, g = ours[0]["flows"][0], theirs[0]["flows"][0]
        self.assertEqual(f["name"], "iperf3")
        self.assertEqual(f["receiver_mbps"], g["receiver_mbps"])
        for k in ("retransmits", "packets_sent", "packets_received", "packets_lost", "recovery_episodes", "rto_count"):
            self.assertEqual(f[k], int(g[k]), k)
        self.assertGreater(f["receiver_mbps"], 100)
        self.assertEqual(ours[0]["seed"], 1)
        self.assertEqual(ours[0]["error"], "")
        self.assertEqual([(o["key"], o["value"]) for o in ours[0]["overrides"]],
                         [(k, str(v)) for k, v in CELL.items()])

    def test_whole_run_set_equals_the_cli_json(self):
        self.assertEqual(comparable({"runs": self.py["runs"]}), comparable(self.cli_json))

    def test_comparison_is_the_clis(self):
        c = self.py["comparison"]
        self.assertEqual(c["metric"], "receiver_mbps")
        self.assertEqual(list(c["keys"]), ["hz", "cc", "every"])
        matched = [r for r in c["rows"] if r["runs"] > 0]
        self.assertEqual(len(matched), 1)
        row = matched[0]
        self.assertEqual(row["keys"], {"hz": "1000", "cc": "newreno", "every": "100"})
        self.assertEqual(row["simulated"], self.py["runs"][0]["flows"][0]["receiver_mbps"])
        self.assertEqual(row["measured"], 915)
        self.assertAlmostEqual(row["error_pct"], (row["simulated"] - 915) / 915 * 100)
        self.assertEqual(c["csv"], cli("run", T1, *CELL_ARGS, "--format", "csv").stdout)
        self.assertIn(c["text"], cli("run", T1, *CELL_ARGS).stdout)
        self.assertIn("simulated vs measured", c["text"])

    def test_empty_sweep_set_runs_the_files_own_cell(self):
        r = netsim.run(T1, set={"sweep": {}})
        self.assertEqual(len(r["runs"]), 1)
        self.assertEqual(r["runs"][0]["flows"][0]["receiver_mbps"], self.py["runs"][0]["flows"][0]["receiver_mbps"])

    def test_set_forms_seed_and_profile(self):
        with tempfile.TemporaryDirectory() as tmp:
            profile = os.path.join(tmp, "p.yaml")
            with open(profile, "w") as f:
                f.write('parameters:\n  "filters.drop.every": 50\n')
            r = netsim.run(T1, set=["hosts.sender.hz=1000", ("traffic.iperf3.cc", "newreno")], profile=profile,
                           seed=3, jobs=1)
            c = json.loads(cli("run", T1, "--profile", profile, "--set", "hosts.sender.hz=1000",
                               "--set", "traffic.iperf3.cc=newreno", "--seed", "3", "--format", "json").stdout)
        self.assertEqual(comparable({"runs": r["runs"]}), comparable(c))
        self.assertEqual(r["runs"][0]["seed"], 3)
        self.assertEqual(r["runs"][0]["overrides"][0], {"key": "filters.drop.every", "value": "50"})

    def test_other_threads_run_meanwhile(self):
        # The GIL is released during the run: a Python thread keeps counting.
        ticks = []
        done = threading.Event()

        def count():
            while not done.is_set():
                ticks.append(1)
                done.wait(0.001)

        t = threading.Thread(target=count)
        t.start()
        try:
            netsim.run(T1, set={"sweep": {}})
        finally:
            done.set()
            t.join()
        self.assertGreater(len(ticks), 10)


class SweepTest(unittest.TestCase):
    def test_columns_equal_the_clis_results_csv(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cli")
            cli("sweep", T1, "--set", "sweep={}", "--out", out, "--progress", "none")
            with open(os.path.join(out, "results.csv"), newline="") as f:
                rows = list(csv.reader(f))
            header = rows[0]
            frame = netsim.sweep(T1, set={"sweep": {}})
            self.assertEqual(list(frame.columns), header)
            self.assertEqual(len(frame), len(rows) - 1)
            for loaded in (netsim.results(out), netsim.results(os.path.join(out, "results.csv"))):
                self.assertEqual(list(loaded.columns), header)
                self.assertEqual(loaded["key"].tolist(), frame["key"].tolist())
                self.assertEqual(loaded["receiver_mbps"].tolist(), frame["receiver_mbps"].tolist())
            self.assertEqual(frame["receiver_mbps"][0], float(rows[1][header.index("receiver_mbps")]))
            self.assertEqual(frame["status"][0], "ok")
            # With out=, the same directory a CLI sweep writes; a second call finds the run recorded.
            mine = os.path.join(tmp, "py")
            first = netsim.sweep(T1, set={"sweep": {}}, out=mine)
            again = netsim.sweep(T1, set={"sweep": {}}, out=mine)
            self.assertEqual(list(first.columns), header)
            self.assertEqual(again["wall_time_s"].tolist(), first["wall_time_s"].tolist())
            self.assertEqual(list(netsim.results(mine).columns), header)

    def test_axes_and_seeds(self):
        frame = netsim.sweep(T1, set={"sweep": {}}, axes={"filters.drop.every": [100, 50]}, seeds=2, jobs=2)
        self.assertEqual(len(frame), 4)
        self.assertEqual(frame["run_index"].tolist(), [0, 1, 2, 3])
        self.assertEqual(frame["filters.drop.every"].tolist(), [100, 100, 50, 50])
        self.assertEqual(frame["seed"].tolist(), [1, 2, 1, 2])

    def test_bad_sweep_arguments(self):
        with self.assertRaises(ValueError):
            netsim.sweep(T1, axes={"seed": [1, 2]}, seeds=2)
        with self.assertRaises(netsim.ScenarioError):
            netsim.sweep(T1, axes={"filters.drop.every": ["often"]})
        with self.assertRaises(FileNotFoundError):
            netsim.results(os.path.join(SOURCE, "no-such-dir"))


class ErrorTest(unittest.TestCase):
    def test_broken_yaml_names_file_line_and_field(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.yaml")
            with open(bad, "w") as f:
                f.write("name: x\nduration: 1s\nhosts:\n  a: { address: 10.0.0.1 }\n  b: { address: 10.0.0.2, hz: fast }\n")
            with self.assertRaises(netsim.ScenarioError) as caught:
                netsim.run(bad)
            e = caught.exception
            self.assertIsInstance(e, ValueError)
            self.assertRegex(str(e), r"bad\.yaml:5:[0-9]+: error: field 'hosts\.b\.hz'")
            self.assertEqual(str(e), cli("run", bad, check=False).stderr.strip())
            self.assertEqual((e.file, e.line, e.field), (bad, 5, "hosts.b.hz"))
            self.assertGreater(e.column, 0)
            with self.assertRaises(netsim.ScenarioError):
                netsim.sweep(bad)

    def test_bad_override_and_missing_file(self):
        with self.assertRaises(netsim.ScenarioError) as caught:
            netsim.run(T1, set={"links.sender-router.delay": "5 parsecs"})
        e = caught.exception
        self.assertTrue(str(e).startswith("--set links.sender-router.delay=5 parsecs: error: field"), str(e))
        self.assertEqual((e.file, e.line, e.field), ("--set", None, "links.sender-router.delay"))
        with self.assertRaises(netsim.ScenarioError) as caught:
            netsim.run(os.path.join(SOURCE, "no-such-file.yaml"))
        self.assertIn("no-such-file.yaml", str(caught.exception))
        self.assertIsNone(caught.exception.line)
        with self.assertRaises(ValueError):
            netsim.run(T1, jobs=0)
        with self.assertRaises(TypeError):
            netsim.run(T1, set=42)


if __name__ == "__main__":
    unittest.main()
