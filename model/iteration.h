// Iteration-time model: one training iteration = data + forward + (backward overlapped
// with bucketed communication, or backward then compression) + optimizer step.
// Two models (docs/model.md §2-3):
//  - ClosedForm, the published one: T = max(gamma*T_bwd, sum_{j<k} c_j) + c_k
//    (k buckets, c_j = bucket j's encode + collectives + decode; equal buckets give
//    max(gamma*T_bwd, (k-1) T_comm(b)) + T_comm(b')); with overlapped encode/decode in
//    the first k-1 chains, its contention-aware generalisation closed_form_contention_s.
//  - Event: per-tensor ready times drive bucket ready times; one communication stream
//    runs bucket chains in order; backward runs 1/gamma slower while a collective runs
//    (and the collective's CPU side comm_contention times slower, where the profile has
//    one: CPU ranks) and 1/contention slower while an encode/decode kernel overlaps it
//    (which is slowed by the same factor).
// Predictor precomputes buckets, scheme plan and ready times once (Setup); predict() /
// iteration_s() then evaluate under cheap-to-vary Conditions without allocating.
#pragma once

#include "model/buckets.h"
#include "model/collectives.h"
#include "model/profile.h"
#include "model/scheme_cost.h"
#include "model/units.h"

#include <string>
#include <vector>

namespace gcu::model {

enum class IterationModel { ClosedForm, Event };
// Auto: what gcu train does by default, for every scheme: each bucket is compressed and
// sent as soon as backward fills it (as PyTorch's DDP comm hooks run PowerSGD and the
// casts). AfterBackward: the whole gradient after backward (as GRACE and the published
// study ran the compressors).
enum class CompressionMode { Auto, AfterBackward, Overlapped };
enum class Lane { Compute, Comm, Encode, Decode };

const char* model_name(IterationModel m);   // "closed-form", "event"
const char* mode_name(CompressionMode m);   // "auto", "after-backward", "overlapped"
const char* lane_name(Lane l);              // "compute", "comm", "encode", "decode"
IterationModel parse_model(const std::string& s);  // throws ModelError
CompressionMode parse_mode(const std::string& s);  // throws ModelError

struct TimelineEvent {
  std::string name;   // "forward", "bucket 3 all-reduce values (ring)", ...
  Lane lane = Lane::Compute;
  Seconds start_s = 0;
  Seconds duration_s = 0;
};

// Decided once per Predictor (re-planning: buckets, compressor plans, compute lookup).
struct Setup {
  std::string scheme = "none";
  int nodes = 0;          // 0 = the profile's
  int gpus_per_node = 0;  // 0 = the profile's
  int batch_size = 0;     // per GPU; 0 = the profile's first compute entry
  IterationModel model = IterationModel::Event;
  CompressionMode mode = CompressionMode::Auto;
};

// Cheap to vary (no re-planning): what the sweeps change point by point.
struct Conditions {
  Gbps inter_bandwidth_gbps = 0;  // 0 = the profile's (range fits' betas replaced too)
  Gbps intra_bandwidth_gbps = 0;  // 0 = the profile's
  double compute_speedup = 1;     // forward/backward/optimizer/data AND encode/decode / f
  double codec_speedup = 1;       // encode/decode / f (on top of compute_speedup)
  double wire_scale = 1;          // every collective's bytes x f
  double gamma = 0;               // 0 = the profile's (event: interference rate; closed form: its stretch)
  double overlap_contention = 0;  // 0 = the profile's
  double comm_contention = 0;     // 0 = the profile's (cluster.comm_contention)
};

struct IterationResult {
  std::string scheme;
  IterationModel model = IterationModel::Event;   // which model produced total_s
  CompressionMode mode = CompressionMode::Auto;   // resolved: never Auto
  int world = 1;
  int batch_size = 0;
  bool compute_exact = true;     // false: compute interpolated/extrapolated (see note)
  std::string note;              // compute lookup and ready-time basis, "; "-separated
  std::vector<std::string> cost_notes;        // encode/decode fit not measured for this
  std::vector<std::string> cost_assumptions;  // exact spec (SchemePlan, codec_cost.h)
  Seconds data_s = 0, forward_s = 0, backward_s = 0, optimizer_s = 0;  // after speed-up
  Seconds backward_comm_s = 0;   // backward start -> last decode done
  Seconds comm_s = 0;            // sum of collective times (event model: as run, beside backward too)
  Seconds encode_s = 0, decode_s = 0;  // sums
  Seconds exposed_s = 0;         // backward_comm_s - backward_s (not hidden)
  Seconds backward_end_s = 0;    // from backward start: when backward ended (slowed beside the stream)
  Seconds stream_end_s = 0;      // from backward start: when the stream's last segment ended (0: none)
  Seconds total_s = 0;           // data + forward + backward_comm + optimizer
  int buckets = 0;
  Bytes raw_bytes = 0, wire_bytes = 0;  // per rank per iteration
  std::vector<TimelineEvent> timeline;  // only when asked for
};

// ---- pure formulas ----------------------------------------------------------------------
// Published closed form with equal buckets: max(gamma*T_bwd, (k-1) c) + c_last.
Seconds closed_form_s(Seconds backward_s, double gamma, int k, Seconds comm_bucket_s,
                      Seconds comm_last_s);
// After backward: T_bwd + sum of (encode + collectives + decode) over buckets.
Seconds after_backward_s(Seconds backward_s, Seconds chains_s);
// The closed form when the first k-1 chains also hold encode/decode work X (overlapped
// compression, slowed with backward by the contention factor; docs/model.md §3.1): with
// collective time C of those chains and the last chain `last_s`,
//   g = (cont X + C) / (X + C/gamma), f = min(1, T_bwd / (X + C/gamma)),
//   T = max(g T_bwd, C + X + (cont - 1) X f) + last_s.
// X = 0 gives the published form max(gamma T_bwd, C) + last_s exactly.
Seconds closed_form_contention_s(Seconds backward_s, double gamma, double contention, Seconds comm_first_s,
                                 Seconds codec_first_s, Seconds last_s);

// Ready point of each tensor as a FRACTION of backward time: measured ready_s / backward_s
// when given, else the backward time spread proportionally to parameter count over the
// backward order (tensor i ready when the cumulative count up to i is done).
std::vector<double> tensor_ready_fractions(const Model& m, const ComputeEntry& c);

class Predictor {
 public:
  // Throws ModelError (bad setup, unknown scheme, missing cost fit, no compute).
  Predictor(const Profile& profile, const Setup& setup);

  IterationResult predict(const Conditions& cond = {}, bool timeline = false) const;
  // Fast path: total iteration seconds only; no allocation.
  Seconds iteration_s(const Conditions& cond = {}) const;

  const SchemePlan& plan() const { return plan_; }
  const std::vector<Bucket>& buckets() const { return buckets_; }
  const ComputeAt& compute() const { return compute_; }
  IterationModel model() const { return setup_.model; }
  CompressionMode mode() const { return mode_; }  // resolved
  int world() const { return cost_.world(); }

 private:
  struct Phase;     // result of the backward/communication phase
  struct PhaseRun;  // one evaluation of that phase (iteration.cpp)
  Phase run_phase(const Conditions& cond, std::vector<TimelineEvent>* tl, Seconds t0) const;

  Setup setup_;
  Cluster cluster_;
  ClusterCost cost_;
  ClusterCost ref_cost_;  // the CPU side's costs for comm_contention (profile.h)
  ComputeAt compute_;
  std::vector<Bucket> buckets_;
  SchemePlan plan_;
  CompressionMode mode_ = CompressionMode::Overlapped;
  std::vector<double> bucket_ready_frac_;  // per bucket: last member's ready fraction
  std::string note_;
};

}  // namespace gcu::model
