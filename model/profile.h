// The profile: everything the model knows about one cluster + one model + the
// compressors' costs + convergence figures. Plain data mirroring the JSON schema
// "gcu.profile/2" (docs/profile-schema.md; read/write/validation in profile_json.h).
// Units are in the field names (see units.h). No logic here beyond small lookups
// (profile.cpp): the formulas live in collectives.h, iteration.h, tta.h.
#pragma once

#include "model/units.h"

#include "compressors/compressor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gcu::model {

inline constexpr const char* kProfileSchema = "gcu.profile/2";
// The version before interference factors had their own object (read, converted: its
// "gamma" is both the closed form's stretch and the event model's rate, as it was read).
inline constexpr const char* kProfileSchemaV1 = "gcu.profile/1";

struct Provenance {
  std::string source;   // "published V100 study (figures in data/README.md) + ..." | "gcu calibrate"
  std::string device;
  std::string date;     // ISO 8601
  std::string command;
  std::map<std::string, std::string> libraries;  // {"libtorch": "1.13.1", ...}
  std::vector<std::string> assumptions;          // one line per assumed number
};

// ---- cluster -------------------------------------------------------------------------
// A fitted (alpha, beta) for one collective over a message-size range [min, max) bytes.
// alpha_s is the per-step latency and beta_s_per_byte the per-byte LINK time that go into
// the algorithm formulas (collectives.h), i.e. what calibrate gets after the nccl-tests
// busbw conversion, not the raw time/size slope of the whole collective.
struct SizeRangeFit {
  Bytes min_bytes = 0;
  Bytes max_bytes = kInf;
  Seconds alpha_s = 0;
  double beta_s_per_byte = 0;
};

// One link level: "intra" (inside a node) or "inter" (between nodes; bandwidth_gbps is
// the node's NIC, shared by its GPUs).
struct LinkLevel {
  Gbps bandwidth_gbps = 0;
  Seconds alpha_s = 0;
  // Optional per-collective, per-size-range fits, keyed "allreduce", "allgather",
  // "reducescatter", "broadcast" (collective_key()). Override alpha_s/bandwidth_gbps
  // for messages inside a range.
  std::map<std::string, std::vector<SizeRangeFit>> collectives;
  // The kinds whose ranges form one curve (what gcu calibrate writes): one latency, the
  // first range's alpha_s (every range carries it), and a per-byte time that integrates
  // over the ranges, so that a message of n bytes costs steps x alpha + factor x B(n),
  // B(n) = sum over ranges of beta x (the bytes of n inside the range): continuous at the
  // range edges at every rank count, and never falling with size. Ranges run from 0 to
  // no upper bound without gaps. Other kinds: each range its own line (gcu.profile/1).
  std::set<std::string> curves;
};

// "allreduce", "allgather", "reducescatter", "broadcast".
const char* collective_key(compress::CollectiveKind k);

struct Cluster {
  int nodes = 1;
  int gpus_per_node = 1;
  LinkLevel intra;
  LinkLevel inter;
  // Candidate algorithms, the cheapest per message wins (as NCCL does): "ring", "tree",
  // "ps" (parameter server). Multi-node clusters also try each one hierarchically
  // (intra-node reduce-scatter / inter-node algorithm / intra-node all-gather).
  std::vector<std::string> algorithms = {"ring", "tree"};
  // The published whole-backward stretch under overlapped communication (the closed form's
  // gamma, docs/model.md §2.1; "gamma_stretch"). The event model does not read it: it reads
  // the interference factors below, which say when each slowdown applies.
  double gamma_stretch = 1.0;
  // ---- interference (the event model; JSON "interference", docs/profile-schema.md) ----
  // Backward runs this much slower while a collective runs ("backward_by_collective").
  double gamma = 1.0;
  // True when the profile gave no backward_by_collective and `gamma` was derived from
  // gamma_stretch (interference.h rate_from_stretch): written back as not given.
  bool gamma_from_stretch = false;
  double overlap_contention = 1.0;  // backward AND codec each this much slower side by side ("backward_codec")
  // The CPU side of a collective runs this much slower while backward runs (>= 1; 1 = not
  // at all, as on a GPU, whose collectives have their own engine). On CPU the two compete
  // for the cores: Gloo's reduction and copies are CPU work. A call of reference time r
  // (what it costs on the reference link, below) with fixed part l (the same kind's cost of
  // an empty message) takes at least
  // l + comm_contention x (r - l) beside backward: on a slow link the wire hides it.
  double comm_contention = 1.0;
  // The link level whose collective costs are the CPU side's (the calibration's own link).
  // Absent: the profile's inter level as written (what-if bandwidths do not change it).
  // gcu validate sets it when it replaces the inter level with a shaped link's fits.
  std::optional<LinkLevel> comm_contention_reference;
  // How the factors were fitted (calibrate, through the Predictor: interference.h): the
  // measured step they reproduce and what is left over ("interference.fit"). Absent: not
  // fitted (given, assumed or derived).
  struct InterferenceFit {
    std::string step;             // "gamma" (calibrate's step: backward beside its all-reduces)
    Seconds backward_alone_s = 0, backward_beside_s = 0, comm_beside_s = 0;  // measured
    Seconds backward_beside_model_s = 0, comm_beside_model_s = 0;            // the model's, at the fitted factors
    bool gamma_at_bound = false, comm_contention_at_bound = false;  // the fit ran to an end of its range
  };
  std::optional<InterferenceFit> interference_fit;
  // Bytes per element an all-reduce of a wire type really moves, where the backend widens
  // it (Gloo in LibTorch 1.13: {"bf16": 4, "i16": 4}); types not listed move their own size.
  std::map<std::string, int> allreduce_element_bytes;
  int world() const { return nodes * gpus_per_node; }
};

// ---- model ---------------------------------------------------------------------------
struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape;
  int64_t numel() const;
};

// Measured (or assumed) compute at one per-GPU batch size.
struct ComputeEntry {
  int batch_size = 0;
  Seconds forward_s = 0;
  Seconds backward_s = 0;
  Seconds optimizer_s = 0;
  Seconds data_s = 0;
  // Optional: time from backward start at which each tensor's gradient is ready, same
  // order as Model::tensors (backward order), measured without communication.
  std::vector<Seconds> ready_s;
};

struct Model {
  std::string name;
  int64_t parameters = 0;
  std::vector<TensorInfo> tensors;  // in BACKWARD (gradient-ready) order: last layer first
  std::vector<ComputeEntry> compute;
  int64_t numel() const;  // sum over tensors
};

// DDP bucketing (PyTorch defaults: first bucket 1 MiB, then bucket_cap_mb = 25 MiB).
struct DdpConfig {
  Bytes first_bucket_bytes = 1 * kMiB;
  Bytes bucket_cap_bytes = 25 * kMiB;
};

// ---- compressor costs ----------------------------------------------------------------
// encode = fixed_s + per_element_s * n + per_tensor_s * (tensors - 1), charged per bucket
// (n = bucket elements, tensors = the bucket's gradients; the size sweep times one-tensor
// buckets, so fixed_s holds the first tensor's share). per_tensor_s is what each further
// tensor adds: PowerSGD's per-matrix products, and on a GPU every scheme's kernel launches
// per tensor. 0 in profiles written before this term existed.
struct EncodeFit {
  Seconds fixed_s = 0;
  Seconds per_element_s = 0;
  Seconds per_tensor_s = 0;
};
// decode = fixed_s + per_element_s * n + per_rank_element_s * n * p
//          + per_tensor_s * (tensors - 1) (all-gathered payloads are decoded once per rank:
// signsgd's majority vote, topk's scatter-add).
struct DecodeFit {
  Seconds fixed_s = 0;
  Seconds per_element_s = 0;
  Seconds per_rank_element_s = 0;
  Seconds per_tensor_s = 0;
};
// A floor under some of a bucket's collective calls: the measured seconds of one bucket's
// such calls on the calibration's own placement, by bucket elements, and a per-element part
// of that work that adds to the link's time. The model costs those calls
// max(link time + per_element_s x n, floor): the call never costs less than it did on the
// calibration's own link, its fixed part included. Interpolated linearly between measured
// sizes, proportionally beyond them (scheme_cost.h). Two uses (CodecFit):
//  - allreduce_floor: a low-precision all-reduce whose reduction is CPU work inside the
//    backend (Gloo sums float16 element by element through software conversions, a fixed
//    CPU cost per call that a slow link hides); per_element_s = that work over a float32
//    all-reduce of the same bytes, which adds to whatever the link takes;
//  - allgather_floor: the scheme's all-gathers entered as a training step enters them,
//    free-running (no barrier, the ranks arriving after their own compute): with
//    more ranks than cores the first ranks to leave compute on the cores the last still
//    need, a cost the aligned collective sweep never sees; per_element_s = 0.
struct CollectiveFloor {
  int world = 0;                  // ranks it was measured with (>= 2)
  std::vector<int64_t> elements;  // bucket elements, increasing, > 0
  std::vector<Seconds> seconds;   // per bucket, finite, >= 0
  Seconds per_element_s = 0;      // work per bucket element that adds to the link's time
  // The standard error of each size's time (its timed rounds' sd / sqrt(rounds)), for the
  // calibration-noise bootstrap (validate/calibration_noise.h). Empty: not kept (profiles
  // written before it was kept); the bootstrap then takes the floor as exact.
  std::vector<Seconds> se_s;
};
struct CodecFit {
  EncodeFit encode;
  DecodeFit decode;
  int64_t measured_n = 0;  // elements of the measurement the fit came from (information)
  std::optional<CollectiveFloor> allreduce_floor;  // the bucket's low-precision all-reduces (not widened)
  std::optional<CollectiveFloor> allgather_floor;  // the bucket's all-gathers
};

// ---- convergence ---------------------------------------------------------------------
// Prediction from paired pilot runs (gcu pilot predict; convergence/progress_fit.h,
// docs/model.md §4.2): iterations to target = multiplier x baseline_iterations, with an
// 80% interval [multiplier_lo, multiplier_hi]. status "never" carries no multiplier.
struct PilotFigures {
  std::string status;                    // "reaches" | "never" | "uncertain"
  std::string basis;                     // "pilot-multiplier" | "pilot-lag"
  std::optional<double> multiplier;      // point estimate (iterations / T_0 of the pilot)
  std::optional<double> multiplier_lo, multiplier_hi;
  bool widened = false;                  // interval widened by the noise-scale cross-check
  std::vector<std::string> evidence;     // why never/uncertain; notes
  // Seeds the scheme's pilot had, of the baseline's (the sequential design pilots a
  // candidate with fewer): `gcu simulate recommend` asks to confirm a best with fewer.
  std::optional<int> seeds, baseline_seeds;
};

struct ConvergenceFigures {
  std::optional<double> relative_error;     // E||C(g)-g||^2/||g||^2 without error feedback
  std::optional<double> relative_error_ef;  // the same, measured with error feedback on
  std::optional<bool> error_feedback;       // overrides the scheme's traits
  std::optional<double> iterations;         // measured iterations to target (wins if set)
  std::optional<bool> reaches_target;       // measured: false = never reaches the target
  std::optional<PilotFigures> pilot;        // pilot prediction (wins over the constants)
};

// Fitted constants of the TTA model (tta.h); defaults = the plain theory.
struct ConvergenceConstants {
  double ef_scale = 1.0;        // multiplier = 1 + ef_scale * (1/delta - 1)
  double variance_scale = 1.0;  // multiplier = 1 + variance_scale * w / p
  double biased_scale = 1.0;    // biased, no EF: 1 + biased_scale * e / (1 - e)
  double max_biased_error = 0.5;  // biased without EF and e above this: never reaches
  double max_multiplier = 100.0;  // above this: reported as never reaching the target
};

struct Convergence {
  // Where the figures come from: "assumed" (illustrative, not measured: the shipped V100
  // profiles), "pilot" (paired pilot runs, gcu pilot predict --write-profile) or
  // "calibrated" (gcu calibrate's convergence runs), or "none" (no figures at all: a
  // described model, `gcu simulate --model`; TTA is not predicted). "" = not stated: read as
  // "pilot" when a scheme carries pilot figures, otherwise "assumed" (convergence_source()).
  std::string source;
  std::string target;               // "76% top-1"
  double baseline_iterations = 0;   // FP32 DDP iterations to target (0 = unknown)
  // Global batch (samples per iteration, all GPUs together) at which baseline_iterations
  // and the schemes' measured iterations were measured. 0 = the profile's own setup:
  // cluster.nodes x cluster.gpus_per_node x model.compute[0].batch_size.
  double baseline_global_batch = 0;
  // Critical global batch B_crit of the iterations-vs-batch law (tta.h,
  // batch_iterations_factor): iterations ~ 1/B well below it, ~constant well above.
  // Absent = baseline_global_batch (the measured run is assumed to sit at the critical
  // batch); 0 = iterations do not depend on the global batch.
  std::optional<double> critical_batch_size;
  std::map<std::string, ConvergenceFigures> schemes;  // keyed by canonical scheme spec
  ConvergenceConstants constants;
};

// "assumed", "pilot", "calibrated" or "none" (Convergence::source, or what it is read as
// when not stated).
std::string convergence_source(const Convergence& c);
bool convergence_is_measured(const Convergence& c);  // pilot or calibrated

// ---- the profile ---------------------------------------------------------------------
struct Profile {
  std::string schema = kProfileSchema;
  Provenance provenance;
  Cluster cluster;
  Model model;
  DdpConfig ddp;
  std::map<std::string, CodecFit> compressors;  // keyed by canonical scheme spec
  Convergence convergence;
};

// Compute at a per-GPU batch size. Exact entry when present; otherwise linear
// interpolation between the two nearest entries, or linear extrapolation from the two
// nearest (one entry: proportional to batch size) for weak scaling. ready_s is scaled
// from the nearest entry that has it (ready_s / backward_s kept). Throws ModelError when
// the model has no compute entries or batch_size < 1.
struct ComputeAt {
  ComputeEntry compute;
  bool exact = true;         // false when interpolated or extrapolated
  std::string note;          // e.g. "batch 96 interpolated between 64 and 128"
};
ComputeAt compute_for_batch(const Model& m, int batch_size);

}  // namespace gcu::model
