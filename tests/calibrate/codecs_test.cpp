// Tests of calibrate/codecs.h: the loopback communicator plays p ranks, the codec fit
// recovers a scheme's per-element cost shape, and errors on gradients are sane.
#include "calibrate/codecs.h"

#include "compressors/error_feedback.h"
#include "compressors/registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gcu::calibrate {
namespace {

TEST(Loopback, AllGatherReturnsPCopies) {
  LoopbackCommunicator c(3);
  const float send[2] = {1.f, 2.f};
  float recv[6] = {};
  c.all_gather(send, recv, 2, compress::WireType::F32);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(recv[2 * r], 1.f);
    EXPECT_EQ(recv[2 * r + 1], 2.f);
  }
  EXPECT_EQ(c.calls(), 1);
  EXPECT_EQ(c.world_size(), 3);
}

// The device hooks (what register_cuda() installs) are what the loopback copies and
// synchronizes through: here host memory stands in for the device, counting the calls.
TEST(Loopback, DeviceBuffersGoThroughTheRegisteredDeviceMemory) {
  int copies = 0, syncs = 0;
  compress::Registry::DeviceMemory dm;
  dm.alloc = [](size_t b) { return std::malloc(b); };
  dm.release = [](void* p) { std::free(p); };
  dm.copy = [&copies](void* d, const void* s, size_t b) {
    ++copies;
    std::memcpy(d, s, b);
  };
  dm.synchronize = [&syncs] { ++syncs; };
  LoopbackCommunicator c(2);
  c.set_device(&dm);
  const float send[2] = {3.f, 4.f};
  float recv[4] = {};
  c.all_gather(send, recv, 2, compress::WireType::F32);
  EXPECT_EQ(copies, 2);  // one per played rank
  EXPECT_EQ(syncs, 2);   // before the entry and the exit timestamps
  EXPECT_EQ(recv[2], 3.f);
  EXPECT_EQ(recv[3], 4.f);
  auto none = compress::make_compressor("none");
  float x[4] = {1, 2, 3, 4};
  compress::BucketLayout layout;
  layout.shapes.push_back({4});
  syncs = 0;
  time_one_step(*none, {0, x, &layout}, c);
  EXPECT_EQ(syncs, 4);  // before and after step(), and around its one all-reduce
}

// A CUDA codec timing in a process that registered no CUDA schemes says so.
TEST(CodecTiming, CudaWithoutTheCudaSchemesIsAClearError) {
  CodecTimingOptions o;
  o.sizes = {1 << 10};
  o.device = compress::Device::CUDA;
  try {
    measure_codec("none", o);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
}

TEST(CodecTiming, NoneFitsNonNegativeCosts) {
  CodecTimingOptions o;
  o.sizes = {1 << 10, 1 << 12, 1 << 14};
  o.iters = 3;
  const auto m = measure_codec("none", o);
  EXPECT_EQ(m.spec, "none");
  EXPECT_FALSE(m.gathers);
  EXPECT_GE(m.fit.encode.fixed_s, 0.0);
  EXPECT_GE(m.fit.encode.per_element_s, 0.0);
  EXPECT_GE(m.fit.decode.per_element_s, 0.0);
  EXPECT_EQ(m.rows.size(), 3u);
  EXPECT_EQ(m.fit.measured_n, 1 << 14);
  // The per-tensor row: the largest size again, as o.tensors matrices.
  EXPECT_EQ(m.tensors, o.tensors);
  EXPECT_EQ(m.tensor_row.elements, 1 << 14);
  EXPECT_TRUE(std::isfinite(m.fit.encode.per_tensor_s) && m.fit.encode.per_tensor_s >= 0);
  EXPECT_TRUE(std::isfinite(m.fit.decode.per_tensor_s) && m.fit.decode.per_tensor_s >= 0);
}

// The per-tensor row needs at least 4 elements per tensor; tensors < 2 turns it off. (Its
// size on a CPU is within the medians' noise for most schemes, so no sign is asserted
// here; the H100's per-tensor costs are in docs/history/validation-log.md.)
TEST(CodecTiming, PerTensorRowOnlyWhereItCanSplit) {
  CodecTimingOptions o;
  o.sizes = {64};
  o.iters = 2;
  EXPECT_EQ(measure_codec("powersgd:rank=4", o).tensors, 0);  // 64 < 4 x 32
  o.sizes = {1 << 12};
  o.tensors = 1;
  const auto m = measure_codec("fp16", o);
  EXPECT_EQ(m.tensors, 0);
  EXPECT_EQ(m.fit.encode.per_tensor_s, 0.0);
  o.tensors = 8;
  EXPECT_EQ(measure_codec("fp16", o).tensors, 8);
}

TEST(CodecTiming, BadSpecThrows) {
  EXPECT_THROW(measure_codec("no-such-scheme", {}), std::exception);
}

TEST(CompressionError, NoneIsExactAndBucketsFollowDdp) {
  GradientSet g;
  g.tensors = {{"a", {300000}}, {"b", {100}}};  // a: 1.2 MB, its own bucket
  std::vector<float> s(300100);
  for (size_t i = 0; i < s.size(); ++i) s[i] = std::sin(0.1 * i);
  g.snapshots = {s, s};
  const auto e = measure_error("none", g);
  EXPECT_EQ(e.relative_error, 0.0);
  EXPECT_EQ(e.relative_error_ef, 0.0);
  EXPECT_EQ(e.snapshots, 2);
  EXPECT_EQ(e.buckets, 2);
  GradientSet bad = g;
  bad.snapshots[0].pop_back();
  EXPECT_THROW(measure_error("none", bad), FitError);
}

// The default codec timings start with each scheme's default spec (as before) and time at
// least two values of every scheme with a numeric parameter, so that the model can
// interpolate (model/codec_cost.h), plus one ef(...) spec for the error-feedback overhead.
TEST(DefaultCodecSpecs, AtLeastTwoValuesOfEachParametricScheme) {
  const auto specs = default_codec_specs();
  const auto schemes = compress::Registry::instance().list();
  ASSERT_GE(specs.size(), schemes.size());
  for (size_t i = 0; i < schemes.size(); ++i) EXPECT_EQ(specs[i], schemes[i].name);
  bool ef = false;
  for (const auto& info : schemes) {
    const auto def = compress::SchemeArgs::parse(compress::make_compressor(info.name)->spec());
    bool numeric = false;
    for (const auto& [k, v] : def.values()) numeric |= std::strtod(v.c_str(), nullptr) != 0 || v == "0";
    int n = 0;
    for (const auto& s : specs) {
      std::string inner;
      if (compress::parse_ef_spec(s, &inner)) {
        ef = true;
        continue;
      }
      n += compress::SchemeArgs::parse(s).name() == info.name;
    }
    EXPECT_GE(n, numeric ? 2 : 1) << info.name;
  }
  EXPECT_TRUE(ef);
}

}  // namespace
}  // namespace gcu::calibrate
