// `gcu calibrate` as a library call: runs the calibration steps on the launched ranks
// (torchrun-style environment, see group.h), keeps partial results in a state file after
// every step (resumed with `resume`), respects a time budget (later steps shortened or
// skipped, and the profile says which), and writes a "gcu.profile/2" profile (rank 0).
// Steps, in order: compute, gamma, collectives, codecs, errors, codec-gradients, contention,
// convergence.
#pragma once

#include "calibrate/profile_builder.h"
#include "compressors/compressor.h"

#include <functional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct CalibrateOptions {
  std::string model_spec = "cnn";
  std::vector<int> batch_sizes = {32, 64};
  int warmup = 3;
  int iters = 10;
  int64_t min_bytes = 4;
  int64_t max_bytes = 64LL << 20;    // collective sweep (nccl-tests size)
  std::vector<std::string> schemes;  // codec timing and errors; empty = all registered (codec timing:
                                     // also other parameter values, default_codec_specs())
  std::vector<int64_t> codec_sizes;  // elements; empty = defaults (up to 4 Mi)
  std::string contention_scheme;     // empty: first registered of powersgd, topk, signsgd
  int error_snapshots = 4;
  std::vector<std::string> convergence_schemes;  // empty = defaults; {"-"} = skip step
  int convergence_iterations = 150;
  double budget_s = 0;               // 0 = no budget
  std::string output;                // profile path (rank 0); required
  std::string state_file;            // default: output + ".state.json"
  // The profile's two parts (model/parts.h), also written when named: the model part
  // (model, buckets, convergence) and the system part (cluster, codec costs).
  std::string model_part, system_part;
  bool resume = false;
  int threads = 0;                   // torch intra-op threads per rank; 0 = cores / local ranks
  std::string backend = "gloo";
  std::string fit_statistic = "mean";  // collective fits: "mean", "median", "p10" or "min"
  // Collective kinds the sweep times ("allreduce", "allgather", "reducescatter",
  // "broadcast"); empty: every kind. For timing one kind through a link in several ways (Gloo's
  // all-gather moves a bucket stream through a shaped link slower than its single calls).
  std::vector<std::string> collectives;
  double collective_gap_ms = -1;     // idle before each timed collective; < 0: auto (forward +
                                     // backward of the largest batch, at most kMaxAutoGapMs)
  bool collective_gap_busy = false;  // spend the gap busy (SweepOptions::busy_gap), not asleep
  bool collective_free_running = false;  // SweepOptions::free_running
  // Timed calls per collective size (and the sweep's share of the budget) x this: the
  // calibration's own noise (which validate reports per cell) shrinks as 1/sqrt(scale).
  double collective_calls_scale = 1;
  // The all-gather schemes' free-running floor (allgather_floor.h): "auto" (when this node's
  // ranks x torch threads outnumber its cores, the placement where it was seen), "on", "off".
  std::string allgather_floor = "auto";
  std::string compute_loop = "trainer";  // ComputeOptions::loop: "trainer" or "barrier"
  std::string ready_times = "spread";      // "spread" (by parameter count) or "measured" (BuildInfo)
  std::string compute_data = "synthetic";  // ComputeOptions::data: "synthetic" or "fashion-mnist"
  std::vector<std::string> skip;     // step names to skip
  // Write the state file only, no profile: for a probe of one step (gcu validate's
  // per-link gamma, validate/link_gamma.h), whose state alone cannot make a profile.
  bool state_only = false;
  std::string command_line;          // for provenance
};

// The kinds of --collectives (empty: every kind); throws std::invalid_argument naming an
// unknown one.
std::vector<compress::CollectiveKind> parse_collective_kinds(const std::vector<std::string>& names);

// The automatic idle gap of the collective sweep is at most this (longer gaps cost the
// same per call on the machines measured), and this when compute was not measured.
constexpr double kMaxAutoGapMs = 20;
constexpr double kDefaultGapMs = 5;

using Progress = std::function<void(const std::string&)>;

struct CalibrateResult {
  bool wrote_profile = false;  // rank 0 only
  std::string report;          // tables and fit errors (rank 0)
};

// Throws std::invalid_argument for bad options (naming the value).
CalibrateResult run_calibration(const CalibrateOptions& opt, const Progress& progress);

// The steps, in order (for --skip and the state file).
const std::vector<std::string>& calibration_steps();

}  // namespace gcu::calibrate
