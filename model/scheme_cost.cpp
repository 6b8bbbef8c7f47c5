// Per-scheme cost plans (scheme_cost.h): exact wire bytes from the compressor registry,
// encode/decode seconds from the profile's fits.
#include "model/scheme_cost.h"
#include "model/codec_cost.h"
#include "util/text.h"

#include "compressors/registry.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace gcu::model {

Seconds encode_seconds(const EncodeFit& f, int64_t n, int tensors) {
  return f.fixed_s + f.per_element_s * double(n) + f.per_tensor_s * double(std::max(0, tensors - 1));
}

Seconds decode_seconds(const DecodeFit& f, int64_t n, int p, int tensors) {
  return f.fixed_s + f.per_element_s * double(n) + f.per_rank_element_s * double(n) * p +
         f.per_tensor_s * double(std::max(0, tensors - 1));
}

Seconds collective_floor_s(const CollectiveFloor& f, int64_t n) {
  const auto& x = f.elements;
  const auto& y = f.seconds;
  if (x.empty() || x.size() != y.size() || n <= 0) return 0;
  if (n <= x.front()) return y.front() * double(n) / double(x.front());
  if (n >= x.back()) return y.back() * double(n) / double(x.back());
  size_t i = 1;
  while (x[i] < n) ++i;
  const double t = double(n - x[i - 1]) / double(x[i] - x[i - 1]);
  return y[i - 1] + t * (y[i] - y[i - 1]);
}

bool scheme_needs_codec_fit(const std::string& canonical_spec) {
  return !compress::Registry::instance().facts(canonical_spec).lossless;
}

SchemePlan plan_scheme(const std::string& scheme, const std::vector<Bucket>& buckets, int world,
                       const std::map<std::string, CodecFit>& fits,
                       const std::map<std::string, int>& allreduce_element_bytes) {
  if (world < 1) throw ModelError("world size " + std::to_string(world) + " must be >= 1");
  std::unique_ptr<compress::Compressor> c;
  try {
    c = compress::make_compressor(scheme);
  } catch (const compress::CompressorError& e) {
    throw ModelError("scheme " + util::quote(scheme) + " cannot be costed: " + e.what());
  }
  SchemePlan plan;
  plan.scheme = c->spec();
  plan.traits = c->traits();
  plan.world = world;

  std::optional<CodecFit> fit;
  if (scheme_needs_codec_fit(plan.scheme)) {
    auto it = fits.find(plan.scheme);
    if (it == fits.end()) it = fits.find(scheme);  // as the user typed it
    if (it != fits.end()) {
      fit = it->second;
    } else {
      ResolvedCodec r = resolve_codec_fit(plan.scheme, fits);
      fit = r.fit;
      plan.cost_notes = std::move(r.notes);
      plan.cost_assumptions = std::move(r.assumptions);
    }
  }

  // The floors (profile.h CollectiveFloor): which calls take each, and its world.
  struct FloorUse {
    const CollectiveFloor* floor = nullptr;
    const char* what = "";
    bool used = false;
  };
  FloorUse floors[2] = {{fit && fit->allreduce_floor ? &*fit->allreduce_floor : nullptr,
                         "the low-precision all-reduce's CPU floor"},
                        {fit && fit->allgather_floor ? &*fit->allgather_floor : nullptr,
                         "the free-running all-gather floor"}};
  // The all-gather floor is a property of the calibration's placement (ranks sharing
  // cores), not of the scheme: at another world size it is left out, and said.
  if (floors[1].floor && floors[1].floor->world != world) {
    plan.cost_notes.push_back(std::string(floors[1].what) + " (measured at " + std::to_string(floors[1].floor->world) +
                              " ranks) is not used at " + std::to_string(world));
    floors[1].floor = nullptr;
  }
  for (const Bucket& b : buckets) {
    PlannedBucket pb;
    pb.numel = b.numel;
    pb.raw_bytes = double(b.numel) * kFp32Bytes;
    if (fit) {
      const int tensors = static_cast<int>(b.layout.shapes.size());
      pb.encode_s = encode_seconds(fit->encode, b.numel, tensors);
      pb.decode_s = decode_seconds(fit->decode, b.numel, world, tensors);
    }
    pb.first_call = int(plan.calls.size());
    std::vector<size_t> floor_calls[2];  // indices in plan.calls
    double floor_bytes[2] = {0, 0};
    for (const auto& call : c->plan(b.layout, world)) {
      if (call.kind != compress::CollectiveKind::AllReduce) plan.allreduce_only = false;
      double link_bytes = double(call.bytes_per_rank());
      bool widened = false;
      if (call.kind == compress::CollectiveKind::AllReduce)
        if (auto w = allreduce_element_bytes.find(compress::wire_type_name(call.type));
            w != allreduce_element_bytes.end()) {
          link_bytes = double(call.count) * w->second;
          widened = w->second != compress::wire_type_bytes(call.type);
        }
      PlannedCall pc{call.kind, double(call.bytes_per_rank()), link_bytes, call.label};
      int which = -1;
      if (call.kind == compress::CollectiveKind::AllReduce && call.type != compress::WireType::F32 && !widened)
        which = 0;
      else if (call.kind == compress::CollectiveKind::AllGather)
        which = 1;
      if (which >= 0 && floors[which].floor) {
        pc.added_s = floors[which].floor->per_element_s * double(call.count);
        floor_calls[which].push_back(plan.calls.size());
        floor_bytes[which] += link_bytes;
      }
      plan.calls.push_back(std::move(pc));
      plan.wire_bytes += double(call.bytes_per_rank());
    }
    pb.n_calls = int(plan.calls.size()) - pb.first_call;
    // Each floor of the bucket, shared among the calls that take it by their link bytes.
    for (int w = 0; w < 2; ++w) {
      if (floor_calls[w].empty()) continue;
      const Seconds bucket_floor = collective_floor_s(*floors[w].floor, b.numel);
      for (size_t i : floor_calls[w])
        plan.calls[i].floor_s =
            floor_bytes[w] > 0 ? bucket_floor * plan.calls[i].link_bytes / floor_bytes[w]
                               : bucket_floor / double(floor_calls[w].size());
      floors[w].used = true;
    }
    plan.raw_bytes += pb.raw_bytes;
    plan.buckets.push_back(pb);
  }
  for (const auto& f : floors)
    if (f.used && f.floor->world != world)
      plan.cost_assumptions.push_back(std::string(f.what) + " was measured at " + std::to_string(f.floor->world) +
                                      " ranks, used at " + std::to_string(world));
  return plan;
}

}  // namespace gcu::model
