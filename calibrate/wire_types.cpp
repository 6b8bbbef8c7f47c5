// Low-precision all-reduce cost over the float32 all-reduce of the same bytes (wire_types.h).
#include "calibrate/wire_types.h"

#include "calibrate/group_impl.h"
#include "calibrate/stats.h"
#include "compressors/registry.h"
#include "trainer/runtime/gloo_wire.h"
#include "trainer/runtime/pg_communicator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace gcu::calibrate {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

WireExtra measure_wire_extra(Group& g, const std::string& spec, const std::vector<int64_t>& sizes, int reps) {
  WireExtra w;
  const auto comp = compress::make_compressor(spec);
  const int p = g.world_size();
  if (p < 2 || g.backend() != "gloo") return w;
  trainer::PgCommunicator comm(g.impl().ctx);
  comm.set_context("calibrate: low-precision all-reduce");
  std::string types;
  for (int64_t n : sizes) {
    const auto layout = compress::BucketLayout::flat(n);
    const auto calls = comp->plan(layout, p);
    std::vector<double> extra;
    for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
      double t_low = 0, t_f32 = 0;
      for (const auto& c : calls) {
        if (c.kind != compress::CollectiveKind::AllReduce || c.type == compress::WireType::F32) continue;
        if (types.find(compress::wire_type_name(c.type)) == std::string::npos)
          types += std::string(types.empty() ? "" : ",") + compress::wire_type_name(c.type);
        const int64_t bytes = c.bytes_per_rank();
        // Gradient-like values, not zeros: a software half <-> float conversion takes a
        // fast path for zeros (measured: 3.3 ns/element with zeros, far less than the trainer
        // sees). 0x3C00 + (i & 255) is a normal number in both float16 (~1) and bfloat16 (~0.008).
        std::vector<uint8_t> buf(size_t(bytes), 0);
        if (compress::wire_type_bytes(c.type) == 2)
          for (int64_t i = 0; i < c.count; ++i) {
            const uint16_t v = uint16_t(0x3C00 + (i & 255));
            std::memcpy(buf.data() + 2 * i, &v, 2);
          }
        // The float32 reference moves the bytes the link really carries (a widened bf16
        // all-reduce moves 4 bytes per element; the model costs it so: profile
        // cluster.allreduce_element_bytes), so the extra is the conversion work alone.
        const int64_t link_bytes = c.count * trainer::gloo_allreduce_element_bytes(c.type, compress::ReduceOp::Sum);
        std::vector<float> f32(size_t(std::max<int64_t>(1, link_bytes / 4)));
        for (size_t i = 0; i < f32.size(); ++i) f32[i] = 1.0f + float(i & 255) / 256.0f;
        g.barrier();
        double t0 = now_s();
        comm.all_reduce(buf.data(), c.count, c.type, compress::ReduceOp::Sum);
        t_low += g.allreduce_max(now_s() - t0);
        g.barrier();
        t0 = now_s();
        comm.all_reduce(f32.data(), int64_t(f32.size()), compress::WireType::F32, compress::ReduceOp::Sum);
        t_f32 += g.allreduce_max(now_s() - t0);
      }
      if (r >= 0) extra.push_back(t_low - t_f32);
    }
    if (types.empty()) return w;  // no low-precision all-reduce in this scheme
    w.applies = true;
    w.sizes.push_back(n);
    w.extra_s.push_back(median(extra));
  }
  if (!w.applies) return w;
  // Slope through the origin by least squares (the fixed part is the collective's latency,
  // already in the float fit); clamped at 0 when the low-precision call is not slower.
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < w.sizes.size(); ++i) {
    sxy += double(w.sizes[i]) * w.extra_s[i];
    sxx += double(w.sizes[i]) * double(w.sizes[i]);
  }
  w.per_element_s = sxx > 0 ? std::max(0.0, sxy / sxx) : 0;
  char b[200];
  std::snprintf(b, sizeof b, "%s all-reduce: %+.2f ns per bucket element over f32 of the same link bytes (%d ranks)",
                types.c_str(), w.per_element_s * 1e9, p);
  w.note = b;
  return w;
}

}  // namespace gcu::calibrate
