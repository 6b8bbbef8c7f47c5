// Low-precision all-reduce costs the float32 fits do not see (wire_types.h).
#include "calibrate/wire_types.h"

#include "calibrate/group_impl.h"
#include "calibrate/stats.h"
#include "compressors/registry.h"
#include "trainer/runtime/gloo_wire.h"
#include "trainer/runtime/pg_communicator.h"
#include "util/clock.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace gcu::calibrate {

namespace {
using util::now_s;

// Gradient-like values, not zeros: a software half <-> float conversion takes a fast path
// for zeros (measured: 3.3 ns/element with zeros, far less than the trainer sees). Values
// spread over 1e-7..1e-1 (half of them float16 subnormals) measured the same floor as
// these within 5% at 4 ranks.
// 0x3C00 + (i & 255) is a normal number in both float16 (~1) and bfloat16 (~0.008).
std::vector<uint8_t> low_precision_buffer(const compress::CollectiveCall& c) {
  std::vector<uint8_t> buf(size_t(c.bytes_per_rank()), 0);
  if (compress::wire_type_bytes(c.type) == 2)
    for (int64_t i = 0; i < c.count; ++i) {
      const uint16_t v = uint16_t(0x3C00 + (i & 255));
      std::memcpy(buf.data() + 2 * i, &v, 2);
    }
  return buf;
}

bool widened(compress::WireType t) {
  return trainer::gloo_allreduce_element_bytes(t, compress::ReduceOp::Sum) != compress::wire_type_bytes(t);
}

// Least-squares slope through the origin (the fixed part is the collective's latency, in
// the float fit or the floor); clamped at 0 when the call is not slower.
double slope_through_origin(const std::vector<int64_t>& x, const std::vector<double>& y) {
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += double(x[i]) * y[i];
    sxx += double(x[i]) * double(x[i]);
  }
  return sxx > 0 ? std::max(0.0, sxy / sxx) : 0;
}
}  // namespace

std::vector<int64_t> wire_sizes() {
  return {1 << 14, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22, 1 << 23};
}

WireExtra measure_wire_extra(Group& g, const std::string& spec, const std::vector<int64_t>& sizes, int reps) {
  WireExtra w;
  const auto comp = compress::make_compressor(spec);
  const int p = g.world_size();
  if (p < 2 || g.backend() != "gloo") return w;
  trainer::PgCommunicator comm(g.impl().ctx);
  comm.set_context("calibrate: low-precision all-reduce");
  std::string native_types, widened_types;
  std::vector<int64_t> floor_sizes;
  std::vector<double> floor_s, floor_se_s, native_extra_s;
  for (int64_t n : sizes) {
    const auto layout = compress::BucketLayout::flat(n);
    const auto calls = comp->plan(layout, p);
    std::vector<double> extra, native, native_extra;
    bool any_native = false, any_widened = false;
    for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
      double t_native = 0, t_wide = 0, t_f32 = 0, t_f32_native = 0;
      for (const auto& c : calls) {
        if (c.kind != compress::CollectiveKind::AllReduce || c.type == compress::WireType::F32) continue;
        const bool wide = widened(c.type);
        std::string& names = wide ? widened_types : native_types;
        if (names.find(compress::wire_type_name(c.type)) == std::string::npos)
          names += std::string(names.empty() ? "" : ",") + compress::wire_type_name(c.type);
        (wide ? any_widened : any_native) = true;
        std::vector<uint8_t> buf = low_precision_buffer(c);
        g.barrier();
        double t0 = now_s();
        comm.all_reduce(buf.data(), c.count, c.type, compress::ReduceOp::Sum);
        (wide ? t_wide : t_native) += g.allreduce_max(now_s() - t0);
        // The float32 reference moves the bytes the link really carries (a widened bf16
        // all-reduce moves 4 bytes per element; the model costs it so: profile
        // cluster.allreduce_element_bytes), so the extra is the conversion work alone.
        const int64_t link_bytes = c.count * trainer::gloo_allreduce_element_bytes(c.type, compress::ReduceOp::Sum);
        std::vector<float> f32(size_t(std::max<int64_t>(1, link_bytes / 4)));
        for (size_t i = 0; i < f32.size(); ++i) f32[i] = 1.0f + float(i & 255) / 256.0f;
        g.barrier();
        t0 = now_s();
        comm.all_reduce(f32.data(), int64_t(f32.size()), compress::WireType::F32, compress::ReduceOp::Sum);
        (wide ? t_f32 : t_f32_native) += g.allreduce_max(now_s() - t0);
      }
      if (r < 0) continue;
      if (any_widened) extra.push_back(t_wide - t_f32);
      if (any_native) native.push_back(t_native), native_extra.push_back(t_native - t_f32_native);
    }
    if (!any_native && !any_widened) return w;  // no low-precision all-reduce in this scheme
    w.applies = true;
    if (any_widened) {
      w.sizes.push_back(n);
      w.extra_s.push_back(median(extra));
    }
    if (any_native) {
      // The mean, as the collective fits' default statistic: what an iteration pays on
      // average, the latency tail included.
      floor_sizes.push_back(n);
      floor_s.push_back(std::accumulate(native.begin(), native.end(), 0.0) / double(native.size()));
      floor_se_s.push_back(standard_error_of_mean(native));
      native_extra_s.push_back(median(native_extra));
    }
  }
  if (!w.applies) return w;
  std::string note;
  if (!w.sizes.empty()) {
    w.per_element_s = slope_through_origin(w.sizes, w.extra_s);
    char b[200];
    std::snprintf(b, sizeof b, "%s all-reduce: %+.2f ns per bucket element over f32 of the same link bytes (%d ranks)",
                  widened_types.c_str(), w.per_element_s * 1e9, p);
    note = b;
  }
  if (!floor_sizes.empty()) {
    w.floor = model::CollectiveFloor{p, floor_sizes, floor_s, slope_through_origin(floor_sizes, native_extra_s),
                                     floor_se_s};
    char b[64];
    std::snprintf(b, sizeof b, "; %+.2f ns per element over f32 of the same bytes", w.floor->per_element_s * 1e9);
    note += std::string(note.empty() ? "" : "; ") + native_types + " all-reduce floor (" + std::to_string(p) +
            " ranks): " + ms_text(floor_s.front()) + " at " + std::to_string(floor_sizes.front()) + " ... " +
            ms_text(floor_s.back()) + " at " + std::to_string(floor_sizes.back()) + " elements" + b;
  }
  w.note = note;
  return w;
}

}  // namespace gcu::calibrate
