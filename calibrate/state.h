// The calibration state (torch-free): what each step of `gcu calibrate` measured, saved
// after every step as the state file (`<output>.state.json`, the --resume file, see
// docs/calibrate.md) and turned into a profile by build_profile (profile_builder.h).
// One struct per step, each with to_json / from_json; the file is
//   {"meta": {...}, "skipped": ["step: reason", ...], "compute": {...}, "gamma": {...},
//    "collectives": {...}, "codecs": {spec: {...}}, "errors": {spec: {...}},
//    "codec_gradients": {spec: {...}}, "contention": {...}, "convergence": {...}}
// with a step's key present once that step has completed.
//
// Reading is strict: a missing key, a value of the wrong type or an unknown (misspelt)
// key is a StateError naming the key's path (e.g. "gamma.alone_s") and the file; no
// value silently becomes 0. Keys that a step may leave out are std::optional here.
#pragma once

#include "calibrate/collective_fit.h"
#include "calibrate/fit.h"
#include "model/profile.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gcu::calibrate {

using Json = nlohmann::ordered_json;

// A state document that does not have the expected form; the message names the file and
// the key. A FitError (calibrate's error type): bad input, `gcu calibrate` exits with 2.
struct StateError : FitError {
  using FitError::FitError;
};

// A JSON object keyed by scheme spec, in file order.
template <class T>
using BySpec = std::vector<std::pair<std::string, T>>;

// The run that wrote the state (a resume continues only the same model and world size).
struct StateMeta {
  std::string model_spec;
  std::vector<int> batch_sizes;
  int world = 1;
  int local_world = 1;             // ranks per node
  std::string backend = "gloo";
  int threads = 1;                 // torch threads per rank
  std::string fit_statistic = "mean";
};

struct ComputeEntryState {
  int batch_size = 0;
  double forward_s = 0, backward_s = 0, optimizer_s = 0;                // medians
  double forward_spread = 0, backward_spread = 0, optimizer_spread = 0;  // (p90-p10)/median
  double backward_p10_s = 0, backward_p90_s = 0;
  int64_t iterations = 0, warmup = 0;
  std::vector<double> ready_s;     // per tensor, `tensors` order
};
struct ComputeState {
  std::string model;               // the net's spec
  int64_t parameters = 0;
  std::vector<model::TensorInfo> tensors;  // observed gradient-ready order
  std::vector<ComputeEntryState> entries;  // one per batch size
  std::string data = "synthetic";  // the batches timed (ComputeOptions::data; absent in older states)
};

struct GammaState {
  double gamma = 1;                // overlapped / alone (as measured, may be < 1)
  double alone_s = 0, overlapped_s = 0, alone_spread = 0, overlapped_spread = 0;
  int buckets = 0;
  double bytes = 0;                // all-reduced per backward
  // Median time the all-reduces took beside the backward, from its start (0: not measured,
  // older states). The profile's interference factors are fitted on it through the
  // Predictor (model/interference.h), the whole backward's stretch is its gamma_stretch.
  double comm_s = 0;
  // The same all-reduces alone, back to back after a barrier (median; 0: not measured,
  // older states), and each one's bytes (empty: not kept; the profile then
  // plans the model's buckets again). Both for comm_contention (profile_builder.h).
  double comm_alone_s = 0;
  std::vector<double> bucket_bytes;
};

// The raw sweeps (build_profile fits them with meta.fit_statistic).
struct CollectivesState {
  int world = 1;
  std::vector<CollectiveSweep> sweeps;
  double idle_gap_s = 0;  // idle before each call (SweepOptions::idle_gap_s); 0 in old files
  bool busy_gap = false;  // the gap was spent busy (SweepOptions::busy_gap); false in old files
  bool free_running = false;  // SweepOptions::free_running; false in old files
};

struct CodecState {
  model::CodecFit fit;
  bool gathers = false;
  double encode_geomean_rel = 0, decode_geomean_rel = 0;  // fit errors
  // Part of decode.per_element_s that is a low-precision all-reduce's conversion work
  // (calibrate/wire_types.h), not the codec's own; absent in files written before it was
  // kept (then the codec-gradients step leaves decode unscaled).
  std::optional<double> wire_extra_per_element_s;
};

// The codec-gradients step: a codec timed on the model's own gradient buckets (their
// tensors' shapes and values) against what its size-sweep fit predicts for the same
// buckets (calibrate/codec_gradients.h). The factors scale the codec's fit in the profile.
inline constexpr double kMaxGradientFactor = 1000;  // a state file's factors lie in (0, this]
struct CodecGradientState {
  double encode_factor = 1, decode_factor = 1;  // measured / fitted; 1 where too small to compare
  double encode_s = 0, decode_s = 0;            // measured per gradient (all buckets), median
  double fit_encode_s = 0, fit_decode_s = 0;    // the sweep's fit for the same buckets
  int buckets = 0, snapshots = 0;
  // How many ranks timed at once (every rank now, as training encodes; 1:
  // rank 0 alone, the older states, which is also what an absent key reads as).
  int ranks_at_once = 1;
};

struct ErrorState {
  double relative_error = 0, relative_error_ef = 0;
  int snapshots = 0, buckets = 0;
};

struct ContentionState {
  std::string scheme;
  double factor = 1, backward_slowdown = 1, codec_slowdown = 1;
  double codec_alone_s = 0, codec_overlapped_s = 0;
  // Every rank's slowdowns, in rank order, and the factor is from their medians; empty in
  // older states (rank 0's own figures, the codec alone timed once before the loop while
  // the other ranks did whatever they were doing).
  std::vector<double> rank_backward_slowdown, rank_codec_slowdown;
};

struct ConvergenceSchemeState {
  bool reaches = false;
  std::optional<double> iterations;  // null when never reached
};
struct HeldOutState {
  std::string cls;                   // TTA class name ("class" in the file)
  std::optional<double> measured, predicted, rel_error;
  std::optional<bool> agrees;
};
struct ValidationState {
  std::string method;
  double cap = 0;
  BySpec<HeldOutState> schemes;
  int validated = 0;
  std::optional<double> median_abs_rel_error, max_abs_rel_error;
  int never_validated = 0, never_agreeing = 0;
};
struct ConvergenceState {
  std::string target;                // e.g. "held-out loss 0.4312"
  double baseline_iterations = 0;
  double global_batch = 0;           // p workers x batch of the runs
  std::string method;
  BySpec<ConvergenceSchemeState> schemes;
  std::vector<std::pair<std::string, double>> constants;  // fitted TTA constants by name
  ValidationState validation;
  std::string report;
};

struct CalibrationState {
  StateMeta meta;
  std::vector<std::string> skipped;  // "step: reason"
  std::optional<ComputeState> compute;
  std::optional<GammaState> gamma;
  std::optional<CollectivesState> collectives;
  std::optional<BySpec<CodecState>> codecs;
  std::optional<BySpec<ErrorState>> errors;
  std::optional<BySpec<CodecGradientState>> codec_gradients;
  std::optional<ContentionState> contention;
  std::optional<ConvergenceState> convergence;
  bool has(const std::string& step) const;  // a step of calibration_steps() completed
};

Json to_json(const StateMeta& s);
Json to_json(const ComputeState& s);
Json to_json(const GammaState& s);
Json to_json(const CollectivesState& s);
Json to_json(const CodecState& s);
Json to_json(const ErrorState& s);
Json to_json(const CodecGradientState& s);
Json to_json(const ContentionState& s);
Json to_json(const ConvergenceState& s);
Json to_json(const CalibrationState& s);
template <class T>
Json to_json(const BySpec<T>& m) {
  Json j = Json::object();
  for (const auto& [spec, v] : m) j[spec] = to_json(v);
  return j;
}

// The readers: `origin` names the document in errors (the file path).
StateMeta meta_from_json(const Json& j, const std::string& origin);
ComputeState compute_from_json(const Json& j, const std::string& origin);
GammaState gamma_from_json(const Json& j, const std::string& origin);
CollectivesState collectives_from_json(const Json& j, const std::string& origin);
BySpec<CodecState> codecs_from_json(const Json& j, const std::string& origin);
BySpec<ErrorState> errors_from_json(const Json& j, const std::string& origin);
BySpec<CodecGradientState> codec_gradients_from_json(const Json& j, const std::string& origin);
ContentionState contention_from_json(const Json& j, const std::string& origin);
ConvergenceState convergence_from_json(const Json& j, const std::string& origin);
CalibrationState state_from_json(const Json& j, const std::string& origin);

// The file: read (StateError naming the file when unreadable, not JSON or malformed) and
// written atomically (a temporary file renamed over it).
CalibrationState read_state_file(const std::string& path);
void write_state_file(const std::string& path, const CalibrationState& s);

}  // namespace gcu::calibrate
