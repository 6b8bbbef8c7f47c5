// Iteration-time model (iteration.h): closed form, after-backward form and the event
// model of backward overlapped with bucketed communication. Derivations: docs/model.md §2-3.
#include "model/iteration.h"

#include "compressors/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gcu::model {

const char* model_name(IterationModel m) {
  return m == IterationModel::ClosedForm ? "closed-form" : "event";
}
const char* mode_name(CompressionMode m) {
  switch (m) {
    case CompressionMode::Auto: return "auto";
    case CompressionMode::AfterBackward: return "after-backward";
    case CompressionMode::Overlapped: return "overlapped";
  }
  return "?";
}
const char* lane_name(Lane l) {
  switch (l) {
    case Lane::Compute: return "compute";
    case Lane::Comm: return "comm";
    case Lane::Encode: return "encode";
    case Lane::Decode: return "decode";
  }
  return "?";
}
IterationModel parse_model(const std::string& s) {
  if (s == "closed-form" || s == "closed") return IterationModel::ClosedForm;
  if (s == "event") return IterationModel::Event;
  throw ModelError("unknown iteration model '" + s + "' (known: closed-form, event)");
}
CompressionMode parse_mode(const std::string& s) {
  if (s == "auto") return CompressionMode::Auto;
  if (s == "after-backward" || s == "after") return CompressionMode::AfterBackward;
  if (s == "overlapped" || s == "overlap") return CompressionMode::Overlapped;
  throw ModelError("unknown compression mode '" + s + "' (known: auto, after-backward, overlapped)");
}

// Published closed form (k buckets: k-1 of size b, the last of size b'): the stream is busy
// with the first k-1 buckets while backward (stretched by gamma) runs; the last bucket is
// ready only when backward ends, so its communication is never hidden.
Seconds closed_form_s(Seconds backward_s, double gamma, int k, Seconds comm_bucket_s,
                      Seconds comm_last_s) {
  if (k <= 0) return backward_s;
  return std::max(gamma * backward_s, (k - 1) * comm_bucket_s) + comm_last_s;
}

Seconds after_backward_s(Seconds backward_s, Seconds chains_s) { return backward_s + chains_s; }

// Fluid version of the closed form's assumption (the stream is busy throughout backward,
// its work evenly mixed): per unit of stream work, a share X/(X+C) is encode/decode that
// takes cont x its work in wall time and advances backward by its work, and a share
// C/(X+C) is collectives that take their time and advance backward by 1/gamma of it. So
// backward is stretched by g = (cont X + C)/(X + C/gamma) over its whole length (gamma
// when X = 0), and the fraction f of the stream's work done while backward runs has its
// encode/decode stretched by cont. When the stream has less work than backward
// (covered < W), only the part of backward it runs beside is slowed: the stream's wall time
// cont X + C, then the rest of backward, W - covered, at full speed (the same value as the
// busy-stream form at covered = W, and never faster with less bandwidth). docs/model.md §3.1.
Seconds closed_form_contention_s(Seconds backward_s, double gamma, double contention, Seconds comm_first_s,
                                 Seconds codec_first_s, Seconds last_s) {
  const Seconds X = codec_first_s, C = comm_first_s, W = backward_s;
  if (!(X > 0)) return std::max(gamma * W, C) + last_s;
  const Seconds covered = X + C / gamma;  // backward work the stream overlaps when it runs alongside
  if (covered < W) return contention * X + C + (W - covered) + last_s;
  const double g = (contention * X + C) / covered;
  const double f = std::min(1.0, W / covered);
  return std::max(g * W, C + X + (contention - 1) * X * f) + last_s;
}

std::vector<double> tensor_ready_fractions(const Model& m, const ComputeEntry& c) {
  const size_t n = m.tensors.size();
  std::vector<double> f(n, 1.0);
  if (!c.ready_s.empty()) {
    if (c.ready_s.size() != n)
      throw ModelError("model.compute[batch " + std::to_string(c.batch_size) + "].ready_s has " +
                       std::to_string(c.ready_s.size()) + " entries, model.tensors has " +
                       std::to_string(n));
    const double T = c.backward_s;
    for (size_t i = 0; i < n; ++i) f[i] = T > 0 ? std::clamp(c.ready_s[i] / T, 0.0, 1.0) : 1.0;
    return f;
  }
  // No measured ready times: backward time spread over tensors in proportion to their
  // parameter counts, in backward order; tensor i is ready once its share is done.
  double total = 0;
  for (const auto& t : m.tensors) total += double(t.numel());
  double cum = 0;
  for (size_t i = 0; i < n; ++i) {
    cum += double(m.tensors[i].numel());
    f[i] = total > 0 ? cum / total : 1.0;
  }
  return f;
}

// ---- Predictor --------------------------------------------------------------------------
struct Predictor::Phase {
  Seconds backward_s = 0, backward_comm_s = 0, comm_s = 0, encode_s = 0, decode_s = 0;
  Seconds backward_end_s = 0, stream_end_s = 0;
};

namespace {
Cluster resolved_cluster(const Profile& p, const Setup& s) {
  Cluster c = p.cluster;
  if (s.nodes < 0 || s.gpus_per_node < 0)
    throw ModelError("nodes = " + std::to_string(s.nodes) + ", gpus_per_node = " +
                     std::to_string(s.gpus_per_node) + ": must be >= 1 (0 = the profile's)");
  if (s.nodes > 0) c.nodes = s.nodes;
  if (s.gpus_per_node > 0) c.gpus_per_node = s.gpus_per_node;
  return c;
}
// The cluster whose costs are a collective's CPU side (Cluster::comm_contention_reference).
Cluster reference_cluster(const Cluster& c) {
  Cluster r = c;
  if (c.comm_contention_reference) r.inter = *c.comm_contention_reference;
  return r;
}
int resolved_batch(const Profile& p, const Setup& s) {
  if (s.batch_size > 0) return s.batch_size;
  if (p.model.compute.empty())
    throw ModelError("profile: model.compute is empty: no forward/backward times");
  return p.model.compute.front().batch_size;
}
}  // namespace

Predictor::Predictor(const Profile& profile, const Setup& setup)
    : setup_(setup),
      cluster_(resolved_cluster(profile, setup)),
      cost_(cluster_),
      ref_cost_(reference_cluster(cluster_)),
      compute_(compute_for_batch(profile.model, resolved_batch(profile, setup))) {
  if (profile.model.tensors.empty())
    throw ModelError("profile: model.tensors is empty: the model has no gradients to communicate");
  if (!(cluster_.gamma > 0))
    throw ModelError("cluster.gamma = " + std::to_string(cluster_.gamma) + " must be > 0");
  if (!(cluster_.overlap_contention > 0))
    throw ModelError("cluster.overlap_contention = " + std::to_string(cluster_.overlap_contention) +
                     " must be > 0");
  if (!(cluster_.comm_contention >= 1) || !std::isfinite(cluster_.comm_contention))
    throw ModelError("cluster.comm_contention = " + std::to_string(cluster_.comm_contention) + " must be >= 1");
  buckets_ = plan_buckets(profile.model.tensors, BucketOptions::from(profile.ddp));
  plan_ = plan_scheme(setup.scheme, buckets_, cost_.world(), profile.compressors,
                      profile.cluster.allreduce_element_bytes);
  // Collective fits calibrated at one world size and used at another: the algorithm
  // formulas (collectives.h) carry their per-step alpha and per-byte beta across rank
  // counts (a 2-rank profile's fits predicted a 4-rank grid as its own did:
  // docs/history/validation-log.md, "A 2-rank profile predicting 4 ranks").
  const int fitted_world = profile.cluster.nodes * profile.cluster.gpus_per_node;
  if ((!profile.cluster.intra.collectives.empty() || !profile.cluster.inter.collectives.empty()) &&
      fitted_world > 0 && fitted_world != cost_.world())
    plan_.cost_assumptions.push_back("the collective fits were measured at " + std::to_string(fitted_world) +
                                     " ranks; the algorithm formulas extrapolate them to " +
                                     std::to_string(cost_.world()));
  if (cluster_.gamma_from_stretch && cluster_.gamma_stretch != 1 && setup.model == IterationModel::Event) {
    char b[240];
    std::snprintf(b, sizeof b,
                  "backward_by_collective %.3f: derived from gamma_stretch %.3g (the rate that stretches the "
                  "profile's own FP32 DDP backward by it; model/interference.h), not measured",
                  cluster_.gamma, cluster_.gamma_stretch);
    plan_.cost_assumptions.push_back(b);
  }
  mode_ = setup.mode;
  if (mode_ == CompressionMode::Auto) mode_ = CompressionMode::Overlapped;  // as gcu train runs every scheme
  const auto tf = tensor_ready_fractions(profile.model, compute_.compute);
  note_ = compute_.note;
  if (setup.model == IterationModel::Event && mode_ == CompressionMode::Overlapped)
    note_ += std::string(note_.empty() ? "" : "; ") +
             (compute_.compute.ready_s.empty() ? "ready times: backward spread by parameter count"
                                               : "ready times: measured ready_s");
  double run = 0;  // buckets are handed to the stream in order: keep ready times monotone
  for (const auto& b : buckets_) {
    double r = 0;
    for (int i : b.tensors) r = std::max(r, tf[size_t(i)]);
    run = std::max(run, r);
    bucket_ready_frac_.push_back(run);
  }
}

// One evaluation of the backward/communication phase under some Conditions: the cost of
// each segment of a bucket's chain, the tallies, the timeline, and the three ways of
// running the chains (after backward, closed form, event model).
struct Predictor::PhaseRun {
  PhaseRun(const Predictor& pred, const Conditions& c, std::vector<TimelineEvent>* timeline, Seconds start_s);

  Phase after_backward();
  Phase closed_form();
  Phase event();

 private:
  CollectiveCost call_cost(int ci) const;
  double net_rate_beside_backward(int ci) const;
  void emit(int b, int seg, Seconds start, Seconds dur) const;
  Seconds seg_work(int b, int seg) const;
  void tally(int b, int seg, Seconds work);
  bool is_net(int b, int seg) const { return seg >= 1 && seg <= plan.buckets[size_t(b)].n_calls; }
  void closed_form_timeline(Seconds comm_first, Seconds codec_first) const;

  const SchemePlan& plan;
  const ClusterCost& cost;
  const ClusterCost& ref_cost;
  const std::vector<double>& ready_frac;  // per bucket
  const Conditions& cond;
  std::vector<TimelineEvent>* tl;
  Seconds t0;
  double kf, gamma, stretch, cont, comm_cont;
  LinkOverride o;
  int B;
  Seconds W;  // backward, after speed-up
  Phase ph;
};

Predictor::PhaseRun::PhaseRun(const Predictor& pred, const Conditions& c, std::vector<TimelineEvent>* timeline,
                              Seconds start_s)
    : plan(pred.plan_), cost(pred.cost_), ref_cost(pred.ref_cost_), ready_frac(pred.bucket_ready_frac_), cond(c), tl(timeline), t0(start_s) {
  const double cf = 1.0 / cond.compute_speedup;
  kf = cf / cond.codec_speedup;
  gamma = cond.gamma > 0 ? cond.gamma : pred.cluster_.gamma;
  stretch = cond.gamma > 0 ? cond.gamma : pred.cluster_.gamma_stretch;  // the closed form's (published) gamma
  cont = cond.overlap_contention > 0 ? cond.overlap_contention : pred.cluster_.overlap_contention;
  comm_cont = cond.comm_contention > 0 ? cond.comm_contention : pred.cluster_.comm_contention;
  if (!(comm_cont >= 1) || !std::isfinite(comm_cont))
    throw ModelError("conditions: comm_contention = " + std::to_string(comm_cont) + " must be >= 1");
  if (cond.inter_bandwidth_gbps > 0) o.inter_beta_s_per_byte = beta_s_per_byte_from_gbps(cond.inter_bandwidth_gbps);
  if (cond.intra_bandwidth_gbps > 0) o.intra_beta_s_per_byte = beta_s_per_byte_from_gbps(cond.intra_bandwidth_gbps);
  B = int(plan.buckets.size());
  W = pred.compute_.compute.backward_s * cf;
  ph.backward_s = W;
}

CollectiveCost Predictor::PhaseRun::call_cost(int ci) const {
  const PlannedCall& c = plan.calls[size_t(ci)];
  CollectiveCost cc = cost.cost(c.kind, c.link_bytes * cond.wire_scale, o);
  // The call's floor (profile.h CollectiveFloor): work that adds to the link's time, and
  // never less than the call took on the calibration's own link.
  cc.time_s = std::max(cc.time_s + c.added_s, c.floor_s);
  return cc;
}

// The rate (<= 1) at which call ci advances while backward runs: its CPU side, the part
// of its cost above the same kind's empty-message cost, takes comm_cont times longer, and
// the call takes max(its time here, fixed + comm_cont x CPU side). The CPU side is taken
// on the reference link (the calibration's own; never more than the call's time here, for
// a what-if link faster than it), so on a link slower than the CPU side the wire hides
// the contention (profile.h Cluster::comm_contention).
double Predictor::PhaseRun::net_rate_beside_backward(int ci) const {
  if (comm_cont <= 1) return 1;
  const PlannedCall& c = plan.calls[size_t(ci)];
  const Seconds t = call_cost(ci).time_s;
  const Seconds fixed = ref_cost.cost(c.kind, 0).time_s;
  const Seconds ref = std::max(ref_cost.cost(c.kind, c.link_bytes * cond.wire_scale).time_s + c.added_s, c.floor_s);
  const Seconds contended = fixed + comm_cont * std::max(0.0, std::min(ref, t) - fixed);
  return t > 0 && contended > t ? t / contended : 1.0;
}

void Predictor::PhaseRun::emit(int b, int seg, Seconds start, Seconds dur) const {
  if (!tl) return;
  const PlannedBucket& pb = plan.buckets[size_t(b)];
  if (seg == 0 || seg == pb.n_calls + 1) {
    if (dur <= 0) return;
    tl->push_back({"bucket " + std::to_string(b) + (seg == 0 ? " encode" : " decode"),
                   seg == 0 ? Lane::Encode : Lane::Decode, t0 + start, dur});
  } else {
    const PlannedCall& c = plan.calls[size_t(pb.first_call + seg - 1)];
    const CollectiveCost cc = call_cost(pb.first_call + seg - 1);
    tl->push_back({"bucket " + std::to_string(b) + " " + compress::collective_name(c.kind) + " " +
                       c.label + " (" + cost_label(cc) + ")",
                   Lane::Comm, t0 + start, dur});
  }
}

// Duration (work) of segment `seg` of bucket b's chain: 0 = encode, 1..n = calls, n+1 = decode.
Seconds Predictor::PhaseRun::seg_work(int b, int seg) const {
  const PlannedBucket& pb = plan.buckets[size_t(b)];
  if (seg == 0) return pb.encode_s * kf;
  if (seg == pb.n_calls + 1) return pb.decode_s * kf;
  return call_cost(pb.first_call + seg - 1).time_s;
}

void Predictor::PhaseRun::tally(int b, int seg, Seconds work) {
  const PlannedBucket& pb = plan.buckets[size_t(b)];
  if (seg == 0) ph.encode_s += work;
  else if (seg == pb.n_calls + 1) ph.decode_s += work;
  else ph.comm_s += work;
}

// Backward alone, then each bucket's chain in order (nothing overlaps, no gamma).
Predictor::Phase Predictor::PhaseRun::after_backward() {
  if (tl && W > 0) tl->push_back({"backward", Lane::Compute, t0, W});
  Seconds t = W;
  for (int b = 0; b < B; ++b)
    for (int s = 0; s <= plan.buckets[size_t(b)].n_calls + 1; ++s) {
      const Seconds d = seg_work(b, s);
      tally(b, s, d);
      emit(b, s, t, d);
      t += d;
    }
  ph.backward_comm_s = after_backward_s(W, t - W);
  ph.backward_end_s = W;
  ph.stream_end_s = t > W ? t : 0;
  return ph;
}

// max(gamma*T_bwd, sum of the first k-1 chains) + last chain (docs/model.md §2.1; gamma is
// the published stretch, Cluster::gamma_stretch), with
// the first chains' encode/decode slowed by contention (§3.1; none without codec work).
Predictor::Phase Predictor::PhaseRun::closed_form() {
  Seconds comm_first = 0, codec_first = 0, last = 0;
  for (int b = 0; b < B; ++b) {
    const int n = plan.buckets[size_t(b)].n_calls;
    for (int s = 0; s <= n + 1; ++s) {
      const Seconds d = seg_work(b, s);
      tally(b, s, d);
      if (b + 1 == B) last += d;
      else (s == 0 || s == n + 1 ? codec_first : comm_first) += d;
    }
  }
  ph.backward_comm_s = closed_form_contention_s(W, stretch, cont, comm_first, codec_first, last);
  ph.backward_end_s = std::min(ph.backward_comm_s, stretch * W);
  ph.stream_end_s = comm_first + codec_first + last > 0 ? ph.backward_comm_s : 0;
  if (tl) closed_form_timeline(comm_first, codec_first);
  return ph;
}

// Backward stretched by g; the first chains' encode/decode by 1 + (cont-1) f.
void Predictor::PhaseRun::closed_form_timeline(Seconds comm_first, Seconds codec_first) const {
  const Seconds covered = codec_first + comm_first / stretch;
  const double g = codec_first > 0 ? (cont * codec_first + comm_first) / covered : stretch;
  const double stretch = codec_first > 0 ? 1 + (cont - 1) * std::min(1.0, W / covered) : 1.0;
  if (W > 0) tl->push_back({"backward (x " + std::string(codec_first > 0 ? "gamma, contention" : "gamma") + ")",
                            Lane::Compute, t0, g * W});
  Seconds t = 0;
  for (int b = 0; b < B; ++b) {
    const int n = plan.buckets[size_t(b)].n_calls;
    if (b + 1 == B) t = std::max(t, g * W);
    for (int s = 0; s <= n + 1; ++s) {
      const bool codec = s == 0 || s == n + 1;
      const Seconds d = seg_work(b, s) * (codec && b + 1 < B ? stretch : 1.0);
      emit(b, s, t, d);
      t += d;
    }
  }
}

// Event model (docs/model.md §2.2). w = backward work done (seconds of unslowed backward),
// t = wall time. Bucket b is ready when w reaches ready_frac[b] * W. The stream runs the
// chains of ready buckets in order. Rates: a collective slows backward to 1/gamma and
// runs at net_rate_beside_backward itself (1 unless comm_contention > 1); an encode/decode
// kernel and backward share the device, each at 1/cont; alone, rate 1.
Predictor::Phase Predictor::PhaseRun::event() {
  int nb = 0;           // next bucket to become ready
  int sb = 0, sseg = 0; // segment on the stream: bucket, index in its chain
  Seconds rem = -1;     // remaining work of that segment (-1 = not started)
  Seconds seg_start = 0, seg_w = 0;
  double net_rate = 1;  // the stream's collective's rate while backward runs
  Seconds t = 0, w = 0, bwd_end = W > 0 ? -1 : 0;
  for (;;) {
    while (nb < B && ready_frac[size_t(nb)] * W <= w) ++nb;
    const bool bwd = w < W;
    const bool side = sb < nb;
    if (!bwd && !side) break;
    const bool net = side && is_net(sb, sseg);
    if (side && rem < 0) {
      rem = seg_w = seg_work(sb, sseg);
      seg_start = t;
      net_rate = net ? net_rate_beside_backward(plan.buckets[size_t(sb)].first_call + sseg - 1) : 1.0;
    }
    double rb = 1, rs = 1;
    if (side && bwd) {
      if (net) {
        rb = 1.0 / gamma;
        rs = net_rate;
      } else {
        rb = rs = 1.0 / cont;
      }
    }
    const Seconds target = nb < B ? std::min(ready_frac[size_t(nb)] * W, W) : W;
    const Seconds dt_b = bwd ? (target - w) / rb : kInf;
    const Seconds dt_s = side ? rem / rs : kInf;
    if (dt_s <= dt_b) {
      t += dt_s;
      if (bwd) w = std::min(target, w + rb * dt_s);
      // A collective counts as long as it ran (stretched beside backward by comm_contention).
      tally(sb, sseg, is_net(sb, sseg) && net_rate < 1 ? t - seg_start : seg_w);
      emit(sb, sseg, seg_start, t - seg_start);
      ph.stream_end_s = t;
      rem = -1;
      if (++sseg > plan.buckets[size_t(sb)].n_calls + 1) { ++sb; sseg = 0; }
    } else {
      t += dt_b;
      w = target;
      if (side) rem = std::max(0.0, rem - rs * dt_b);
    }
    if (bwd_end < 0 && w >= W) bwd_end = t;
  }
  if (tl && W > 0) tl->push_back({"backward", Lane::Compute, t0, bwd_end});
  ph.backward_comm_s = std::max(t, bwd_end);
  ph.backward_end_s = bwd_end;
  return ph;
}

Predictor::Phase Predictor::run_phase(const Conditions& cond, std::vector<TimelineEvent>* tl,
                                      Seconds t0) const {
  if (!(cond.compute_speedup > 0) || !(cond.codec_speedup > 0) || !(cond.wire_scale > 0))
    throw ModelError("conditions: compute_speedup, codec_speedup and wire_scale must be > 0");
  PhaseRun run(*this, cond, tl, t0);
  if (mode_ == CompressionMode::AfterBackward) return run.after_backward();
  if (setup_.model == IterationModel::ClosedForm) return run.closed_form();
  return run.event();
}

IterationResult Predictor::predict(const Conditions& cond, bool timeline) const {
  IterationResult r;
  r.scheme = plan_.scheme;
  r.model = setup_.model;
  r.mode = mode_;
  r.world = cost_.world();
  r.batch_size = compute_.compute.batch_size;
  r.compute_exact = compute_.exact;
  r.note = note_;
  r.cost_notes = plan_.cost_notes;
  r.cost_assumptions = plan_.cost_assumptions;
  const double cf = 1.0 / cond.compute_speedup;
  const ComputeEntry& c = compute_.compute;
  r.data_s = c.data_s * cf;
  r.forward_s = c.forward_s * cf;
  r.optimizer_s = c.optimizer_s * cf;
  const Seconds t0 = r.data_s + r.forward_s;
  std::vector<TimelineEvent>* tl = timeline ? &r.timeline : nullptr;
  if (tl) {
    if (r.data_s > 0) tl->push_back({"data", Lane::Compute, 0, r.data_s});
    if (r.forward_s > 0) tl->push_back({"forward", Lane::Compute, r.data_s, r.forward_s});
  }
  const Phase ph = run_phase(cond, tl, t0);
  r.backward_s = ph.backward_s;
  r.backward_comm_s = ph.backward_comm_s;
  r.comm_s = ph.comm_s;
  r.encode_s = ph.encode_s;
  r.decode_s = ph.decode_s;
  r.exposed_s = ph.backward_comm_s - ph.backward_s;
  r.backward_end_s = ph.backward_end_s;
  r.stream_end_s = ph.stream_end_s;
  r.total_s = t0 + ph.backward_comm_s + r.optimizer_s;
  if (tl && r.optimizer_s > 0)
    tl->push_back({"optimizer", Lane::Compute, t0 + ph.backward_comm_s, r.optimizer_s});
  r.buckets = int(plan_.buckets.size());
  r.raw_bytes = plan_.raw_bytes;
  r.wire_bytes = plan_.wire_bytes * cond.wire_scale;
  return r;
}

Seconds Predictor::iteration_s(const Conditions& cond) const {
  const double cf = 1.0 / cond.compute_speedup;
  const ComputeEntry& c = compute_.compute;
  return (c.data_s + c.forward_s + c.optimizer_s) * cf + run_phase(cond, nullptr, 0).backward_comm_s;
}

}  // namespace gcu::model
