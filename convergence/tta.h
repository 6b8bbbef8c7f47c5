// Convergence and time-to-accuracy (docs/model.md §4). TTA = iterations-to-target x
// iteration time. Iterations of a compressed scheme = baseline iterations x multiplier:
//  - measured figures win: convergence.schemes[spec].iterations / reaches_target;
//  - then a pilot prediction (convergence.schemes[spec].pilot, from `gcu pilot predict`;
//    docs/model.md §4.2): status reaches / never / uncertain, multiplier with an 80%
//    interval, basis "pilot-multiplier" or "pilot-lag";
//  - none, fp16, bf16 without figures: multiplier 1;
//  - error feedback with a delta-contractive compressor (delta = 1 - relative error,
//    E||C(g)-g||^2 <= (1-delta)||g||^2) behaves like a delay of about 1/delta:
//      m = 1 + ef_scale * (1/delta - 1);
//  - unbiased with variance factor w (= relative error): m = 1 + variance_scale * w / p;
//  - biased without error feedback: never reaches the target when e > max_biased_error,
//    else m = 1 + biased_scale * e / (1 - e);
//  - any m above max_multiplier (or infinite) = never reaches the target.
// "Never reaches the target" is a status, never a number.
// Global batch (docs/model.md §4.1): the figures above hold at the batch they were
// measured at (convergence.baseline_global_batch); at another global batch B the
// iterations are multiplied by batch_iterations_factor(B, B0, B_crit), McCandlish et
// al.'s law S(B) = S_min (1 + B_crit / B): ~1/B well below the critical batch, constant
// well above it.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include "compressors/compressor.h"

#include <optional>
#include <string>
#include <vector>

namespace gcu::model {

// Uncertain: a pilot could not decide; the estimate (when present) is the pilot's point.
enum class TtaStatus { Reaches, NeverReaches, Uncertain };
const char* tta_status_name(TtaStatus s);  // "reaches", "never", "uncertain"

double ef_multiplier(double delta, double ef_scale);                 // 1 + s (1/delta - 1)
double unbiased_multiplier(double w, int p, double variance_scale);  // 1 + s w / p
double biased_multiplier(double e, double biased_scale);             // 1 + s e / (1 - e)

// Iterations at global batch B relative to those at the reference batch B0 under
// S(B) = S_min (1 + Bc / B): (1 + Bc/B) / (1 + Bc/B0). Bc = 0: 1 (no dependence);
// Bc -> inf: B0 / B (perfect inverse scaling). Throws ModelError unless B, B0 > 0, Bc >= 0.
double batch_iterations_factor(double global_batch, double reference_batch, double critical_batch);

// The global-batch law resolved for one profile and one global batch.
struct BatchScaling {
  double global_batch = 0;     // samples per iteration, all GPUs (0 = unknown: factor 1)
  double reference_batch = 0;  // B0 at which the convergence figures hold
  double critical_batch = 0;   // Bc used
  bool reference_defaulted = false;  // B0 from the profile's own setup, not the field
  bool critical_defaulted = false;   // Bc = B0 because critical_batch_size is absent
  double factor = 1;           // batch_iterations_factor(global, reference, critical)
};
// Reference batch B0 of a profile: convergence.baseline_global_batch, else
// cluster.nodes x gpus_per_node x model.compute[0].batch_size (0 when there is no compute).
double reference_global_batch(const Profile& p);
BatchScaling batch_scaling(const Profile& p, double global_batch);
// One line for outputs' assumption lists: the law, B0 and Bc with where they came from.
std::string batch_scaling_assumption(const Profile& p);

struct IterationsEstimate {
  TtaStatus status = TtaStatus::Reaches;
  std::optional<double> multiplier;   // absent when never
  std::optional<double> iterations;   // absent when never
  std::optional<double> iterations_lo, iterations_hi;  // pilot's 80% interval
  std::string basis;                  // "measured", "pilot-lag", "error feedback, delta=0.59", ...
  std::vector<std::string> evidence;  // pilot: why never/uncertain, widened interval
  double batch_factor = 1;            // iterations x this for the global batch (already in iterations)
  double global_batch = 0;            // the global batch it was computed for (0 = reference)
  int pilot_seeds = 0, pilot_baseline_seeds = 0;  // the pilot's seeds of the baseline's (0: unknown)
};

// Throws ModelError when the profile has no baseline_iterations
// ("convergence.baseline_iterations") or no figures for a scheme that needs them
// ("convergence.schemes.<spec>").
// `batch` (optional) rescales the iterations to another global batch; the compression
// multiplier is unchanged (it compares with the baseline at the same batch).
// Prefix of the basis of every estimate made with the old error-to-multiplier constants
// (the documented fallback when a scheme has neither measured iterations nor a pilot).
inline constexpr const char* kFallback = "fallback constants: ";
inline bool is_fallback_basis(const std::string& basis) { return basis.rfind(kFallback, 0) == 0; }

IterationsEstimate iterations_to_target(const Convergence& conv, const std::string& scheme,
                                        const compress::SchemeTraits& traits, int world,
                                        const BatchScaling& batch = {});

struct TtaResult {
  TtaStatus status = TtaStatus::Reaches;
  std::optional<double> iterations;
  std::optional<Seconds> tta_s;
  std::optional<double> multiplier;
  std::optional<Seconds> tta_lo_s, tta_hi_s;  // pilot's 80% interval
  std::string basis;
  std::vector<std::string> evidence;
  double batch_factor = 1;   // see IterationsEstimate
  double global_batch = 0;
  int pilot_seeds = 0, pilot_baseline_seeds = 0;  // see IterationsEstimate
};
TtaResult time_to_accuracy(const IterationsEstimate& it, Seconds iteration_s);

// Whether two results' TTA intervals overlap (a result without an interval counts as the
// point [tta_s, tta_s]); absent when either has no TTA. Used by `recommend` to say the
// best two are not separable.
std::optional<bool> tta_intervals_overlap(const TtaResult& a, const TtaResult& b);

}  // namespace gcu::model
