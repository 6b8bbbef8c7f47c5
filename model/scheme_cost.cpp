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

  for (const Bucket& b : buckets) {
    PlannedBucket pb;
    pb.numel = b.numel;
    pb.raw_bytes = double(b.numel) * kFp32Bytes;
    if (fit) {
      pb.encode_s = encode_seconds(fit->encode, b.numel);
      pb.decode_s = decode_seconds(fit->decode, b.numel, world);
    }
    pb.first_call = int(plan.calls.size());
    for (const auto& call : c->plan(b.layout, world)) {
      if (call.kind != compress::CollectiveKind::AllReduce) plan.allreduce_only = false;
      double link_bytes = double(call.bytes_per_rank());
      if (call.kind == compress::CollectiveKind::AllReduce)
        if (auto w = allreduce_element_bytes.find(compress::wire_type_name(call.type));
            w != allreduce_element_bytes.end())
          link_bytes = double(call.count) * w->second;
      plan.calls.push_back({call.kind, double(call.bytes_per_rank()), link_bytes, call.label});
      plan.wire_bytes += double(call.bytes_per_rank());
    }
    pb.n_calls = int(plan.calls.size()) - pb.first_call;
    plan.raw_bytes += pb.raw_bytes;
    plan.buckets.push_back(pb);
  }
  return plan;
}

}  // namespace gcu::model
