// The sweep engine: SHA-256 and run keys, plans and shards, the result store,
// resume, failures, stop, and the merged tables and summaries.
#include "netsim/results/machine_times.h"
#include "netsim/sweep/sweep.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "netsim/results/result_writers.h"
#include "netsim/scenario/scenario_loader.h"
#include "netsim/sweep/progress.h"
#include "netsim/sweep/record_tables.h"
#include "netsim/sweep/results_summary.h"
#include "netsim/sweep/sha256.h"
#include "netsim/sweep/slurm_script.h"

namespace netsim::sweep {
namespace {

namespace fs = std::filesystem;
using google::protobuf::util::MessageDifferencer;

const std::string kSource = NETSIM_SOURCE_DIR;
const std::string kDropSweep = kSource + "/scenarios/udp-drop-sweep.yaml";   // 8 cells, seed is an axis
const std::string kSwitchNth = kSource + "/scenarios/udp-switch-nth.yaml";   // no sweep, 1 s

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("netsim-sweep-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Field by field: GCC 12's -Wextra flags designated initializers that leave members out.
SweepOptions opts(unsigned jobs, std::optional<fs::path> dir = std::nullopt, ResumeMode resume = ResumeMode::resume,
                  Shard shard = {}) {
  SweepOptions o;
  o.jobs = jobs;
  o.out_dir = std::move(dir);
  o.resume = resume;
  o.shard = shard;
  return o;
}

// Records compared as the determinism promise states: all but the wall-clock times.
bool same_record(results::SweepRecord a, results::SweepRecord b) {
  results::clear_machine_times(*a.mutable_result());
  results::clear_machine_times(*b.mutable_result());
  return MessageDifferencer::Equals(a, b);
}

std::map<std::string, results::SweepRecord> by_key(const std::vector<results::SweepRecord>& v) {
  std::map<std::string, results::SweepRecord> m;
  for (const auto& r : v) m.emplace(r.key(), r);
  return m;
}

std::vector<results::SweepRecord> run_all(const SweepPlan& plan, SweepOptions o) {
  std::vector<results::SweepRecord> out;
  Sweep(plan, std::move(o)).run([&out](const RunEvent& e) { out.push_back(e.record); });
  return out;
}

// A short UDP scenario with two axes, one combination of which is invalid
// (packet must be below every): every=25 with packet=50.
SweepSpec failing_spec() {
  SweepSpec s{kSwitchNth, {{"duration", "200ms"}}, {}, 0};
  s.axes.push_back(parse_axis("filters.drop-every-100.every=100,25"));
  s.axes.push_back(parse_axis("filters.drop-every-100.packet=0,50"));
  return s;
}

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 pieces;  // the same digest however the input is split
  for (char c : std::string("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) pieces.update(std::string(1, c));
  EXPECT_EQ(pieces.finish()[0], 0x24);
}

TEST(RunKey, StableAndSensitive) {
  const std::vector<Override> p{{"hosts.a.hz", "100"}, {"seed", "1"}};
  // Pinned: a change here invalidates every stored result directory (docs/sweeps.md).
  EXPECT_EQ(run_key("name: x\n", p), "1dbefdc7061b8876");
  EXPECT_EQ(run_key("name: x\n", p).size(), 16u);
  EXPECT_NE(run_key("name: x\n", p), run_key("name: y\n", p));
  EXPECT_NE(run_key("name: x\n", p), run_key("name: x\n", {{"hosts.a.hz", "1000"}, {"seed", "1"}}));
  // Length prefixes: moving text between key and value changes the key.
  EXPECT_NE(run_key("", {{"a", "b=c"}}), run_key("", {{"a=b", "c"}}));
}

TEST(ResolveParams, LastWinsSortedSeedCanonical) {
  const auto p = resolve_params({{"z", "1"}, {"a", "2"}, {"z", "3"}, {"seed", "007"}}, 5);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].key, "a");
  EXPECT_EQ(p[1].key, "seed");
  EXPECT_EQ(p[1].value, "7");
  EXPECT_EQ(p[2].value, "3");
  const auto q = resolve_params({}, 5);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].value, "5");  // the file's seed is a parameter too
}

TEST(ParseArgs, AxisAndShard) {
  const AxisArg a = parse_axis(" hosts.a.hz = 100, 1000 ");
  EXPECT_EQ(a.key, "hosts.a.hz");
  EXPECT_EQ(a.values, (std::vector<std::string>{"100", "1000"}));
  EXPECT_THROW(parse_axis("hosts.a.hz"), SweepUsageError);
  EXPECT_THROW(parse_axis("=1"), SweepUsageError);
  EXPECT_THROW(parse_axis("k=1,,2"), SweepUsageError);
  const Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_THROW(parse_shard("5/5"), SweepUsageError);
  EXPECT_THROW(parse_shard("1/0"), SweepUsageError);
  EXPECT_THROW(parse_shard("1"), SweepUsageError);
}

TEST(SweepPlan, ProductOrderAndKeys) {
  const SweepPlan plan = make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0});
  ASSERT_EQ(plan.runs.size(), 8u);
  EXPECT_EQ(plan.axis_keys, (std::vector<std::string>{"filters.nth.every", "traffic.flow.rate", "seed"}));
  // First axis slowest, last fastest.
  EXPECT_EQ(plan.runs[0].overrides.back().value, "1");
  EXPECT_EQ(plan.runs[1].overrides.back().value, "2");
  EXPECT_EQ(plan.runs[4].overrides.front().value, "25");
  std::set<std::string> keys;
  for (const auto& r : plan.runs) keys.insert(r.key);
  EXPECT_EQ(keys.size(), 8u);
  // Planning again gives the same keys: every shard process agrees.
  EXPECT_EQ(make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0}).runs[5].key, plan.runs[5].key);
}

TEST(SweepPlan, CommandLineAxesSetsAndSeeds) {
  SweepSpec s{kDropSweep, {{"seed", "9"}}, {parse_axis("filters.nth.every=10,20,30")}, 0};
  const SweepPlan plan = make_sweep_plan(s);  // --set seed pins the seed axis; --axis replaces every
  ASSERT_EQ(plan.runs.size(), 6u);
  EXPECT_EQ(plan.axis_keys, (std::vector<std::string>{"traffic.flow.rate", "filters.nth.every"}));
  for (const auto& r : plan.runs) EXPECT_EQ(r.params[1].key + "=" + r.params[1].value, "seed=9");

  const SweepPlan seeds = make_sweep_plan(SweepSpec{kSwitchNth, {{"seed", "40"}}, {}, 3});
  ASSERT_EQ(seeds.runs.size(), 3u);
  EXPECT_EQ(seeds.runs[2].overrides.back().value, "42");
  EXPECT_THROW(make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 2}), SweepUsageError);  // seed axis + --seeds

  SweepSpec bad{kSwitchNth, {}, {parse_axis("hosts.sender.hz=100,fast")}, 0};
  try {
    make_sweep_plan(bad);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field, "hosts.sender.hz");
    EXPECT_NE(std::string(e.what()).find("--axis hosts.sender.hz=fast"), std::string::npos) << e.what();
  }
}

TEST(SweepPlan, ShardsPartitionThePlan) {
  const SweepPlan plan = make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0});
  std::vector<int> owners(plan.runs.size(), 0);
  for (std::size_t i = 0; i < 3; ++i) {
    for (const auto& r : plan.runs) owners[r.index] += Shard{i, 3}.contains(r.index) ? 1 : 0;
  }
  for (int n : owners) EXPECT_EQ(n, 1);
}

TEST(Sweep, StoresEveryRunAndResumesWithoutRerunning) {
  TempDir dir;
  const SweepPlan plan = make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0});
  const SweepSummary first = Sweep(plan, opts(2, dir.path())).run();
  EXPECT_EQ(first.ran, 8u);
  EXPECT_EQ(first.failed, 0u);
  ResultStore store(dir.path());
  const auto stored = store.load();
  EXPECT_EQ(stored.by_key.size(), 8u);
  EXPECT_TRUE(stored.problems.empty());

  std::size_t from_store = 0;
  const SweepSummary again = Sweep(plan, opts(2, dir.path())).run([&](const RunEvent& e) {
    from_store += e.from_store ? 1 : 0;
  });
  EXPECT_EQ(again.ran, 0u);
  EXPECT_EQ(again.skipped, 8u);
  EXPECT_EQ(from_store, 8u);

  const SweepSummary forced = Sweep(plan, opts(2, dir.path(), ResumeMode::force)).run();
  EXPECT_EQ(forced.ran, 8u);
  for (const auto& [key, r] : store.load().by_key) EXPECT_TRUE(same_record(r, stored.by_key.at(key))) << key;
}

TEST(Sweep, DeterministicAcrossJobCounts) {
  const SweepPlan plan = make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0});
  const auto one = by_key(run_all(plan, opts(1)));
  const auto two = by_key(run_all(plan, opts(2)));
  ASSERT_EQ(one.size(), 8u);
  ASSERT_EQ(two.size(), 8u);
  for (const auto& [key, r] : one) EXPECT_TRUE(same_record(r, two.at(key))) << key;
}

TEST(Sweep, ShardUnionEqualsFullSweep) {
  TempDir dir;
  const SweepPlan plan = make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0});
  for (std::size_t i = 0; i < 3; ++i) Sweep(plan, opts(1, dir.path(), ResumeMode::resume, Shard{i, 3})).run();
  const auto merged = ResultStore(dir.path()).write_merged();
  const auto full = by_key(run_all(plan, opts(2)));
  ASSERT_EQ(merged.size(), full.size());
  for (std::size_t i = 0; i < merged.size(); ++i) {
    EXPECT_EQ(merged[i].run_index(), i);  // merged in plan order
    EXPECT_TRUE(same_record(merged[i], full.at(merged[i].key())));
  }
}

TEST(Sweep, FailingRunIsRecordedAndOthersComplete) {
  TempDir dir;
  const SweepPlan plan = make_sweep_plan(failing_spec());
  ASSERT_EQ(plan.runs.size(), 4u);
  const SweepSummary sum = Sweep(plan, opts(2, dir.path())).run();
  EXPECT_EQ(sum.ran, 4u);
  EXPECT_EQ(sum.failed, 1u);
  const auto records = ResultStore::ordered(ResultStore(dir.path()).load());
  ASSERT_EQ(records.size(), 4u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(records[i].result().error().empty()) << i;
  const std::string& error = records[3].result().error();
  EXPECT_NE(error.find("field 'filters.drop-every-100.packet'"), std::string::npos) << error;
  EXPECT_NE(error.find("must be less than every"), std::string::npos) << error;
  EXPECT_EQ(records[3].result().seed(), 1u);

  // A rerun counts the recorded failure without rerunning it; --retry-failed reruns only it.
  const SweepSummary resumed = Sweep(plan, opts(0, dir.path())).run();
  EXPECT_EQ(resumed.ran, 0u);
  EXPECT_EQ(resumed.failed, 1u);
  const SweepSummary retried = Sweep(plan, opts(0, dir.path(), ResumeMode::retry_failed)).run();
  EXPECT_EQ(retried.ran, 1u);
  EXPECT_EQ(retried.failed, 1u);
}

TEST(Sweep, StopKeepsFinishedRunsAndResumeCompletes) {
  TempDir dir;
  const SweepPlan plan = make_sweep_plan(SweepSpec{kDropSweep, {}, {}, 0});
  Sweep first(plan, opts(1, dir.path()));
  const SweepSummary part = first.run([&first](const RunEvent&) { first.request_stop(); });
  EXPECT_TRUE(part.stopped);
  EXPECT_EQ(part.ran, 1u);
  EXPECT_EQ(part.not_run, 7u);
  EXPECT_EQ(ResultStore(dir.path()).load().by_key.size(), 1u);
  const SweepSummary rest = Sweep(plan, opts(2, dir.path())).run();
  EXPECT_EQ(rest.skipped, 1u);
  EXPECT_EQ(rest.ran, 7u);
  EXPECT_FALSE(rest.stopped);
}

TEST(ResultStore, IgnoresTemporariesAndReportsDamage) {
  TempDir dir;
  ResultStore store(dir.path());
  results::SweepRecord r;
  r.set_key("0123456789abcdef");
  store.put(r);
  std::ofstream(dir.path() / "runs" / ".0123456789abcdef.pb.host.1.2.tmp") << "half";
  std::ofstream(dir.path() / "runs" / "fedcba9876543210.pb") << "not a record \xff\xff\xff";
  const auto c = store.load();
  EXPECT_EQ(c.by_key.size(), 1u);
  EXPECT_EQ(c.problems.size(), 1u);
}

TEST(RecordTables, CsvColumnsAndJsonlRoundTrip) {
  const auto records = run_all(make_sweep_plan(failing_spec()), opts(2));
  std::stringstream csv;
  write_records_csv(csv, ResultStore::ordered(ResultStore::Contents{by_key(records), {}}));
  const auto rows = read_csv(csv);
  ASSERT_EQ(rows.size(), 4u);
  for (const char* col : {"key", "run_index", "status", "duration", "filters.drop-every-100.every",
                          "filters.drop-every-100.packet", "seed", "flow", "receiver_mbps", "error"}) {
    EXPECT_TRUE(rows[0].count(col)) << col;
  }
  EXPECT_EQ(rows[3].at("status"), "failed");
  EXPECT_EQ(rows[3].at("flow"), "");
  EXPECT_EQ(rows[0].at("flow"), "udp1");

  std::stringstream jsonl;
  write_records_jsonl(jsonl, records);
  const auto back = read_records_jsonl(jsonl);
  ASSERT_EQ(back.size(), records.size());
  for (std::size_t i = 0; i < back.size(); ++i) EXPECT_TRUE(MessageDifferencer::Equals(back[i], records[i]));
}

results::SweepRecord synthetic(const std::string& cc, int seed, double mbps, bool failed = false) {
  results::SweepRecord r;
  r.set_key(cc + std::to_string(seed));
  for (auto [k, v] : {std::pair<std::string, std::string>{"cc", cc}, {"seed", std::to_string(seed)}, {"x", "1"}}) {
    auto* p = r.add_params();
    p->set_key(k);
    p->set_value(v);
  }
  if (failed) {
    r.mutable_result()->set_error("boom");
  } else {
    auto* f = r.mutable_result()->add_flows();
    f->set_name("f");
    f->set_receiver_mbps(mbps);
    f->set_retransmits(static_cast<std::uint64_t>(seed));
  }
  return r;
}

// The CPU columns: a flow's hosts' CPU use when they have a CPU model, empty otherwise.
TEST(RecordTables, CpuColumnsAreEmptyWithoutACpuModel) {
  results::SweepRecord with = synthetic("newreno", 1, 900);
  with.mutable_result()->mutable_flows(0)->set_sender_cpu_pct(97.5);
  const results::SweepRecord without = synthetic("newreno", 2, 800);
  std::stringstream csv;
  write_records_csv(csv, {with, without});
  const auto rows = read_csv(csv);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("sender_cpu_pct"), "97.5");
  EXPECT_EQ(rows[0].at("receiver_cpu_pct"), "");
  EXPECT_EQ(rows[1].at("sender_cpu_pct"), "");
}

TEST(ResultsSummary, GroupsOverSeeds) {
  const std::vector<results::SweepRecord> recs{synthetic("newreno", 1, 900), synthetic("newreno", 2, 800),
                                                synthetic("cubic", 1, 100), synthetic("cubic", 2, 0, true),
                                                synthetic("bbr", 1, 0, true)};
  const Summary s = summarize_records(recs, {{}, {"receiver_mbps", "retransmits"}});
  EXPECT_EQ(s.group_by, (std::vector<std::string>{"cc"}));  // x does not vary, seed never groups
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].group[0], "newreno");
  EXPECT_EQ(s.rows[0].runs, 2u);
  EXPECT_DOUBLE_EQ(s.rows[0].metrics[0].mean, 850);
  EXPECT_DOUBLE_EQ(s.rows[0].metrics[0].min, 800);
  EXPECT_DOUBLE_EQ(s.rows[0].metrics[1].max, 2);
  EXPECT_EQ(s.rows[1].failed, 1u);
  EXPECT_EQ(s.rows[2].flow, "");
  EXPECT_EQ(s.rows[2].runs, 0u);
  std::stringstream csv;
  write_summary_csv(csv, s);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "cc,flow,runs,failed,receiver_mbps_mean,receiver_mbps_min,receiver_mbps_max,retransmits_mean,"
            "retransmits_min,retransmits_max");
  EXPECT_THROW(summarize_records(recs, {{}, {"nope"}}), SummaryError);
  EXPECT_THROW(summarize_records(recs, {{"hosts.nope"}, {"receiver_mbps"}}), SummaryError);
}

TEST(Progress, StatusRateAndEta) {
  double now = 100;
  std::ostringstream out;
  Progress p(out, ProgressStyle::lines, 10, 5.0, [&now] { return now; });
  p.add_skipped(2, 1);
  now = 102;
  p.run_done(false);  // first line at once
  now = 104;
  p.run_done(true);   // within the period: no line
  EXPECT_EQ(p.status(), "4/10 (40%)  0.5 runs/s  ETA 0:12  2 failed");
  EXPECT_EQ(out.str(), "netsim: sweep 3/10 (30%)  0.5 runs/s  ETA 0:14  1 failed\n");
}

TEST(SlurmScript, ArrayOfShards) {
  SlurmScriptOptions o;
  o.netsim = "/opt/netsim/bin/netsim";
  o.sweep_args = {"/s/t1.yaml", "--axis", "a=1,2", "--out", "/r dir"};
  o.out_dir = "/r";
  o.shards = 4;
  o.cpus_per_task = 2;
  const std::string s = slurm_script(o);
  EXPECT_NE(s.find("#SBATCH --array=0-3\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --cpus-per-task=2\n"), std::string::npos);
  EXPECT_NE(s.find("exec /opt/netsim/bin/netsim sweep /s/t1.yaml --axis a=1,2 --out '/r dir' --shard \"$SLURM_ARRAY_TASK_ID/4\"\n"),
            std::string::npos) << s;
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace netsim::sweep
