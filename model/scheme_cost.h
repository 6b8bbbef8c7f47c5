// Per-scheme cost plan: for one scheme, one bucket plan and one world size, the exact
// collectives each bucket issues (from the compressor registry's plan(): wire bytes and
// collective kinds, several dependent calls for PowerSGD/topkc) and the encode/decode
// seconds from the profile's cost fits. Computed once; wire bytes do not depend on
// bandwidth, so sweeps reuse it (docs/model.md §3).
#pragma once

#include "model/buckets.h"
#include "model/profile.h"
#include "model/units.h"

#include "compressors/compressor.h"

#include <map>
#include <string>
#include <vector>

namespace gcu::model {

struct PlannedCall {
  compress::CollectiveKind kind = compress::CollectiveKind::AllReduce;
  Bytes bytes = 0;       // per rank (all-gather: each rank's part)
  Bytes link_bytes = 0;  // what the link carries: `bytes`, or more where the backend widens the type
  std::string label;     // "values", "P", "Q", ...
  Seconds floor_s = 0;   // the call costs at least this whatever the link (CodecFit's floors)
  Seconds added_s = 0;   // and its link time plus this (the floor's per-element work)
};

struct PlannedBucket {
  int64_t numel = 0;
  Bytes raw_bytes = 0;   // FP32 gradient bytes
  Seconds encode_s = 0;  // at this plan's world size, no speed-up
  Seconds decode_s = 0;
  int first_call = 0;    // range into SchemePlan::calls
  int n_calls = 0;
};

struct SchemePlan {
  std::string scheme;            // canonical spec, as the registry prints it
  compress::SchemeTraits traits;
  bool allreduce_only = true;    // every call is an all-reduce (DDP-compatible)
  int world = 1;
  std::vector<PlannedBucket> buckets;
  std::vector<PlannedCall> calls;
  Bytes raw_bytes = 0;           // sum over buckets
  Bytes wire_bytes = 0;          // per rank, sum over all calls
  // How a cost fit that the profile does not hold for this exact spec was derived
  // (model/codec_cost.h): notes (interpolated, measured ef overhead) and assumptions
  // (extrapolated, one measured value, assumed ef overhead). Empty for exact fits.
  std::vector<std::string> cost_notes;
  std::vector<std::string> cost_assumptions;
  double compression_ratio() const { return wire_bytes > 0 ? raw_bytes / wire_bytes : kInf; }
};

// encode_s = fixed_s + per_element_s * n + per_tensor_s * (tensors - 1)
Seconds encode_seconds(const EncodeFit& f, int64_t n, int tensors = 1);
// decode_s = fixed_s + per_element_s * n + per_rank_element_s * n * p + per_tensor_s * (tensors - 1)
Seconds decode_seconds(const DecodeFit& f, int64_t n, int p, int tensors = 1);

// A bucket of n elements' floor: linear between the measured sizes, proportional to n
// beyond either end (below the smallest the floor fades rather than claim a fixed cost
// it never measured); 0 without points.
Seconds collective_floor_s(const CollectiveFloor& f, int64_t n);

// False for lossless schemes (registry facts: nothing to encode, no cost fit needed).
// Throws compress::CompressorError for an unknown scheme.
bool scheme_needs_codec_fit(const std::string& canonical_spec);

// Encode/decode costs: the profile's fit of the spec, else one derived from the fits of
// other parameter values of the same scheme (model/codec_cost.h). Throws ModelError when
// the scheme is not registered (naming it and the known ones), its parameters are bad, or
// the profile has no usable cost fit for it (naming the field "compressors.<spec>").
// `allreduce_element_bytes` (Cluster::allreduce_element_bytes) sets each call's link_bytes.
// A fit's allreduce_floor goes to the bucket's low-precision all-reduces that the backend
// does not widen, its allgather_floor to the bucket's all-gathers (each shared among its
// calls by link bytes). An all-reduce floor measured at another world size is used as is
// and said in cost_assumptions; an all-gather floor (a property of the calibration's
// placement) only at its own world size, else left out and said in cost_notes.
SchemePlan plan_scheme(const std::string& scheme, const std::vector<Bucket>& buckets, int world,
                       const std::map<std::string, CodecFit>& fits,
                       const std::map<std::string, int>& allreduce_element_bytes = {});

}  // namespace gcu::model
