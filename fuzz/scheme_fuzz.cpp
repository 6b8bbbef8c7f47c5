// fuzz/scheme_fuzz.cpp: scheme specs (compressors/registry.cpp, params.cpp,
// error_feedback.cpp) and what a built scheme then does with a small bucket.
// Input: line 1 = the spec ("topkc:k=0.01,chunk=256", "ef(powersgd:rank=2)"); the rest
// picks a bucket layout, a world size and the gradient values (NaN and Inf included).
// Invariants: bad specs are CompressorError; spec() is canonical (building from it gives
// the same spec); plan() sizes are non-negative; roundtrip() on finite input (|x| <= 1e4) either
// throws CompressorError or leaves finite output; save_state/load_state round-trips.
#include "compressors/registry.h"
#include "fuzz/fuzz_util.h"

#include <cmath>
#include <cstring>

namespace {
struct Bytes {  // reads little pieces of the input, zeros when exhausted
  const std::string& s;
  size_t pos = 0;
  uint8_t u8() { return pos < s.size() ? static_cast<uint8_t>(s[pos++]) : 0; }
  float f32() {
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) bits |= uint32_t(u8()) << (8 * i);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::compress;
  const auto [spec, rest] = gcu::fuzz::split_first_line(gcu::fuzz::as_string(data, size));
  std::unique_ptr<Compressor> c;
  try {
    c = make_compressor(spec);
  } catch (const CompressorError&) {
    return 0;
  }
  const std::string canonical = c->spec();
  std::unique_ptr<Compressor> again;
  try {
    again = make_compressor(canonical);
  } catch (const CompressorError& e) {
    GCU_FUZZ_CHECK(false, "spec() '" + canonical + "' of '" + spec + "' does not parse: " + e.what());
  }
  GCU_FUZZ_CHECK(again->spec() == canonical, "spec not canonical: '" + spec + "' -> '" + canonical +
                                                 "' -> '" + again->spec() + "'");

  // A bucket of at most 3 tensors, at most 2048 elements in all.
  Bytes in{rest};
  BucketLayout layout;
  const int tensors = 1 + in.u8() % 3;
  for (int t = 0; t < tensors; ++t) {
    const int dims = 1 + in.u8() % 3;
    std::vector<int64_t> shape;
    for (int d = 0; d < dims; ++d) shape.push_back(1 + in.u8() % 12);
    layout.shapes.push_back(shape);
  }
  const int world = 1 + in.u8() % 64;
  for (const auto& call : c->plan(layout, world)) {
    GCU_FUZZ_CHECK(call.count >= 0, canonical + ": negative count in plan()");
  }
  GCU_FUZZ_CHECK(c->wire_bytes(layout, world) >= 0, canonical + ": negative wire bytes");

  const bool allow_nonfinite = (in.u8() & 1) != 0;
  std::vector<float> x(static_cast<size_t>(layout.numel())), y(x.size());
  bool finite = true;
  for (auto& v : x) {
    v = in.f32();
    // Finite inputs are kept within +-1e4: fp16 documents that magnitudes beyond 65504
    // become +-Inf, and norms of values near FLT_MAX overflow in any scheme.
    if (!allow_nonfinite && (!std::isfinite(v) || std::fabs(v) > 1e4f)) v = std::isfinite(v) ? std::fmod(v, 1e4f) : 0.5f;
    // The invariant below holds for finite inputs within +-1e4 only: with
    // allow_nonfinite, a finite 1e19 is allowed in and fp16 rightly overflows it.
    finite = finite && std::isfinite(v) && std::fabs(v) <= 1e4f;
  }
  try {
    c->roundtrip(0, x.data(), y.data(), layout);
    c->roundtrip(1, x.data(), y.data(), layout);
  } catch (const CompressorError&) {
    return 0;
  }
  if (finite)
    for (float v : y) GCU_FUZZ_CHECK(std::isfinite(v), canonical + ": non-finite output for finite input");
  const auto state = c->save_state();
  try {
    again->load_state(state);
  } catch (const CompressorError& e) {
    GCU_FUZZ_CHECK(false, canonical + ": own state does not load: " + e.what());
  }
  GCU_FUZZ_CHECK(again->save_state() == state, canonical + ": state does not round-trip");
  return 0;
}
