#include "netsim/sweep/result_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "netsim/sweep/atomic_file.h"
#include "netsim/sweep/record_tables.h"

namespace netsim::sweep {
namespace {

bool is_record_name(const std::string& name) {
  if (name.size() != 16 + 3 || name.substr(16) != ".pb") return false;
  return std::all_of(name.begin(), name.begin() + 16, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// flock() on DIR/.lock for the lifetime of the object; released by close(),
// also when the process dies, so a killed writer never leaves it held.
class DirLock {
 public:
  explicit DirLock(const std::filesystem::path& dir) {
    const std::filesystem::path p = dir / ".lock";
    fd_ = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw StoreError("cannot open lock file " + p.string() + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int err = errno;
        ::close(fd_);
        throw StoreError("cannot lock " + p.string() + ": " + std::strerror(err));
      }
    }
  }
  ~DirLock() { ::close(fd_); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

ResultStore::ResultStore(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_ / "runs", ec);
  if (ec) throw StoreError("cannot create result directory " + (dir_ / "runs").string() + ": " + ec.message());
}

std::filesystem::path ResultStore::record_path(const std::string& key) const { return dir_ / "runs" / (key + ".pb"); }

void ResultStore::put(const results::SweepRecord& r) const {
  std::string bytes;
  if (!r.SerializeToString(&bytes)) throw StoreError("cannot serialize the record of run " + r.key());
  try {
    write_file_atomically(record_path(r.key()), bytes, false);
  } catch (const std::runtime_error& e) {
    throw StoreError(e.what());
  }
}

void ResultStore::sync() const { sync_directory(dir_ / "runs"); }

ResultStore::Contents ResultStore::load() const {
  Contents c;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_ / "runs", ec);
  if (ec) throw StoreError("cannot list " + (dir_ / "runs").string() + ": " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!is_record_name(name)) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    results::SweepRecord r;
    if (!in || !r.ParseFromIstream(&in)) {
      c.problems.push_back(entry.path().string() + ": not a readable record; the run will be redone");
      continue;
    }
    if (r.key() + ".pb" != name) {
      c.problems.push_back(entry.path().string() + ": holds the record of run " + r.key() + "; ignored");
      continue;
    }
    c.by_key.emplace(r.key(), std::move(r));
  }
  return c;
}

std::vector<results::SweepRecord> ResultStore::ordered(const Contents& c) {
  std::vector<results::SweepRecord> out;
  out.reserve(c.by_key.size());
  for (const auto& [key, r] : c.by_key) out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const results::SweepRecord& a, const results::SweepRecord& b) {
    return a.run_index() < b.run_index();
  });  // by_key is sorted by key, so ties stay in key order
  return out;
}

std::vector<results::SweepRecord> ResultStore::write_merged() const {
  DirLock lock(dir_);
  const std::vector<results::SweepRecord> records = ordered(load());
  std::ostringstream jsonl;
  std::ostringstream csv;
  write_records_jsonl(jsonl, records);
  write_records_csv(csv, records);
  try {
    write_file_atomically(dir_ / "results.jsonl", jsonl.str());
    write_file_atomically(dir_ / "results.csv", csv.str());
  } catch (const std::runtime_error& e) {
    throw StoreError(e.what());
  }
  return records;
}

}  // namespace netsim::sweep
