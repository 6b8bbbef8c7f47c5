// fuzz/compressor_state_fuzz.cpp: Compressor::load_state() on arbitrary bytes: the
// "compressor" entry of a checkpoint (trainer/runtime/checkpoint.cpp) that a user may
// resume from. Input: line 1 = the spec of a stateful scheme, the rest = the state.
// Invariants: a bad state is a CompressorError (never a crash or a huge allocation);
// after a load, the scheme still runs on a small bucket.
#include "compressors/registry.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::compress;
  const auto [spec, rest] = gcu::fuzz::split_first_line(gcu::fuzz::as_string(data, size));
  if (spec.size() > 64) return 0;  // spec parsing is scheme_fuzz's job
  std::unique_ptr<Compressor> c;
  try {
    c = make_compressor(spec);
  } catch (const CompressorError&) {
    return 0;
  }
  const std::vector<uint8_t> state(rest.begin(), rest.end());
  try {
    c->load_state(state);
  } catch (const CompressorError&) {
    return 0;
  }
  const BucketLayout layout{{{4, 6}, {5}}};
  std::vector<float> x(static_cast<size_t>(layout.numel()), 0.25f), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.01f * float(i % 7) - 0.03f;
  try {
    for (int64_t b = 0; b < 3; ++b) c->roundtrip(b, x.data(), y.data(), layout);
  } catch (const CompressorError&) {
  }
  (void)c->save_state();
  return 0;
}
