// The `gcu simulate` driver: given a profile, schemes and an optional sweep axis, asks
// model/ for one prediction per (point, scheme) and returns a result table that the
// formatters (format.h), the plotter (plot.h) and the tracer (trace.h) turn into output.
//
// Speed-ups are against the two baselines at the same point: FP32 DDP ("none") and FP16
// DDP ("fp16"). They are computed even when the baselines were not asked for (they are
// then left out of the rows); vs FP16 is absent when the profile cannot cost fp16.
#pragma once

#include "model/iteration.h"
#include "model/profile.h"
#include "convergence/tta.h"
#include "simulate/sweep_spec.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gcu::simulate {

struct RunRequest {
  std::vector<std::string> schemes;  // specs as typed: "none", "powersgd:rank=4", ...
  std::optional<SweepSpec> sweep;
  int gpus = 0;                      // total GPUs; 0 = the profile's nodes x gpus_per_node
  model::Setup base;                 // model, mode, batch_size (nodes/gpus_per_node from gpus)
  model::Conditions cond;            // bandwidths, speed-ups, gamma ... (0 = the profile's)
  bool with_tta = true;
};

struct ResultRow {
  std::string scheme;                // canonical spec
  double x = 0;                      // sweep value, in the axis' unit (0 without a sweep)
  model::IterationResult iteration;  // includes the model used (closed-form or event)
  model::Seconds linear_s = 0;       // same point with no communication (ideal scaling)
  std::optional<double> vs_fp32;     // T_none / T_scheme
  std::optional<double> vs_fp16;     // T_fp16 / T_scheme
  model::Gbps inter_bandwidth_gbps = 0;
  std::optional<model::TtaResult> tta;
  std::string tta_note;              // why tta is absent
};

struct RunContext {
  std::string model_name;
  int64_t parameters = 0;
  int nodes = 0, gpus_per_node = 0;  // base setup (before a gpus/nodes sweep)
  int batch_size = 0;                // base per-GPU batch
  model::Gbps inter_bandwidth_gbps = 0, intra_bandwidth_gbps = 0;
  std::string iteration_model;       // "event" | "closed-form"
  std::string mode;                  // as requested: "auto" | "after-backward" | "overlapped"
  double compute_speedup = 1;
  std::string tta_target;
  std::string convergence_source;      // "assumed" | "pilot" | "calibrated" (model::convergence_source)
  double baseline_iterations = 0;
  double reference_global_batch = 0;   // B0 of the global-batch law (convergence/tta.h)
  double critical_batch_size = 0;      // B_crit used
  bool critical_batch_defaulted = false;
};

struct ResultTable {
  std::optional<SweepSpec> sweep;
  std::vector<std::string> schemes;  // canonical, in the requested order (duplicates removed)
  std::vector<ResultRow> rows;       // sweep values outer, schemes inner
  RunContext context;
  std::vector<std::string> notes;    // compute interpolation, missing TTA figures, ...
  std::vector<std::string> assumptions;  // modelling assumptions behind the numbers (TTA vs batch, ...)
};

// A one-line description of the setup for plot titles: model, GPUs, batch, bandwidth
// (unless swept), compute speed-up (when not 1), iteration model.
std::string describe_setup(const ResultTable& t);

// Throws model::ModelError / SimulateError with a message naming the bad scheme or value.
ResultTable run_simulation(const model::Profile& p, const RunRequest& req);

// Nodes and GPUs per node for `gpus` total GPUs: whole nodes of the profile's size, or
// one node with fewer GPUs. Throws SimulateError otherwise.
std::pair<int, int> nodes_for_gpus(const model::Profile& p, int gpus);

// One predicted iteration per requested scheme, with its timeline, at the base point
// (no sweep applied): what --trace writes.
std::vector<model::IterationResult> predict_timelines(const model::Profile& p, const RunRequest& req);

}  // namespace gcu::simulate
