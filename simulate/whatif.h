// What-if analyses over the iteration and TTA models (docs/model.md).
// Every function returns plain structs; simulate/ formats them. Predictors are built once
// per (scheme, GPU count, batch size) and reused across the cheap axes.
#pragma once

#include "model/iteration.h"
#include "model/profile.h"
#include "convergence/tta.h"
#include "model/units.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gcu::model {

// Gpus = total GPU count: whole nodes of the setup's GPUs per node, or one partly used
// node when fewer (split_gpus); Nodes = node count, GPUs per node unchanged.
enum class Axis { Bandwidth, Gpus, Nodes, BatchSize, ComputeSpeedup };
// "bandwidth_gbps", "gpus", "nodes", "batch_size", "compute_speedup"
const char* axis_name(Axis a);
Axis parse_axis(const std::string& s);  // the names above and aliases; throws ModelError

// {nodes, GPUs per node} for `gpus` GPUs on nodes of `gpus_per_node`: {1, gpus} when
// gpus <= gpus_per_node, {gpus / gpus_per_node, gpus_per_node} when it divides. Throws
// ModelError naming both values and the nearest valid counts otherwise.
std::pair<int, int> split_gpus(int gpus, int gpus_per_node);

struct SweepRequest {
  Axis axis = Axis::Bandwidth;
  std::vector<double> values;        // Gbps (inter level), GPUs, nodes, per-GPU batch, factor
  std::vector<std::string> schemes;  // specs, e.g. "none", "fp16", "powersgd:rank=4"
  Setup base;                        // base.scheme is ignored
  Conditions cond;
  bool with_tta = true;              // TTA when the profile has convergence figures
};

struct SweepRow {
  std::string scheme;
  double x = 0;
  IterationResult iteration;      // no timeline
  Seconds linear_s = 0;           // same point without any communication (ideal scaling)
  double speedup_vs_none = 0;     // T_none / T_scheme at the same point (0 if none absent)
  std::optional<TtaResult> tta;   // absent when with_tta is off or figures are missing
  std::string tta_note;           // why tta is absent
};

// One row per (value, scheme), values outer. Throws ModelError on a bad scheme or value.
std::vector<SweepRow> sweep(const Profile& p, const SweepRequest& req);

// Samples per iteration over all GPUs of a predictor's setup (GPUs x per-GPU batch).
double global_batch(const Predictor& pred);
// Iterations to target of the predictor's scheme at its global batch (tta.h, with the
// global-batch law applied). Throws ModelError when figures are missing.
IterationsEstimate iterations_for(const Profile& p, const Predictor& pred);

// Iteration time with no communication at all (linear-scaling reference).
Seconds linear_scaling_s(const Predictor& pred, const Conditions& cond = {});

// Smallest compression ratio r (wire bytes / r, codec costs of `setup.scheme` kept, its
// mode kept) such that T <= (1 + within) * T_linear. Absent when even r = 1e6 does not
// get there (latency-bound).
struct RatioNeeded {
  std::optional<double> ratio;
  Seconds target_s = 0;      // (1 + within) * T_linear
  Seconds at_ratio_1_s = 0;  // the scheme as it is
  std::string note;
};
RatioNeeded ratio_for_linear_scaling(const Profile& p, const Setup& setup,
                                     const Conditions& cond, double within);

// Encode/decode k times faster costs l*k times more bytes: one row per k.
struct TradeRow {
  double k = 1;
  double bytes_factor = 1;  // l * k
  IterationResult iteration;
};
std::vector<TradeRow> codec_ratio_trade(const Profile& p, const Setup& setup,
                                        const Conditions& cond, const std::vector<double>& ks,
                                        double l);

enum class Metric { Iteration, Tta };

// Inter-node bandwidth in [lo, hi] Gbps where `scheme` and `baseline` swap places
// (found on a log grid, refined by bisection). Absent when they never swap in range.
struct Crossover {
  std::optional<Gbps> gbps;
  bool scheme_wins_below = false;  // direction of the swap
  std::string note;                // e.g. "topk:k=0.01 wins below 3.2 Gbps"
};
Crossover crossover_bandwidth(const Profile& p, const std::string& scheme,
                              const std::string& baseline, const Setup& setup,
                              const Conditions& cond, Gbps lo_gbps, Gbps hi_gbps,
                              Metric metric = Metric::Iteration);

// Candidates: every registered scheme's recommend_grid (registry facts: powersgd rank
// 1..32, topk k in {0.1, 0.01, 0.001}, ...), in registration order. Specs the registry
// cannot build are left out.
std::vector<std::string> default_candidates();

// Parameter grids in a spec: every "{a|b|c}" is replaced by each alternative, several
// braces give the product: "powersgd:rank={1|2|4}" -> 3 specs, "topk:k={0.1|0.01}" -> 2.
// Throws ModelError on an unclosed or empty brace, and when the product would exceed
// kMaxCandidates (counted before anything is expanded: 41 braces of 2 are 2^41 specs).
inline constexpr size_t kMaxCandidates = 10'000;
std::vector<std::string> expand_candidates(const std::string& pattern);

struct Recommendation {
  std::string scheme;
  std::optional<IterationResult> iteration;
  std::optional<TtaResult> tta;
  std::string skipped;  // non-empty: why this candidate could not be evaluated
};
// Sorted best first by the metric. By TTA: the schemes predicted to reach the target, then
// the uncertain ones (pilot undecided), each group by TTA; never-reaching and skipped last.
std::vector<Recommendation> recommend(const Profile& p, const std::vector<std::string>& candidates,
                                      const Setup& setup, const Conditions& cond,
                                      Metric metric = Metric::Tta);

}  // namespace gcu::model
