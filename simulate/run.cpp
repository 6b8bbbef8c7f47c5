// The `gcu simulate` driver (run.h).
#include "simulate/run.h"

#include "simulate/whatif.h"
#include "simulate/error.h"
#include "simulate/format.h"
#include "util/text.h"

#include "compressors/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace gcu::simulate {
namespace {

// Canonical spec as the registry prints it; a bad spec is reported by the model later.
std::string canonical(const std::string& spec) {
  try {
    return compress::make_compressor(spec)->spec();
  } catch (const std::exception&) {
    return spec;
  }
}

model::Setup base_setup(const model::Profile& p, const RunRequest& req) {
  model::Setup s = req.base;
  if (req.gpus > 0) std::tie(s.nodes, s.gpus_per_node) = nodes_for_gpus(p, req.gpus);
  return s;
}

bool can_cost(const model::Profile& p, const model::Setup& s, const std::string& scheme) {
  try {
    model::Setup x = s;
    x.scheme = scheme;
    model::Predictor pred(p, x);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::pair<int, int> nodes_for_gpus(const model::Profile& p, int gpus) {
  try {
    return model::split_gpus(gpus, p.cluster.gpus_per_node);
  } catch (const model::ModelError& e) {
    throw SimulateError(std::string(e.what()) + " (--set cluster.gpus_per_node=N changes the node size)");
  }
}

namespace {

// The last line of defence (docs/robustness.md): the profile validator bounds every input
// so that derived quantities stay finite; should one still overflow (an option at the
// edge of its range), it is an error naming the quantity and the point, never an inf or
// NaN printed with exit code 0.
void check_finite(const ResultRow& r, const RunRequest& req) {
  const model::IterationResult& it = r.iteration;
  const std::pair<const char*, double> q[] = {
      {"iteration time", it.total_s},   {"backward+communication time", it.backward_comm_s},
      {"communication time", it.comm_s}, {"encode time", it.encode_s},
      {"decode time", it.decode_s},     {"exposed communication", it.exposed_s},
      {"wire bytes", it.wire_bytes},    {"linear-scaling time", r.linear_s},
      {"speed-up vs FP32", r.vs_fp32.value_or(1)}, {"speed-up vs FP16", r.vs_fp16.value_or(1)},
      {"time to accuracy", r.tta && r.tta->tta_s ? *r.tta->tta_s : 0.0},
      {"iterations to target", r.tta && r.tta->iterations ? *r.tta->iterations : 0.0}};
  for (const auto& [what, v] : q)
    if (!std::isfinite(v) || v < 0)
      throw SimulateError("scheme " + util::quote(r.scheme, 80) + (req.sweep ? " at " + fmt_number(r.x) : std::string()) +
                          ": the predicted " + what + " is " + (std::isnan(v) ? "NaN" : std::isinf(v) ? "infinite" : "negative") +
                          ": an input is out of range (the profile's times, bandwidths and costs, or "
                          "--bandwidth/--compute-speedup/--batch/--gpus)");
}


// Throws SimulateError for requests that contradict themselves or the profile.
void check_request(const model::Profile& p, const RunRequest& req) {
  if (req.schemes.empty()) throw SimulateError("no schemes given (e.g. --schemes none,fp16,powersgd:rank=4)");
  if (req.sweep && req.gpus > 0 &&
      (req.sweep->axis == SweepAxis::Gpus || req.sweep->axis == SweepAxis::Nodes))
    throw SimulateError("--gpus " + std::to_string(req.gpus) + " and --sweep " + sweep_axis_name(req.sweep->axis) +
                        "=... both set the GPU count: drop --gpus (a gpus sweep takes whole nodes of cluster.gpus_per_node = " +
                        std::to_string(p.cluster.gpus_per_node) +
                        " GPUs, or one partly used node; a nodes sweep keeps the GPUs per node)");
  if (req.sweep && req.sweep->axis == SweepAxis::Gpus)
    for (double g : req.sweep->values) {
      try {
        (void)model::split_gpus(int(g), p.cluster.gpus_per_node);
      } catch (const model::ModelError& e) {
        throw SimulateError("--sweep gpus: " + std::string(e.what()));
      }
    }
}

// The model's sweep over one axis for `schemes` (values outer, schemes inner); without a
// sweep, one point at the base conditions with x = 0.
std::vector<model::SweepRow> model_rows(const model::Profile& p, const RunRequest& req, const model::Setup& base,
                                        const std::vector<std::string>& schemes) {
  model::SweepRequest sr;
  sr.schemes = schemes;
  sr.base = base;
  sr.cond = req.cond;
  sr.with_tta = req.with_tta && model::convergence_source(p.convergence) != "none";
  if (!req.sweep) {
    sr.axis = model::Axis::ComputeSpeedup;  // one point: the base conditions
    sr.values = {req.cond.compute_speedup};
    std::vector<model::SweepRow> rows = model::sweep(p, sr);
    for (auto& r : rows) r.x = 0;
    return rows;
  }
  switch (req.sweep->axis) {
    case SweepAxis::Bandwidth: sr.axis = model::Axis::Bandwidth; break;
    case SweepAxis::Gpus: sr.axis = model::Axis::Gpus; break;
    case SweepAxis::Nodes: sr.axis = model::Axis::Nodes; break;
    case SweepAxis::BatchSize: sr.axis = model::Axis::BatchSize; break;
    default: sr.axis = model::Axis::ComputeSpeedup; break;
  }
  sr.values = req.sweep->values;
  return model::sweep(p, sr);
}

RunContext context_of(const model::Profile& p, const RunRequest& req, const model::Setup& base,
                      model::Gbps base_inter) {
  RunContext c;
  c.model_name = p.model.name;
  c.parameters = p.model.parameters;
  c.nodes = base.nodes > 0 ? base.nodes : p.cluster.nodes;
  c.gpus_per_node = base.gpus_per_node > 0 ? base.gpus_per_node : p.cluster.gpus_per_node;
  c.batch_size = base.batch_size > 0 ? base.batch_size
                 : p.model.compute.empty() ? 0
                                           : p.model.compute.front().batch_size;
  c.inter_bandwidth_gbps = base_inter;
  c.intra_bandwidth_gbps =
      req.cond.intra_bandwidth_gbps > 0 ? req.cond.intra_bandwidth_gbps : p.cluster.intra.bandwidth_gbps;
  c.iteration_model = model::model_name(base.model);
  c.mode = model::mode_name(base.mode);
  c.compute_speedup = req.cond.compute_speedup;
  c.tta_target = p.convergence.target;
  c.convergence_source = model::convergence_source(p.convergence);
  c.baseline_iterations = p.convergence.baseline_iterations;
  const model::BatchScaling bs = model::batch_scaling(p, 0);
  c.reference_global_batch = bs.reference_batch;
  c.critical_batch_size = bs.critical_batch;
  c.critical_batch_defaulted = bs.critical_defaulted;
  return c;
}

}  // namespace

ResultTable run_simulation(const model::Profile& p, const RunRequest& req) {
  check_request(p, req);
  ResultTable out;
  out.sweep = req.sweep;
  const model::Setup base = base_setup(p, req);

  // Requested schemes (canonical, unique) + hidden baselines.
  std::set<std::string> seen;
  std::vector<std::string> typed;
  for (const auto& s : req.schemes) {
    const std::string c = canonical(s);
    if (seen.insert(c).second) {
      out.schemes.push_back(c);
      typed.push_back(s);
    }
  }
  const auto& registry = compress::Registry::instance();
  const std::string fp32 = registry.baseline(compress::Baseline::FP32).name;
  const std::string fp16 = registry.baseline(compress::Baseline::FP16).name;
  std::vector<std::string> all = typed;
  for (const std::string& b : {fp32, fp16})
    if (!seen.count(b) && can_cost(p, base, b)) all.push_back(b);
  const std::vector<model::SweepRow> rows = model_rows(p, req, base, all);

  // Group by point; speed-ups against the baselines at the same point.
  const model::Gbps base_inter =
      req.cond.inter_bandwidth_gbps > 0 ? req.cond.inter_bandwidth_gbps : p.cluster.inter.bandwidth_gbps;
  std::set<std::string> notes, cost_assumptions;
  const std::set<std::string> wanted(out.schemes.begin(), out.schemes.end());
  for (size_t i = 0; i < rows.size(); i += all.size()) {
    const model::SweepRow* fp32_row = nullptr;
    const model::SweepRow* fp16_row = nullptr;
    for (size_t j = i; j < i + all.size() && j < rows.size(); ++j) {
      if (rows[j].scheme == fp32) fp32_row = &rows[j];
      if (rows[j].scheme == fp16) fp16_row = &rows[j];
    }
    for (size_t j = i; j < i + all.size() && j < rows.size(); ++j) {
      const model::SweepRow& s = rows[j];
      if (!wanted.count(s.scheme)) continue;
      ResultRow r;
      r.scheme = s.scheme;
      r.x = s.x;
      r.iteration = s.iteration;
      r.linear_s = s.linear_s;
      const double t = s.iteration.total_s;
      if (fp32_row && t > 0) r.vs_fp32 = fp32_row->iteration.total_s / t;
      if (fp16_row && t > 0) r.vs_fp16 = fp16_row->iteration.total_s / t;
      r.inter_bandwidth_gbps = req.sweep && req.sweep->axis == SweepAxis::Bandwidth ? s.x : base_inter;
      r.tta = s.tta;
      r.tta_note = s.tta_note;
      check_finite(r, req);
      if (!s.iteration.compute_exact && !s.iteration.note.empty()) notes.insert(s.iteration.note);
      notes.insert(s.iteration.cost_notes.begin(), s.iteration.cost_notes.end());
      cost_assumptions.insert(s.iteration.cost_assumptions.begin(), s.iteration.cost_assumptions.end());
      if (!r.tta && req.with_tta && model::convergence_source(p.convergence) != "none" && !s.tta_note.empty())
        notes.insert("no TTA for " + s.scheme + ": " + s.tta_note);
      if (r.tta && !r.tta->evidence.empty()) {  // pilot predictions: why never / uncertain / widened
        std::string e;
        for (const auto& x : r.tta->evidence) e += (e.empty() ? "" : "; ") + x;
        notes.insert("TTA of " + s.scheme + " (" + model::tta_status_name(r.tta->status) + ", " + r.tta->basis +
                     "): " + e);
      }
      out.rows.push_back(std::move(r));
    }
  }
  std::set<std::string> fallback;
  for (const auto& r : out.rows)
    if (r.tta && model::is_fallback_basis(r.tta->basis)) fallback.insert(r.scheme);
  if (!fallback.empty()) {
    std::string list;
    for (const auto& s : fallback) list += (list.empty() ? "" : ", ") + s;
    notes.insert("TTA of " + list + ": FALLBACK error-to-multiplier constants (docs/model.md §4), not validated on "
                 "held-out schemes; `gcu pilot` gives a validated prediction with an interval");
  }
  out.notes.assign(notes.begin(), notes.end());
  if (std::any_of(out.rows.begin(), out.rows.end(), [](const ResultRow& r) { return r.tta.has_value(); }))
    out.assumptions.push_back(model::batch_scaling_assumption(p));
  out.assumptions.insert(out.assumptions.end(), cost_assumptions.begin(), cost_assumptions.end());
  out.context = context_of(p, req, base, base_inter);
  return out;
}

std::string describe_setup(const ResultTable& t) {
  const RunContext& c = t.context;
  const auto swept = [&](SweepAxis a) { return t.sweep && t.sweep->axis == a; };
  std::string s = c.model_name;
  if (!swept(SweepAxis::Gpus) && !swept(SweepAxis::Nodes))
    s += " on " + std::to_string(c.nodes * c.gpus_per_node) + " GPUs (" + std::to_string(c.nodes) + " x " +
         std::to_string(c.gpus_per_node) + ")";
  if (!swept(SweepAxis::BatchSize)) s += ", batch " + std::to_string(c.batch_size) + "/GPU";
  if (!swept(SweepAxis::Bandwidth)) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", c.inter_bandwidth_gbps);
    s += std::string(", ") + b + " Gbps between nodes";
  }
  if (!swept(SweepAxis::ComputeSpeedup) && c.compute_speedup != 1) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", c.compute_speedup);
    s += std::string(", compute ") + b + "x faster";
  }
  return s + " (gcu, " + c.iteration_model + " model)";
}

std::vector<model::IterationResult> predict_timelines(const model::Profile& p, const RunRequest& req) {
  const model::Setup base = base_setup(p, req);
  std::vector<model::IterationResult> out;
  std::set<std::string> seen;
  for (const auto& s : req.schemes) {
    model::Setup x = base;
    x.scheme = s;
    model::Predictor pred(p, x);
    if (!seen.insert(pred.plan().scheme).second) continue;
    out.push_back(pred.predict(req.cond, true));
    out.back().scheme = pred.plan().scheme;
  }
  return out;
}

}  // namespace gcu::simulate
