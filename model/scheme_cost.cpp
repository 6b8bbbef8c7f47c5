// Per-scheme cost plans (scheme_cost.h): exact wire bytes from the compressor registry,
// encode/decode seconds from the profile's fits.
#include "model/scheme_cost.h"
#include "model/codec_cost.h"
#include "util/text.h"

#include "compressors/registry.h"

#include <memory>
#include <optional>

namespace gcu::model {

Seconds encode_seconds(const EncodeFit& f, int64_t n) {
  return f.fixed_s + f.per_element_s * double(n);
}

Seconds decode_seconds(const DecodeFit& f, int64_t n, int p) {
  return f.fixed_s + f.per_element_s * double(n) + f.per_rank_element_s * double(n) * p;
}

Seconds allreduce_floor_s(const AllReduceFloor& f, int64_t n) {
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

  const AllReduceFloor* floor = fit && fit->allreduce_floor ? &*fit->allreduce_floor : nullptr;
  bool floor_used = false;
  for (const Bucket& b : buckets) {
    PlannedBucket pb;
    pb.numel = b.numel;
    pb.raw_bytes = double(b.numel) * kFp32Bytes;
    if (fit) {
      pb.encode_s = encode_seconds(fit->encode, b.numel);
      pb.decode_s = decode_seconds(fit->decode, b.numel, world);
    }
    pb.first_call = int(plan.calls.size());
    std::vector<std::pair<size_t, int64_t>> floor_calls;  // (index in plan.calls, elements)
    int64_t floor_elements = 0;
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
      if (floor && call.kind == compress::CollectiveKind::AllReduce && call.type != compress::WireType::F32 &&
          !widened) {
        pc.added_s = floor->per_element_s * double(call.count);
        floor_calls.emplace_back(plan.calls.size(), call.count);
        floor_elements += call.count;
      }
      plan.calls.push_back(std::move(pc));
      plan.wire_bytes += double(call.bytes_per_rank());
    }
    pb.n_calls = int(plan.calls.size()) - pb.first_call;
    // The bucket's floor, shared among its calls that take it by their element counts.
    const Seconds bucket_floor = floor_calls.empty() ? 0 : allreduce_floor_s(*floor, b.numel);
    for (const auto& [i, count] : floor_calls)
      plan.calls[i].floor_s = bucket_floor * double(count) / double(floor_elements);
    floor_used = floor_used || !floor_calls.empty();
    plan.raw_bytes += pb.raw_bytes;
    plan.buckets.push_back(pb);
  }
  if (floor_used && floor->world != world)
    plan.cost_assumptions.push_back("the low-precision all-reduce's CPU floor was measured at " +
                                    std::to_string(floor->world) + " ranks, used at " + std::to_string(world));
  return plan;
}

}  // namespace gcu::model
