// A sweep's result directory: one Protobuf record per run, plus merged views.
//
//   DIR/runs/<key>.pb   one results::SweepRecord per run, written atomically
//                       as soon as the run ends: the source of truth
//   DIR/results.jsonl   every record, one JSON object a line (merged view)
//   DIR/results.csv     one row per run and flow (merged view)
//
// Per-run files make the directory merge-safe: any number of processes
// (threads, shards, Slurm array tasks on several hosts sharing the directory)
// can add records at once, and a record either exists whole or not at all.
// The merged views are regenerated from runs/ under an exclusive lock on
// DIR/.lock, so the last writer's view contains every record written before.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "netsim/results/sweep_record.pb.h"

namespace netsim::sweep {

// The directory or a record cannot be created, written or read.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ResultStore {
 public:
  // Opens DIR, creating DIR and DIR/runs when missing. Throws StoreError.
  explicit ResultStore(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path record_path(const std::string& key) const;

  // Writes (or replaces) the record of r.key() atomically: complete or
  // absent after a kill or a power loss. Throws StoreError.
  void put(const results::SweepRecord& r) const;

  // Makes the records put so far durable across a power loss (one fsync of
  // runs/ for many records, rather than one per record).
  void sync() const;

  struct Contents {
    std::map<std::string, results::SweepRecord> by_key;
    std::vector<std::string> problems;  // unreadable or misnamed files, skipped (a rerun replaces them)
  };
  // Every record in runs/. Files that are not "<16 hex>.pb" (temporaries of
  // writers killed mid-write, other files) are ignored.
  Contents load() const;

  // Records ordered as a sweep's plan: by run index, then key (records of
  // other sweeps in the same directory interleave deterministically).
  static std::vector<results::SweepRecord> ordered(const Contents& c);

  // Rewrites results.jsonl and results.csv from every record in runs/, under
  // the directory lock, and returns those records, ordered. Throws StoreError.
  std::vector<results::SweepRecord> write_merged() const;

 private:
  std::filesystem::path dir_;
};

}  // namespace netsim::sweep
