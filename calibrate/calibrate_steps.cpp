// The steps of `gcu calibrate` (calibrate_run.h), one function each, in the order of
// calibration_steps(): each measures, stores its typed result in the state, and saves.
#include "calibrate/allgather_floor.h"
#include "calibrate/calibrate_run.h"
#include "calibrate/codec_gradients.h"
#include "calibrate/codecs.h"
#include "calibrate/collectives.h"
#include "convergence/calibrate_runs.h"
#include "calibrate/wire_types.h"

#include "compressors/registry.h"
#include "model/buckets.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace gcu::calibrate {

namespace {

ComputeState compute_state(const ComputeResult& r, const std::string& data) {
  ComputeState s{r.model_name, r.parameters, r.tensors, {}, data};
  for (const auto& t : r.times)
    s.entries.push_back({t.batch_size, profile_value(t.forward_s), profile_value(t.backward_s),
                         profile_value(t.optimizer_s),
                         t.forward_s.rel_spread(), t.backward_s.rel_spread(), t.optimizer_s.rel_spread(),
                         t.backward_s.p10, t.backward_s.p90, static_cast<int64_t>(t.backward_s.n),
                         static_cast<int64_t>(t.backward_s.discarded), t.ready_s});
  return s;
}

}  // namespace

void step_compute(CalibrationRun& r) {
  if (!r.wanted("compute", kComputeMinLeftS)) return;
  r.state.compute = compute_state(measure_compute(*r.group, r.compute, r.progress), r.compute.data);
  r.save();
}

void step_gamma(CalibrationRun& r) {
  if (!r.wanted("gamma", kGammaMinLeftS)) return;
  const auto g = measure_gamma(*r.group, r.compute, r.main_batch, r.progress);
  r.state.gamma = GammaState{g.gamma, g.alone_s.median, g.overlapped_s.median, g.alone_s.rel_spread(),
                             g.overlapped_s.rel_spread(), g.buckets, g.bucket_bytes, g.comm_s.median,
                             g.comm_alone_s.median, g.each_bucket_bytes};
  r.save();
}

// The idle before each timed collective: as asked, or forward + backward of the largest
// batch (what a training step leaves its communication threads idle), capped.
double collective_gap_s(const CalibrationRun& r) {
  if (r.opt.collective_gap_ms >= 0) return r.opt.collective_gap_ms / 1e3;
  if (r.state.compute)
    for (const auto& e : r.state.compute->entries)
      if (e.batch_size == r.main_batch && std::isfinite(e.forward_s + e.backward_s))
        return std::min(kMaxAutoGapMs / 1e3, e.forward_s + e.backward_s);
  return kDefaultGapMs / 1e3;
}

void step_collectives(CalibrationRun& r) {
  if (!r.wanted("collectives", kCollectivesMinLeftS)) return;
  SweepOptions so;
  so.idle_gap_s = r.group->allreduce_max(collective_gap_s(r));  // the same on every rank
  so.free_running = r.opt.collective_free_running;
  so.busy_gap = r.opt.collective_gap_busy || so.free_running;
  r.say("calibrate: collectives: " +
        (so.free_running ? "free-running, ~" + std::to_string(so.idle_gap_s * 1e3) + " ms busy (x0.5-1.5 per rank)"
                         : std::to_string(so.idle_gap_s * 1e3) + " ms " + (so.busy_gap ? "busy" : "idle")) +
        " before each call");
  so.min_bytes = r.opt.min_bytes;
  so.max_bytes = r.opt.max_bytes;
  so.kinds = parse_collective_kinds(r.opt.collectives);
  if (r.opt.budget_s > 0) {
    // Pace the sweep to its share: at least 3 s; per size a 200th of it (at most 0.4 s),
    // per large size a 50th (at most 2 s).
    so.budget_s = std::max(3.0, r.left() * kCollectivesBudgetShare);
    so.target_s_per_size = std::min(0.4, so.budget_s / 200);
    so.target_s_per_large_size = std::min(2.0, so.budget_s / 50);
  }
  // --collective-calls-scale: that many times the timed calls per size and the share; the
  // extra time is added to the budget, so the later steps keep theirs.
  const double f = r.opt.collective_calls_scale;
  if (f != 1) {
    if (r.opt.budget_s > 0 && f > 1) r.extra_budget_s += so.budget_s * (f - 1);
    so.budget_s *= f;
    so.target_s_per_size *= f;
    so.target_s_per_large_size *= f;
    // The minimum too (never below 2): on a busy machine the warm-up plans most sizes at
    // the minimum, and a scale that left it alone bought few more calls (CI:
    // 197 -> 273 calls at F = 4).
    so.min_iters = std::max(2, static_cast<int>(std::lround(so.min_iters * f)));
    so.max_iters = std::max(so.min_iters, static_cast<int>(std::lround(so.max_iters * f)));
    so.min_iters_large = std::max(so.min_iters, static_cast<int>(std::lround(so.min_iters_large * f)));
  }
  r.state.collectives =
      CollectivesState{r.group->world_size(), sweep_collectives(*r.group, so, r.progress), so.idle_gap_s, so.busy_gap,
                       so.free_running};
  r.save();
}

namespace {
// The bucket sizes the all-gather floor is timed at: the model's own DDP buckets (where
// the floor is used; its calls' time is noisy, so the rounds go there), else the
// low-precision all-reduce's grid. Rounds: ~120 bucket calls in all, 15-60 per size.
std::vector<int64_t> allgather_floor_sizes(const CalibrationRun& r) {
  std::vector<int64_t> n;
  if (r.state.compute && !r.state.compute->tensors.empty())
    for (const auto& b : model::plan_buckets(r.state.compute->tensors)) n.push_back(b.numel);
  if (n.empty()) return wire_sizes();
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}
// x --collective-calls-scale.
int allgather_floor_reps(const std::vector<int64_t>& sizes, double scale) {
  return static_cast<int>(std::lround(std::clamp(120 / std::max<int>(1, int(sizes.size())), 15, 60) * scale));
}
}  // namespace

namespace {
// Where the trainer runs the codecs: on GPUs (--backend nccl) the CUDA schemes on device
// buffers, which the codec steps then time.
compress::Device codec_device(const CalibrationRun& r) {
  return r.group->backend() == "nccl" ? compress::Device::CUDA : compress::Device::CPU;
}
}  // namespace

void step_codecs(CalibrationRun& r) {
  if (!r.wanted("codecs", kCodecsMinLeftS)) return;
  CodecTimingOptions cto;
  if (!r.opt.codec_sizes.empty()) cto.sizes = r.opt.codec_sizes;
  cto.world = std::max(2, r.group->world_size());
  cto.device = codec_device(r);
  cto.warmup = 1;
  cto.iters = std::max(3, r.opt.iters / 2);
  const double share = r.opt.budget_s > 0 ? r.left() * kCodecsBudgetShare : kUnlimitedS;
  const double start = now_s();
  BySpec<CodecState> codecs;
  const double gap_s = r.group->allreduce_max(collective_gap_s(r));  // the same on every rank
  // The free-running all-gather floor: asked, or (auto) where ranks share cores (rank 0's
  // view decides for all).
  const bool oversubscribed = r.local_world * r.threads > r.cores;
  const bool allgather_floor = r.group->allreduce_max(
      r.lead() && (r.opt.allgather_floor == "on" || (r.opt.allgather_floor == "auto" && oversubscribed)) ? 1.0
                                                                                                        : 0.0) > 0;
  const std::vector<int64_t> floor_sizes = allgather_floor_sizes(r);
  const int floor_reps = allgather_floor_reps(floor_sizes, r.opt.collective_calls_scale);
  if (allgather_floor)
    r.say("calibrate: codecs: all-gather floors measured free-running (" + std::to_string(r.local_world) +
          " ranks x " + std::to_string(r.threads) + " threads on " + std::to_string(r.cores) + " cores" +
          (r.opt.allgather_floor == "on" ? ", --allgather-floor on" : "") + "; " +
          std::to_string(floor_sizes.size()) + " bucket size(s), " + std::to_string(floor_reps) +
          " rounds)");
  for (const auto& s : r.codec_schemes) {
    // Decided together: the low-precision all-reduce timing below is collective.
    if (r.group->allreduce_max(now_s() - start > share ? 1.0 : 0.0) > 0) {
      r.skip("codecs " + s, "time budget");
      continue;
    }
    try {
      auto m = measure_codec(s, cto);
      // The codec includes what the model cannot see in a low-precision all-reduce
      // (calibrate/wire_types.h).
      const WireExtra wx = measure_wire_extra(*r.group, s, wire_sizes());
      if (wx.applies) {
        m.fit.decode.per_element_s += wx.per_element_s;
        m.fit.allreduce_floor = wx.floor;
        r.say("calibrate: codec " + m.spec + ": " + wx.note +
              (wx.per_element_s > 0 ? " (the extra added to decode)" : "") +
              (wx.floor ? " (the floor: max(link, floor) per call)" : ""));
      }
      // The scheme's all-gathers as a training step enters them (allgather_floor.h).
      const AllGatherFloor af =
          allgather_floor ? measure_allgather_floor(*r.group, s, floor_sizes, gap_s, floor_reps) : AllGatherFloor{};
      if (af.floor) {
        m.fit.allgather_floor = af.floor;
        r.say("calibrate: codec " + m.spec + ": " + af.note + " (max(link, floor) per bucket)");
      }
      codecs.emplace_back(m.spec, CodecState{m.fit, m.gathers, m.encode_quality.geomean_rel,
                                             m.decode_quality.geomean_rel, wx.applies ? wx.per_element_s : 0.0});
      r.say("calibrate: codec " + m.spec + " timed");
    } catch (const std::exception& e) {
      r.skip("codecs " + s, e.what());
    }
  }
  r.group->barrier();
  r.state.codecs = codecs;
  r.save();
}

// The model's gradients (rank 0), collected once for the errors and codec-gradients steps.
const GradientSet& model_gradients(CalibrationRun& r) {
  if (!r.gradients)
    r.gradients = collect_gradients(r.compute, r.main_batch, r.opt.error_snapshots, kErrorSkipIterations, r.progress);
  return *r.gradients;
}

// Compression error on the model's real gradients (rank 0 measures, the others wait).
void step_errors(CalibrationRun& r) {
  if (!r.wanted("errors", kErrorsMinLeftS)) return;
  BySpec<ErrorState> errors;
  if (r.lead()) {
    const GradientSet& grads = model_gradients(r);
    for (const auto& s : r.error_schemes) {
      try {
        auto c = compress::make_compressor(s);
        const auto e = measure_error(s, grads);
        errors.emplace_back(c->spec(), ErrorState{e.relative_error, e.relative_error_ef, e.snapshots, e.buckets});
      } catch (const std::exception& e) {
        r.skip("errors " + s, e.what());
      }
    }
  }
  r.group->barrier();
  r.state.errors = errors;
  r.save();
}

// Each timed codec on the model's own gradient buckets (codec_gradients.h): the ratio to
// its sweep fit scales the fit in the profile. Every rank times at once, each on its own
// copy of the gradients, as the codecs sweep does and as training encodes (timing
// rank 0 alone, beside idle ranks, scaled a fit timed under every rank's load down to an
// unloaded machine's); rank 0's figures are kept.
void step_codec_gradients(CalibrationRun& r) {
  if (!r.wanted("codec-gradients", kCodecGradientsMinLeftS)) return;
  BySpec<CodecGradientState> out;
  // Rank 0's list of codecs, so that every rank meets the same barriers.
  std::string names;
  if (r.lead() && r.state.codecs)
    for (const auto& [spec, c] : *r.state.codecs) names += spec + "\n";
  names = r.group->broadcast_string(names);
  std::vector<std::string> specs;
  for (size_t a = 0, b; (b = names.find('\n', a)) != std::string::npos; a = b + 1) specs.push_back(names.substr(a, b - a));
  if (!specs.empty()) {
    const GradientSet& grads = model_gradients(r);
    const int world = std::max(2, r.group->world_size());
    for (const auto& spec : specs) {
      r.group->barrier();  // every rank starts the codec together
      CodecState c;  // this rank's fit (only rank 0's figures are kept)
      if (r.state.codecs)
        for (const auto& [s, x] : *r.state.codecs)
          if (s == spec) c = x;
      try {
        auto g = time_codec_on_gradients(spec, grads, c.fit, c.wire_extra_per_element_s, world, 2, {},
                                         codec_device(r));
        g.ranks_at_once = r.group->world_size();
        if (r.lead()) r.say("calibrate: codec " + spec + " on the model's gradients, " +
                            std::to_string(g.ranks_at_once) + " rank(s) at once: " + describe(g));
        out.emplace_back(spec, g);
      } catch (const std::exception& e) {
        r.skip("codec-gradients " + spec, e.what());
      }
    }
  }
  if (!r.state.codecs) r.say("calibrate: codec-gradients: no codec fits to compare (codecs step not run)");
  r.group->barrier();
  r.state.codec_gradients = out;
  r.save();
}

void step_contention(CalibrationRun& r) {
  // The step runs the CPU codec beside the backward: on a GPU the trainer runs the CUDA
  // codec on the device, so the figure would describe nothing it does (the H100's first
  // run read 0.99-1.05). Left out there: overlap_contention stays 1 (not measured on a GPU;
  // docs/history/validation-log.md).
  if (codec_device(r) == compress::Device::CUDA) {
    if (!r.done.count("contention"))
      r.skip("contention", "not measured with --backend nccl (it times the CPU codec beside the backward; "
                           "a GPU trainer runs the CUDA codec): overlap_contention stays 1");
    return;
  }
  if (!r.wanted("contention", kContentionMinLeftS)) return;
  const auto c = measure_contention(*r.group, r.compute, r.main_batch, r.contention_scheme, r.progress);
  r.state.contention = ContentionState{c.scheme,           c.factor,
                                       c.backward_slowdown, c.codec_slowdown,
                                       c.codec_alone_s,     c.codec_overlapped_s,
                                       c.rank_backward_slowdown, c.rank_codec_slowdown};
  r.save();
}

// Short paired training runs that fit the TTA constants (rank 0 runs them all).
void step_convergence(CalibrationRun& r) {
  if (r.convergence_off) {
    if (!r.done.count("convergence")) r.skip("convergence", "--convergence-schemes -");
    return;
  }
  if (!r.wanted("convergence", kConvergenceMinLeftS)) return;
  const double left_s = r.left();  // collective: every rank calls it
  std::optional<ConvergenceState> result;
  if (r.lead()) {
    ConvergenceOptions cvo;
    cvo.compute = r.compute;
    cvo.compute.lr = kConvergenceLr;
    cvo.workers = std::max(2, r.group->world_size());
    cvo.iterations = r.opt.convergence_iterations;
    cvo.budget_s = r.opt.budget_s > 0 ? left_s * kConvergenceBudgetShare : 0;
    cvo.schemes = r.convergence_schemes;
    try {
      const Json errors = r.state.errors ? to_json(*r.state.errors) : Json::object();
      result = convergence_from_json(run_convergence(cvo, errors, r.progress), "the convergence step's result");
    } catch (const std::exception& e) {
      r.skip("convergence", e.what());
    }
  }
  r.group->barrier();
  if (result) r.state.convergence = result;
  r.save();
}

}  // namespace gcu::calibrate
