// From calibration results to a profile (see profile_builder.h).
#include "calibrate/profile_builder.h"

#include "calibrate/codec_gradients.h"
#include "convergence/tta_fit.h"
#include "model/buckets.h"
#include "model/collectives.h"
#include "model/units.h"
#include "trainer/runtime/gloo_wire.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace gcu::calibrate {

using compress::CollectiveKind;

namespace {

std::string gap_text(double gap_s, bool busy) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f ms %s before each call", gap_s * 1e3, busy ? "busy" : "idle");
  return b;
}

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

}  // namespace

std::vector<CollectiveSweep> fitted_sweeps(const CollectivesState& c, const std::string& statistic) {
  std::vector<CollectiveSweep> out = c.sweeps;
  for (auto& s : out) {
    s.world = c.world;
    fit_sweep(s, sweep_fit_options(), statistic);
  }
  return out;
}

namespace {

using Notes = std::vector<std::string>;

void add_compute(const ComputeState& c, bool ready_times, model::Profile& p, std::string& rep, Notes& notes) {
  p.model.name = c.model;
  p.model.parameters = c.parameters;
  p.model.tensors = c.tensors;
  rep += "compute (" + p.model.name + ", medians; p10-p90 spread in %):\n";
  for (const auto& e : c.entries) {
    model::ComputeEntry ce;
    ce.batch_size = e.batch_size;
    ce.forward_s = e.forward_s;
    ce.backward_s = e.backward_s;
    ce.optimizer_s = e.optimizer_s;
    if (ready_times) ce.ready_s = e.ready_s;
    p.model.compute.push_back(ce);
    rep += "  batch " + std::to_string(ce.batch_size) + ": forward " + fmt("%.3f", ce.forward_s * 1e3) +
           " ms, backward " + fmt("%.3f", ce.backward_s * 1e3) + " ms (spread " +
           fmt("%.0f", 100 * e.backward_spread) + "%), optimizer " + fmt("%.3f", ce.optimizer_s * 1e3) + " ms\n";
  }
  const std::string batches = c.data == "fashion-mnist"
                                  ? "Fashion-MNIST batches (each rank's shuffled shard, as gcu train --data fashion-mnist)"
                                  : "synthetic batches (the trainer's: fixed input, fresh labels every step)";
  notes.push_back("compute: " + batches + ", SGD momentum 0.9, all ranks computing at once; tensors listed in "
                  "the observed ready order; " +
                  (ready_times ? std::string("ready_s from tensor gradient hooks (host clock)")
                               : std::string("ready_s left out (backward spread by parameter count; the hooks' "
                                             "host-clock times are in the state, --ready-times measured)")));
}

// One sweep's nccl-tests table and fit summary.
std::string sweep_report(const CollectiveSweep& s, int world, const std::string& stat) {
  std::string rep = format_table(s.kind, world, s.rows, stat);
  rep += "# fit: " + std::to_string(s.fit.segments.size()) + " segment(s); relative error max " +
         fmt("%.1f", 100 * s.quality.max_rel) + "%, geomean " + fmt("%.1f", 100 * s.quality.geomean_rel) +
         "% (all sizes); max " + fmt("%.1f", 100 * s.quality_large.max_rel) + "%, geomean " +
         fmt("%.1f", 100 * s.quality_large.geomean_rel) + "% (>= 1 MiB, " + std::to_string(s.quality_large.n) +
         " sizes)\n";
  for (const auto& seg : s.fit.segments)
    rep += "#   [" + fmt("%.0f", seg.min_x) + ", " + fmt("%.0f", seg.max_x) + ") B/rank: T = " +
           fmt("%.2f", seg.fit.intercept * 1e6) + " us + n / " +
           fmt("%.3f", seg.fit.slope > 0 ? 1e-9 / seg.fit.slope : 0.0) + " GB/s\n";
  if (!s.curve.slopes.empty()) {
    rep += "# curve (the profile's: one latency, per-byte times integrated over the ranges): T = " +
           fmt("%.2f", s.curve.intercept * 1e6) + " us +";
    for (size_t k = 0; k < s.curve.slopes.size(); ++k)
      rep += std::string(k ? "," : "") + " n/" + fmt("%.3f", s.curve.slopes[k] > 0 ? 1e-9 / s.curve.slopes[k] : 0.0) +
             " GB/s from " + fmt("%.0f", s.curve.edges[k]) + " B";
    rep += "; relative error max " + fmt("%.1f", 100 * s.curve_quality.max_rel) + "%, geomean " +
           fmt("%.1f", 100 * s.curve_quality.geomean_rel) + "% (all sizes); max " +
           fmt("%.1f", 100 * s.curve_quality_large.max_rel) + "% (>= 1 MiB)\n";
  }
  if (!s.note.empty()) rep += "# note: " + s.note + "\n";
  return rep;
}

// Nodes and GPUs from the meta; the link level from the collective sweeps (or a placeholder).
void add_cluster(const CalibrationState& st, model::Profile& p, std::string& rep, Notes& notes) {
  const int world = st.meta.world;
  const int local = st.meta.local_world;
  p.cluster.nodes = std::max(1, world / std::max(1, local));
  p.cluster.gpus_per_node = std::max(1, world / p.cluster.nodes);
  p.cluster.algorithms = {"ring"};
  notes.push_back("cluster: algorithms = [ring]: the per-collective fits are converted with the ring formulas, "
                  "so the model reproduces the measured lines");
  if (st.meta.backend == "gloo") {  // the trainer's communicator widens these (trainer/runtime/gloo_wire.h)
    std::string widened;
    for (auto t : compress::kWireTypes) {
      const int64_t b = trainer::gloo_allreduce_element_bytes(t, compress::ReduceOp::Sum);
      if (b == compress::wire_type_bytes(t)) continue;
      p.cluster.allreduce_element_bytes[compress::wire_type_name(t)] = static_cast<int>(b);
      widened += std::string(widened.empty() ? "" : ", ") + compress::wire_type_name(t) + " -> " +
                 std::to_string(b) + " bytes";
    }
    if (!widened.empty())
      notes.push_back("cluster: Gloo all-reduces are widened (" + widened +
                      " per element): such calls are costed by the bytes the link carries");
  }
  bool have_link = false;
  if (st.collectives) {
    const std::string& stat = st.meta.fit_statistic;
    auto sweeps = fitted_sweeps(*st.collectives, stat);
    rep += "\ncollectives (" + std::to_string(world) + " ranks; fits on the " + stat + " of each size; " +
           (st.collectives->free_running ? "free-running calls, ~" + gap_text(st.collectives->idle_gap_s, true)
            : st.collectives->idle_gap_s > 0 ? gap_text(st.collectives->idle_gap_s, st.collectives->busy_gap)
                                             : std::string("calls back-to-back")) +
           "):\n";
    if (st.collectives->idle_gap_s == 0)
      notes.push_back("collectives: timed back-to-back; a training step's calls follow idle time and can cost "
                      "more on a VM (calibrate --collective-gap-ms)");
    if (stat != "mean")
      notes.push_back("collectives: fitted on the " + stat + " of the timed calls of each size, not the mean "
                      "(the expected cost of a call, its latency tail included)");
    for (const auto& s : sweeps) {
      if (!s.supported) {
        rep += "# " + std::string(compress::collective_name(s.kind)) + ": not measured: " + s.note + "\n";
        notes.push_back(std::string(compress::collective_name(s.kind)) + " not measured: " + s.note);
        continue;
      }
      rep += sweep_report(s, world, stat);
    }
    try {
      std::vector<std::string> fit_notes;
      model::LinkLevel level = link_level_from_sweeps(sweeps, &fit_notes);
      notes.insert(notes.end(), fit_notes.begin(), fit_notes.end());
      (p.cluster.nodes > 1 ? p.cluster.inter : p.cluster.intra) = level;
      (p.cluster.nodes > 1 ? p.cluster.intra : p.cluster.inter) = level;
      have_link = true;
      notes.push_back(std::string("cluster: one level measured (") + (p.cluster.nodes > 1 ? "inter" : "intra") +
                      "); the other level is a copy of it");
    } catch (const FitError& e) {
      notes.push_back(std::string("collectives: ") + e.what());
    }
  }
  if (!have_link) {
    p.cluster.intra = {10.0, 50e-6, {}};
    p.cluster.inter = p.cluster.intra;
    notes.push_back("cluster: NO collective measured (one rank or skipped): placeholder link of 10 Gbps and 50 us");
  }
}

}  // namespace

std::optional<model::BesideStep> beside_step(const GammaState& s, const model::Profile& p) {
  const auto ok = [](double x) { return std::isfinite(x) && x > 0; };
  if (!ok(s.comm_s) || !ok(s.alone_s) || !ok(s.overlapped_s)) return std::nullopt;
  model::BesideStep step;
  step.backward_alone_s = s.alone_s;
  step.backward_beside_s = s.overlapped_s;
  step.comm_beside_s = s.comm_s;
  step.bucket_bytes = s.bucket_bytes;
  if (step.bucket_bytes.empty())
    for (const auto& b : model::plan_buckets(p.model.tensors, model::BucketOptions::from(p.ddp)))
      step.bucket_bytes.push_back(double(b.bytes));
  if (step.bucket_bytes.empty()) return std::nullopt;
  return step;
}

std::optional<model::InterferenceFitResult> gamma_step_fit(const GammaState& s, const model::Profile& p) {
  const std::optional<model::BesideStep> step = beside_step(s, p);
  if (!step || p.cluster.world() < 2) return std::nullopt;
  model::BesideCosting costing;
  costing.nodes = p.cluster.world();
  costing.gpus_per_node = 1;
  return model::fit_interference(p, *step, costing);
}

namespace {

// The interference fit (model/interference.h) on the gamma step: the backward's rate while
// a collective runs and the collectives' CPU side beside it, jointly, through the Predictor;
// what the model then gives against the measured step is kept in the profile.
void add_interference(const GammaState& s, model::Profile& p, std::string& rep, Notes& notes) {
  const std::optional<model::InterferenceFitResult> fit = gamma_step_fit(s, p);
  const double stretch = s.alone_s > 0 && std::isfinite(s.overlapped_s) ? s.overlapped_s / s.alone_s : 1;
  if (!fit) {
    p.cluster.gamma = std::max(1.0, stretch);
    notes.push_back("gamma = the whole-backward stretch (the state does not give how long the all-reduces ran); "
                    "collective_by_backward not measured: 1 assumed");
    return;
  }
  const model::InterferenceFitResult& f = *fit;
  p.cluster.gamma = f.gamma;
  p.cluster.comm_contention = f.comm_contention;
  model::Cluster::InterferenceFit kept;
  kept.step = "gamma";
  kept.backward_alone_s = s.alone_s;
  kept.backward_beside_s = s.overlapped_s;
  kept.comm_beside_s = s.comm_s;
  kept.backward_beside_model_s = f.model.backward_end_s;
  kept.comm_beside_model_s = f.model.comm_end_s;
  kept.gamma_at_bound = f.gamma_at_bound;
  kept.comm_contention_at_bound = f.comm_contention_at_bound;
  p.cluster.interference_fit = kept;
  rep += "interference (fitted through the model on the gamma step): backward x" + fmt("%.3f", f.gamma) +
         " while a collective runs, collectives' CPU side x" + fmt("%.3f", f.comm_contention) +
         " beside the backward; the model's backward ends at " + fmt("%.1f", f.model.backward_end_s * 1e3) + " ms (" +
         fmt("%.1f", s.overlapped_s * 1e3) + " measured, " + fmt("%+.1f", 100 * f.backward_residual()) +
         "%), its all-reduces at " + fmt("%.1f", f.model.comm_end_s * 1e3) + " ms (" + fmt("%.1f", s.comm_s * 1e3) +
         " measured, " + fmt("%+.1f", 100 * f.comm_residual()) + "%" +
         (s.comm_alone_s > 0 ? "; " + fmt("%.1f", s.comm_alone_s * 1e3) + " ms measured alone" : std::string()) + ")\n";
  notes.push_back("interference: backward_by_collective = " + fmt("%.3f", f.gamma) + ", collective_by_backward = " +
                  fmt("%.3f", f.comm_contention) + ", fitted jointly through the event model on the gamma step (" +
                  std::to_string(f.measured.bucket_bytes.size()) + " all-reduces from the backward's start" +
                  (s.bucket_bytes.empty() ? ", bucket sizes re-planned: the state does not keep them" : "") +
                  "); residuals: backward's end " + fmt("%+.1f", 100 * f.backward_residual()) + "%, all-reduces' end " +
                  fmt("%+.1f", 100 * f.comm_residual()) + "%");
  if (f.gamma_at_bound)
    notes.push_back("interference: backward_by_collective ran to its end (" + fmt("%.0f", model::kGammaMax) +
                    "): the backward was delayed more than any rate while the collectives ran explains (residual " +
                    fmt("%+.1f", 100 * f.backward_residual()) + "%)");
  if (f.comm_contention_at_bound)
    notes.push_back("interference: collective_by_backward ran to its end (" + fmt("%.0f", model::kCommContentionMax) +
                    "): the all-reduces took longer beside the backward than any contended CPU side explains; the "
                    "rest (x" + fmt("%.2f", f.calls_stretch) + " of their link time) taken as the wire's for "
                    "backward_by_collective (residual " + fmt("%+.1f", 100 * f.comm_residual()) + "%)");
  if (f.comm_contention <= 1 && f.comm_residual() > 0.01)
    notes.push_back("interference: the all-reduces ran faster beside the backward than the collective fits cost them "
                    "alone (residual " + fmt("%+.1f", 100 * f.comm_residual()) + "% at collective_by_backward = 1)");
}

void add_gamma_and_contention(const CalibrationState& st, model::Profile& p, std::string& rep, Notes& notes) {
  if (st.gamma) {
    const GammaState& s = *st.gamma;
    const double g = s.gamma;
    p.cluster.gamma_stretch = std::max(1.0, g);
    rep += "\ngamma: whole-backward stretch " + fmt("%.3f", g) + " (backward " + fmt("%.3f", s.alone_s * 1e3) +
           " ms alone, " + fmt("%.3f", s.overlapped_s * 1e3) + " ms with all-reduces" +
           (s.comm_s > 0 ? " running its first " + fmt("%.3f", s.comm_s * 1e3) + " ms" : std::string()) + ")\n";
    notes.push_back("gamma_stretch = " + fmt("%.3f", p.cluster.gamma_stretch) +
                    ": the measured whole-backward stretch, the closed form's gamma");
    if (g < 1) notes.push_back("gamma stretch measured " + fmt("%.3f", g) + " < 1 (noise): stored as 1");
    add_interference(s, p, rep, notes);
  } else {
    notes.push_back("gamma not measured: 1.0 assumed");
  }
  if (st.contention) {
    const ContentionState& k = *st.contention;
    p.cluster.overlap_contention = std::max(1.0, k.factor);
    if (k.factor < 1)
      notes.push_back("overlap_contention measured " + fmt("%.3f", k.factor) +
                      " < 1 (backward and codec ran faster together than apart: noise): stored as 1");
    std::string ranks;
    if (!k.rank_backward_slowdown.empty()) {
      const auto [b_lo, b_hi] = std::minmax_element(k.rank_backward_slowdown.begin(), k.rank_backward_slowdown.end());
      const auto [c_lo, c_hi] = std::minmax_element(k.rank_codec_slowdown.begin(), k.rank_codec_slowdown.end());
      ranks = "; medians of " + std::to_string(k.rank_backward_slowdown.size()) + " ranks, theirs backward x" +
              fmt("%.2f", *b_lo) + "-" + fmt("%.2f", *b_hi) + ", codec x" + fmt("%.2f", *c_lo) + "-" +
              fmt("%.2f", *c_hi);
    }
    rep += "overlap contention (" + k.scheme + "): " + fmt("%.3f", k.factor) + " (backward x" +
           fmt("%.3f", k.backward_slowdown) + ", codec x" + fmt("%.3f", k.codec_slowdown) + ranks + ")\n";
    notes.push_back("overlap_contention = geometric mean of the backward and the codec slowdowns when " + k.scheme +
                    " runs on a thread beside backward" +
                    (k.rank_backward_slowdown.empty()
                         ? std::string(" (rank 0's, the codec alone timed before the loop: a state from before "
                                       "the interleaved contention step)")
                         : std::string(" (each rank's paired per-iteration ratios, medians over the ranks)")));
  } else {
    notes.push_back("overlap contention not measured: 1.0 assumed");
  }
}

void add_codecs(const BySpec<CodecState>& codecs, const std::optional<BySpec<CodecGradientState>>& on_gradients,
                model::Profile& p, std::string& rep, Notes& notes) {
  rep += "\ncompressors (encode/decode fits; per bucket):\n";
  int scaled = 0;
  for (const auto& [spec, c] : codecs) {
    model::CodecFit f = c.fit;
    std::string on_model;
    if (on_gradients)
      for (const auto& [gspec, g] : *on_gradients)
        if (gspec == spec) {
          f = scaled_fit(c.fit, c.wire_extra_per_element_s, g);
          on_model = "    on the model's gradients: " + describe(g) + "\n";
          scaled += g.encode_factor != 1 || g.decode_factor != 1;
        }
    p.compressors[spec] = f;
    rep += "  " + spec + ": encode " + fmt("%.1f", f.encode.fixed_s * 1e6) + " us + " +
           fmt("%.3f", f.encode.per_element_s * 1e9) + " ns/elem (fit err " + fmt("%.0f", 100 * c.encode_geomean_rel) +
           "%), decode " + fmt("%.1f", f.decode.fixed_s * 1e6) + " us + " +
           fmt("%.3f", f.decode.per_element_s * 1e9) + " ns/elem + " +
           fmt("%.4f", f.decode.per_rank_element_s * 1e9) + " ns/elem/rank" +
           (f.encode.per_tensor_s > 0 || f.decode.per_tensor_s > 0
                ? "; per further tensor: encode " + fmt("%.1f", f.encode.per_tensor_s * 1e6) + " us, decode " +
                      fmt("%.1f", f.decode.per_tensor_s * 1e6) + " us"
                : std::string()) +
           "\n" + on_model;
  }
  notes.push_back("compressors: step() timed on a loopback communicator playing p ranks; buckets viewed as "
                  "[n/1024, 1024] matrices, and the largest as 32 of them for the per-tensor term; encode includes "
                  "compute between collectives");
  if (on_gradients)
    notes.push_back("compressors: " + std::to_string(scaled) +
                    " fit(s) scaled by their cost on the model's own gradient buckets (codec-gradients step)");
  else
    notes.push_back("compressors: not timed on the model's gradients (codec-gradients step not run): N(0,1) "
                    "buckets only");
}

void add_errors(const BySpec<ErrorState>& errors, model::Convergence& cv, std::string& rep) {
  rep += "\ncompression error on real gradients (E||C(x)-x||^2/||x||^2):\n";
  for (const auto& [spec, e] : errors) {
    auto& f = cv.schemes[spec];
    f.relative_error = e.relative_error;
    f.relative_error_ef = e.relative_error_ef;
    rep += "  " + spec + ": " + fmt("%.4f", e.relative_error) + " without EF, " + fmt("%.4f", e.relative_error_ef) +
           " with EF\n";
  }
}

std::string validation_note(const ValidationState& v) {
  std::string n = "TTA constants validated on held-out schemes (leave one out per class): ";
  if (v.median_abs_rel_error)
    n += std::to_string(v.validated) + " scheme(s), median |error| of the iterations multiplier " +
         fmt("%.1f", 100 * *v.median_abs_rel_error) + "%, max " + fmt("%.1f", 100 * v.max_abs_rel_error.value_or(0.0)) +
         "%";
  else
    n += "none validated (a class needs two schemes that reach the target)";
  if (v.never_validated > 0)
    n += "; never-reached schemes predicted as never: " + std::to_string(v.never_agreeing) + " of " +
         std::to_string(v.never_validated);
  return n;
}

void add_convergence(const ConvergenceState& c, model::Convergence& cv, std::string& rep, Notes& notes) {
  cv.source = "calibrated";
  cv.target = c.target;
  cv.baseline_iterations = c.baseline_iterations;
  cv.baseline_global_batch = c.global_batch;  // p workers x batch of the convergence runs
  for (const auto& [name, v] : c.constants) {
    if (name == tta_constant_name(TtaClass::ErrorFeedback)) cv.constants.ef_scale = v;
    else if (name == tta_constant_name(TtaClass::Unbiased)) cv.constants.variance_scale = v;
    else if (name == tta_constant_name(TtaClass::Biased)) cv.constants.biased_scale = v;
    else throw FitError("convergence.constants: unknown TTA constant '" + name + "'");
  }
  for (const auto& [spec, s] : c.schemes) {
    auto& f = cv.schemes[spec];
    if (s.iterations) f.iterations = *s.iterations;
    f.reaches_target = s.reaches;
  }
  if (!c.report.empty()) rep += "\n" + c.report;
  if (!c.method.empty()) notes.push_back("convergence: " + c.method);
  notes.push_back(validation_note(c.validation));
}

}  // namespace

BuiltProfile build_profile(const CalibrationState& st, const BuildInfo& info) {
  BuiltProfile out;
  model::Profile& p = out.profile;
  p.provenance.source = "gcu calibrate";
  p.provenance.device = info.device;
  p.provenance.date = info.date;
  p.provenance.command = info.command;
  p.provenance.libraries = info.libraries;
  auto& notes = p.provenance.assumptions;
  for (const auto& s : st.skipped) notes.push_back("skipped: " + s);
  if (!st.compute) throw FitError("no compute measurements: a profile needs the model's compute step");
  add_compute(*st.compute, info.measured_ready_times, p, out.report, notes);
  add_cluster(st, p, out.report, notes);
  add_gamma_and_contention(st, p, out.report, notes);
  if (st.codecs) add_codecs(*st.codecs, st.codec_gradients, p, out.report, notes);
  if (st.errors) add_errors(*st.errors, p.convergence, out.report);
  if (st.convergence) add_convergence(*st.convergence, p.convergence, out.report, notes);
  else notes.push_back("convergence constants not fitted: the TTA model's defaults (plain theory)");
  return out;
}

}  // namespace gcu::calibrate
