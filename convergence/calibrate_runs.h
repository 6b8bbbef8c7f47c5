// Short training runs that fit the TTA model's constants (convergence/tta.h), torch-free
// header. Method (docs/calibrate.md §convergence): data-parallel SGD with p simulated
// workers in one process (each worker's gradient from its own Fashion-MNIST or synthetic
// batch, aggregated by the scheme's real step() over a LocalGroup of p threads), the same
// seeds for every scheme. The target is the held-out loss FP32 reaches after
// `iterations` steps; each scheme runs up to `max_factor` x that long. The measured
// multiplier m = iterations(scheme) / iterations(FP32) gives one estimate of the scheme's
// class constant (error feedback: ef_scale = (m-1)/(1/delta-1); unbiased: variance_scale =
// (m-1) p / w; biased without EF: biased_scale = (m-1)(1-e)/e), combined per class by
// least squares through the origin.
#pragma once

#include "calibrate/compute.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct ConvergenceOptions {
  ComputeOptions compute;        // model spec, lr
  int batch_size = 32;           // per worker
  int workers = 2;               // p simulated
  int iterations = 150;          // FP32 run length; the target is its final eval loss
  int eval_every = 10;
  int eval_samples = 1000;
  double max_factor = 3;         // schemes stop at max_factor x the FP32 iterations
  double budget_s = 0;           // > 0: schemes not started before this are skipped
  std::vector<std::string> schemes;
};

// errors: spec -> {"relative_error", "relative_error_ef"} (the errors step); schemes
// without an entry are measured on the fly. Returns the state document's "convergence".
nlohmann::ordered_json run_convergence(const ConvergenceOptions& opt,
                                       const nlohmann::ordered_json& errors,
                                       const Progress& progress = {});

}  // namespace gcu::calibrate
