// The JSON-lines training log (schema "gcu.trainlog/1", docs/trainer-log-schema.md) and
// the summary statistics of per-iteration timings. Torch-free.
//
// One JSON object per line: a "header" first, then "iter", "eval" and "checkpoint"
// records as they happen, and a "summary" last (also on early stop).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace gcu::trainer {

inline constexpr const char* kTrainLogSchema = "gcu.trainlog/1";

// Per-iteration timing breakdown, seconds.
struct IterTimes {
  double data_s = 0;
  double forward_s = 0;
  double backward_s = 0;       // loss.backward(), hooks and overlapped work included
  double comm_exposed_s = 0;   // waiting for communication after backward ended
  double encode_s = 0;         // compressor work before/between collectives (all buckets)
  double collective_s = 0;     // inside collectives (all buckets)
  double decode_s = 0;         // compressor work after the last collective (all buckets)
  double optimizer_s = 0;
  double total_s = 0;
  int64_t wire_bytes = 0;      // bytes this rank contributed to collectives
};
nlohmann::json to_json(const IterTimes& t);

struct Quantiles {
  double median = 0, p10 = 0, p90 = 0, mean = 0;
  int64_t n = 0;
};
// Linear interpolation between order statistics (numpy's default). Empty -> zeros.
Quantiles quantiles(std::vector<double> v);

// Collects IterTimes of the measured (post-warm-up) iterations and summarizes them as
// {"total_s": {"median":..,"p10":..,"p90":..,"mean":..,"n":..}, ...}.
class TimingSummary {
 public:
  void add(const IterTimes& t);
  nlohmann::json to_json() const;
  int64_t count() const { return static_cast<int64_t>(total_.size()); }
  Quantiles total() const { return quantiles(total_); }

 private:
  std::vector<double> data_, forward_, backward_, exposed_, encode_, collective_, decode_,
      optimizer_, total_;
};

// Writes one object per line, flushed after each; "" writes nothing, "-" writes stdout.
// The file is written as <path>.tmp and renamed to <path> by close() (also on
// destruction), so readers never see a half-written log under the final name.
class JsonLinesWriter {
 public:
  explicit JsonLinesWriter(std::string path);
  ~JsonLinesWriter();
  void write(const nlohmann::json& record);
  void close();
  bool enabled() const { return out_ != nullptr; }

 private:
  [[noreturn]] void fail();  // closes and removes the temporary file, throws TrainError
  std::string path_;
  std::FILE* out_ = nullptr;
  bool is_stdout_ = false;
};

}  // namespace gcu::trainer
