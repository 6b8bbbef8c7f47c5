// Paired pilot runs (issue 12, docs/calibrate.md §pilot): the baselines (FP32 "none" and
// "fp16") and each candidate scheme trained for a short budget with shared seeds (the
// same initialisation, data order and learning-rate schedule per seed for every scheme),
// p simulated data-parallel workers in one process (each worker's gradient from its own
// batch, aggregated by the scheme's real step() over a LocalGroup, as in convergence.h),
// evaluated on a fixed held-out subset at fixed iterations (the same for every run).
//
// Measured on the way, per run:
// - the gradient noise scale B_simple = tr(Sigma)/|G|^2 by McCandlish et al.'s
//   (2018, App. A.1) two-batch-size estimator on the raw gradients: per iteration,
//   |G_small|^2 = mean over workers of ||g_r||^2 (batch b), |G_big|^2 = ||mean_r g_r||^2
//   (batch p b); |G|^2 ~ (B_big |G_big|^2 - B_small |G_small|^2)/(B_big - B_small) and
//   tr(Sigma) ~ (|G_small|^2 - |G_big|^2)/(1/B_small - 1/B_big), each averaged over the
//   run before taking the ratio;
// - the scheme's relative error on the vector it really compresses, x = g (+ the
//   residual e with error feedback, tracked here by e <- x - C(x)):
//   mean ||C(x) - x||^2/||x||^2 (an unbiased scheme's variance factor w) and the
//   scale-optimal 1 - cos^2(C(x), x) (1 - delta, the contraction figure).
// Records are JSON lines (schema "gcu.pilot/1", docs/calibrate.md): one "config", one
// "eval" per evaluation, one "run" per (scheme, seed).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gcu::calibrate {

inline constexpr const char* kPilotSchema = "gcu.pilot/1";

struct PilotOptions {
  std::string task = "fashion-mnist";   // | "fortunes" (character LM, trainer/data/fortunes.h)
  std::string model_spec;               // empty: the task's default (cnn | small bert)
  std::vector<std::string> schemes = {"none", "fp16"};
  std::vector<uint64_t> seeds = {1, 2, 3};
  int workers = 2;                      // p simulated
  int batch_size = 32;                  // per worker
  int iterations = 100;                 // per run
  double lr = 0.05;                     // SGD, momentum below
  double momentum = 0.9;
  int warmup = 0;                       // linear warm-up iterations (the schedule's beginning)
  double eval_resolution = 0.04;        // relative spacing of evaluations (is_eval_iteration)
  int eval_samples = 1000;              // the fixed held-out subset
  std::optional<double> stop_loss;      // stop a run once its held-out loss is <= this
  // A late pilot (a branch): every run first trains the baseline's step (the workers'
  // plain mean, no compression) for branch_at iterations, then the scheme for
  // `iterations` more from that state. Evaluations from the branch point on (spaced as
  // is_eval_iteration over the iterations since it); the noise scale and the scheme's
  // error over the branch only. 0: a pilot from the start. What it is for: schemes whose
  // pace changes after an early pilot (docs/validation-tta.md, "Late pilots").
  int branch_at = 0;
};

// The task's default model spec.
std::string default_pilot_model(const std::string& task);

// Evaluation iterations are the same for every run: e_0 = 0, e_1 = 1,
// e_{k+1} = max(e_k + 1, floor(e_k (1 + resolution))) (relative spacing ~ resolution).
// (The earliest validation data used i % max(1, floor(i resolution)) == 0, which
// skips whole ranges for resolution > 1/25; its records carry their own iterations.)
bool is_eval_iteration(int i, double resolution);

using RecordSink = std::function<void(const nlohmann::ordered_json&)>;
using PilotProgress = std::function<void(const std::string&)>;

// Runs every (scheme, seed), in scheme-major order, handing each record to `sink`
// (the config record first). Throws std::invalid_argument for a bad task/scheme,
// trainer::DataError for missing data.
void run_pilots(const PilotOptions& opt, const RecordSink& sink, const PilotProgress& progress = {});

// The pieces run_pilots is made of (the sequential design, pilot_sequential.h, uses them):
// the options' check (std::invalid_argument), the "config" record, and one (scheme, seed)
// run's "eval" and "run" records.
void check_pilot_options(const PilotOptions& opt);
nlohmann::ordered_json pilot_config_record(const PilotOptions& opt);
void run_pilot(const PilotOptions& opt, const std::string& spec, uint64_t seed, const RecordSink& sink,
               const PilotProgress& progress = {});

}  // namespace gcu::calibrate
