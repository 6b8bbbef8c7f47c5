// Convergence and time-to-accuracy (docs/model.md §4). TTA = iterations-to-target x
// iteration time. Iterations of a compressed scheme = baseline iterations x multiplier:
//  - measured figures win: convergence.schemes[spec].iterations / reaches_target;
//  - none, fp16, bf16 without figures: multiplier 1;
//  - error feedback with a delta-contractive compressor (delta = 1 - relative error,
//    E||C(g)-g||^2 <= (1-delta)||g||^2) behaves like a delay of about 1/delta:
//      m = 1 + ef_scale * (1/delta - 1);
//  - unbiased with variance factor w (= relative error): m = 1 + variance_scale * w / p;
//  - biased without error feedback: never reaches the target when e > max_biased_error,
//    else m = 1 + biased_scale * e / (1 - e);
//  - any m above max_multiplier (or infinite) = never reaches the target.
// "Never reaches the target" is a status, never a number.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include "compressors/compressor.h"

#include <optional>
#include <string>

namespace gcu::model {

enum class TtaStatus { Reaches, NeverReaches };
const char* tta_status_name(TtaStatus s);  // "reaches", "never"

double ef_multiplier(double delta, double ef_scale);                 // 1 + s (1/delta - 1)
double unbiased_multiplier(double w, int p, double variance_scale);  // 1 + s w / p
double biased_multiplier(double e, double biased_scale);             // 1 + s e / (1 - e)

struct IterationsEstimate {
  TtaStatus status = TtaStatus::Reaches;
  std::optional<double> multiplier;   // absent when never
  std::optional<double> iterations;   // absent when never
  std::string basis;                  // "measured", "error feedback, delta=0.59", ...
};

// Throws ModelError when the profile has no baseline_iterations
// ("convergence.baseline_iterations") or no figures for a scheme that needs them
// ("convergence.schemes.<spec>").
IterationsEstimate iterations_to_target(const Convergence& conv, const std::string& scheme,
                                        const compress::SchemeTraits& traits, int world);

struct TtaResult {
  TtaStatus status = TtaStatus::Reaches;
  std::optional<double> iterations;
  std::optional<Seconds> tta_s;
  std::optional<double> multiplier;
  std::string basis;
};
TtaResult time_to_accuracy(const IterationsEstimate& it, Seconds iteration_s);

}  // namespace gcu::model
