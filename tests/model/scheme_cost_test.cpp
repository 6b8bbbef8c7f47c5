// Per-scheme cost plans (model/scheme_cost.h): wire bytes from the registry against direct
// counts, codec fits, errors. Schemes not yet registered are skipped with a message.
#include "model/scheme_cost.h"
#include "fixtures.h"

#include "compressors/registry.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

using testing::scheme_registered;
#define REQUIRE_SCHEME(s) \
  if (!scheme_registered(s)) GTEST_SKIP() << "scheme '" << s << "' is not registered yet"

std::vector<Bucket> two_buckets() {
  return plan_buckets({{"w", {1000, 300}}, {"b", {1000}}, {"w2", {512, 512}}});
}
std::map<std::string, CodecFit> fits_for(const std::vector<std::string>& specs) {
  std::map<std::string, CodecFit> f;
  for (const auto& s : specs) f[s] = {{1e-4, 1e-9}, {2e-4, 1e-9, 1e-10}, 0};
  return f;
}

TEST(SchemeCost, CodecFormulas) {
  // encode 1e-4 + 1e-9 * 1e6 = 1.1e-3; decode 2e-4 + 1e-9*1e6 + 1e-10*1e6*8 = 2e-3.
  EXPECT_NEAR(encode_seconds({1e-4, 1e-9}, 1000000), 1.1e-3, 1e-15);
  EXPECT_NEAR(decode_seconds({2e-4, 1e-9, 1e-10}, 1000000, 8), 2e-3, 1e-15);
}

// A codec's per-tensor cost (kernel launches on a GPU): each tensor of a bucket beyond the
// first adds per_tensor_s (the sweep times one-tensor buckets), and plan_scheme counts the
// bucket's real tensors.
TEST(SchemeCost, PerTensorTermCountsTheBucketsTensors) {
  EXPECT_NEAR(encode_seconds({1e-4, 1e-9, 5e-5}, 1000000, 1), 1.1e-3, 1e-15);
  EXPECT_NEAR(encode_seconds({1e-4, 1e-9, 5e-5}, 1000000, 3), 1.2e-3, 1e-15);
  EXPECT_NEAR(decode_seconds({2e-4, 1e-9, 1e-10, 1e-5}, 1000000, 8, 11), 2.1e-3, 1e-15);
  EXPECT_NEAR(encode_seconds({1e-4, 1e-9, 5e-5}, 1000000, 0), 1.1e-3, 1e-15);  // never below one tensor
  auto bs = two_buckets();
  auto fits = fits_for({"fp16"});
  const auto flat = plan_scheme("fp16", bs, 4, fits);
  fits["fp16"].encode.per_tensor_s = 3e-5;
  fits["fp16"].decode.per_tensor_s = 1e-5;
  const auto p = plan_scheme("fp16", bs, 4, fits);
  ASSERT_EQ(p.buckets.size(), bs.size());
  bool some_multi = false;
  for (size_t b = 0; b < bs.size(); ++b) {
    const double more = double(bs[b].layout.shapes.size()) - 1;
    some_multi = some_multi || more > 0;
    EXPECT_NEAR(p.buckets[b].encode_s - flat.buckets[b].encode_s, 3e-5 * more, 1e-15) << "bucket " << b;
    EXPECT_NEAR(p.buckets[b].decode_s - flat.buckets[b].decode_s, 1e-5 * more, 1e-15) << "bucket " << b;
  }
  EXPECT_TRUE(some_multi) << "the fixture should have a bucket of several tensors";
}

TEST(SchemeCost, NoneSendsRawBytesAndNeedsNoFit) {
  auto bs = two_buckets();
  auto p = plan_scheme("none", bs, 8, {});
  EXPECT_EQ(p.scheme, "none");
  EXPECT_TRUE(p.allreduce_only);
  EXPECT_DOUBLE_EQ(p.raw_bytes, 4.0 * (300000 + 1000 + 262144));
  EXPECT_DOUBLE_EQ(p.wire_bytes, p.raw_bytes);
  EXPECT_DOUBLE_EQ(p.compression_ratio(), 1.0);
  ASSERT_EQ(p.buckets.size(), bs.size());
  EXPECT_EQ(p.buckets[0].encode_s, 0.0);
}

TEST(SchemeCost, Fp16HalvesBytesAndChargesCodecPerBucket) {
  REQUIRE_SCHEME("fp16");
  auto bs = two_buckets();
  auto p = plan_scheme("fp16", bs, 4, fits_for({"fp16"}));
  EXPECT_DOUBLE_EQ(p.wire_bytes, p.raw_bytes / 2);
  EXPECT_TRUE(p.allreduce_only);
  EXPECT_NEAR(p.buckets[0].encode_s, 1e-4 + 1e-9 * double(bs[0].numel), 1e-15);
  EXPECT_NEAR(p.buckets[0].decode_s, 2e-4 + 1e-9 * double(bs[0].numel) + 4e-10 * double(bs[0].numel), 1e-15);
}

// A backend that widens bf16 all-reduces (Gloo in LibTorch 1.13) moves 4 bytes per
// element: the calls' link bytes say so, the scheme's nominal wire bytes do not change.
TEST(SchemeCost, WidenedAllReduceCostsTheLinkBytes) {
  REQUIRE_SCHEME("bf16");
  auto bs = two_buckets();
  const auto plain = plan_scheme("bf16", bs, 2, fits_for({"bf16"}));
  const auto widened = plan_scheme("bf16", bs, 2, fits_for({"bf16"}), {{"bf16", 4}, {"i16", 4}});
  EXPECT_DOUBLE_EQ(widened.wire_bytes, plain.wire_bytes);
  ASSERT_EQ(widened.calls.size(), plain.calls.size());
  for (size_t i = 0; i < plain.calls.size(); ++i) {
    EXPECT_DOUBLE_EQ(plain.calls[i].link_bytes, plain.calls[i].bytes);
    EXPECT_DOUBLE_EQ(widened.calls[i].link_bytes, 2 * plain.calls[i].bytes);
  }
  // Other types and all-gathers are untouched.
  const auto f16 = plan_scheme("fp16", bs, 2, fits_for({"fp16"}), {{"bf16", 4}});
  for (const auto& c : f16.calls) EXPECT_DOUBLE_EQ(c.link_bytes, c.bytes);
}

// The low-precision all-reduce floor (profile.h CollectiveFloor): linear between measured
// sizes, proportional beyond them, nothing without points.
TEST(SchemeCost, CollectiveFloorInterpolates) {
  const CollectiveFloor f{4, {1000, 3000, 10000}, {2e-3, 4e-3, 11e-3}};
  EXPECT_DOUBLE_EQ(collective_floor_s(f, 1000), 2e-3);
  EXPECT_NEAR(collective_floor_s(f, 2000), 3e-3, 1e-15);
  EXPECT_NEAR(collective_floor_s(f, 6500), 7.5e-3, 1e-15);
  EXPECT_NEAR(collective_floor_s(f, 500), 1e-3, 1e-15);     // below: proportional
  EXPECT_NEAR(collective_floor_s(f, 20000), 22e-3, 1e-15);  // above: proportional
  EXPECT_EQ(collective_floor_s(f, 0), 0.0);
  EXPECT_EQ(collective_floor_s(CollectiveFloor{}, 5000), 0.0);
}

// fp16's all-reduces (reduced by the backend) take their bucket's floor; the decode fit is
// left alone; float32 calls, widened types and schemes without a floor get none.
TEST(SchemeCost, FloorGoesToTheBackendsOwnLowPrecisionAllReduces) {
  REQUIRE_SCHEME("fp16");
  REQUIRE_SCHEME("bf16");
  auto bs = two_buckets();
  auto fits = fits_for({"fp16", "bf16"});
  const CollectiveFloor f{4, {1000, 1000000}, {1e-3, 1e-2}, 3e-9};
  fits["fp16"].allreduce_floor = f;
  fits["bf16"].allreduce_floor = f;
  const auto p = plan_scheme("fp16", bs, 4, fits, {{"bf16", 4}});
  ASSERT_EQ(p.calls.size(), bs.size());
  for (size_t b = 0; b < bs.size(); ++b) {
    const PlannedCall& c = p.calls[size_t(p.buckets[b].first_call)];
    EXPECT_NEAR(c.floor_s, collective_floor_s(f, bs[b].numel), 1e-15) << "bucket " << b;
    EXPECT_GT(c.floor_s, 0.0);
    EXPECT_NEAR(c.added_s, 3e-9 * double(bs[b].numel), 1e-18);
  }
  EXPECT_NEAR(p.buckets[0].decode_s, decode_seconds(fits["fp16"].decode, bs[0].numel, 4), 1e-15);
  EXPECT_TRUE(p.cost_assumptions.empty());
  // Widened by the backend (bf16 here): conversions add to decode, no floor.
  for (const auto& c : plan_scheme("bf16", bs, 4, fits, {{"bf16", 4}}).calls) EXPECT_EQ(c.floor_s + c.added_s, 0.0);
  // Not widened by this backend: the floor applies.
  for (const auto& c : plan_scheme("bf16", bs, 4, fits).calls) EXPECT_GT(c.floor_s, 0.0);
  // No floor in the fit, or a float32 scheme: none.
  for (const auto& c : plan_scheme("fp16", bs, 4, fits_for({"fp16"})).calls) EXPECT_EQ(c.floor_s, 0.0);
  for (const auto& c : plan_scheme("none", bs, 4, fits).calls) EXPECT_EQ(c.floor_s, 0.0);
  // Measured at 4 ranks, used at 8: said.
  const auto p8 = plan_scheme("fp16", bs, 8, fits);
  ASSERT_EQ(p8.cost_assumptions.size(), 1u);
  EXPECT_NE(p8.cost_assumptions[0].find("measured at 4 ranks, used at 8"), std::string::npos);
}

// The free-running all-gather floor goes to every all-gather of the bucket,
// shared by link bytes (topk: values and indices), never to all-reduces; at another world
// size it is left out (a property of the calibration's placement) and said.
TEST(SchemeCost, AllGatherFloorGoesToTheBucketsAllGathersByBytes) {
  REQUIRE_SCHEME("topk:k=0.01");
  REQUIRE_SCHEME("fp16");
  auto bs = two_buckets();
  auto fits = fits_for({"topk:k=0.01", "fp16"});
  const CollectiveFloor f{4, {1000, 1000000}, {2e-3, 2e-2}};
  fits["topk:k=0.01"].allgather_floor = f;
  fits["fp16"].allgather_floor = f;
  const auto p = plan_scheme("topk:k=0.01", bs, 4, fits);
  for (size_t b = 0; b < bs.size(); ++b) {
    const auto& pb = p.buckets[b];
    double floor_sum = 0, bytes = 0;
    int gathers = 0;
    for (int i = pb.first_call; i < pb.first_call + pb.n_calls; ++i) {
      const PlannedCall& c = p.calls[size_t(i)];
      if (c.kind != compress::CollectiveKind::AllGather) {
        EXPECT_EQ(c.floor_s, 0.0);
        continue;
      }
      ++gathers;
      bytes += c.link_bytes;
      floor_sum += c.floor_s;
      EXPECT_EQ(c.added_s, 0.0);
    }
    ASSERT_GT(gathers, 0) << "bucket " << b;
    EXPECT_NEAR(floor_sum, collective_floor_s(f, bs[b].numel), 1e-15) << "bucket " << b;
    for (int i = pb.first_call; i < pb.first_call + pb.n_calls; ++i) {
      const PlannedCall& c = p.calls[size_t(i)];
      if (c.kind == compress::CollectiveKind::AllGather)
        EXPECT_NEAR(c.floor_s, floor_sum * c.link_bytes / bytes, 1e-15);
    }
  }
  EXPECT_TRUE(p.cost_notes.empty());
  // fp16 all-reduces: an all-gather floor does not apply.
  for (const auto& c : plan_scheme("fp16", bs, 4, fits).calls) EXPECT_EQ(c.floor_s, 0.0);
  // At 2 ranks: left out, said.
  const auto p2 = plan_scheme("topk:k=0.01", bs, 2, fits);
  for (const auto& c : p2.calls) EXPECT_EQ(c.floor_s, 0.0);
  ASSERT_EQ(p2.cost_notes.size(), 1u);
  EXPECT_NE(p2.cost_notes[0].find("measured at 4 ranks) is not used at 2"), std::string::npos);
}

TEST(SchemeCost, HigherCompressionNeverSendsMoreBytes) {
  auto bs = plan_buckets({{"w", {4096, 1024}}, {"b", {4096}}, {"w2", {1024, 1024}}});
  auto check = [&](const std::string& hi, const std::string& lo) {
    if (!scheme_registered(hi) || !scheme_registered(lo)) return;
    auto f = fits_for({hi, lo});
    const double bh = plan_scheme(hi, bs, 16, f).wire_bytes;
    const double bl = plan_scheme(lo, bs, 16, f).wire_bytes;
    EXPECT_LT(bh, bl) << hi << " vs " << lo;
    EXPECT_LT(bl, plan_scheme("none", bs, 16, {}).wire_bytes) << lo;
  };
  REQUIRE_SCHEME("topk:k=0.01");
  check("topk:k=0.001", "topk:k=0.01");
  check("topk:k=0.01", "topk:k=0.1");
  check("powersgd:rank=4", "powersgd:rank=8");
  check("randomk:k=0.001", "randomk:k=0.01");
  check("topkc:k=0.001", "topkc:k=0.01");
}

TEST(SchemeCost, AllGatherSchemesAreNotAllReduceOnly) {
  REQUIRE_SCHEME("topk:k=0.01");
  auto p = plan_scheme("topk:k=0.01", two_buckets(), 4, fits_for({"topk:k=0.01"}));
  EXPECT_FALSE(p.allreduce_only);
  EXPECT_GT(p.compression_ratio(), 1.0);
}

TEST(SchemeCost, WireBytesMatchDirectCountsForEveryRegisteredScheme) {
  auto bs = plan_buckets({{"w", {1000, 300}}, {"b", {1000}}, {"w2", {512, 512}}, {"v", {7}}});
  int n = 0;
  for (const auto& info : compress::Registry::instance().list()) {
    std::unique_ptr<compress::Compressor> c;
    try {
      c = compress::make_compressor(info.name);
    } catch (const compress::CompressorError&) {
      continue;  // needs parameters without defaults
    }
    for (int p : {1, 4, 32}) {
      auto plan = plan_scheme(info.name, bs, p, fits_for({c->spec()}));
      double direct = 0;
      size_t calls = 0;
      for (const auto& b : bs) {
        direct += double(c->wire_bytes(b.layout, p));
        calls += c->plan(b.layout, p).size();
      }
      EXPECT_DOUBLE_EQ(plan.wire_bytes, direct) << info.name << " p=" << p;
      EXPECT_EQ(plan.calls.size(), calls) << info.name;
      EXPECT_GT(plan.wire_bytes, 0.0) << info.name;
      EXPECT_EQ(plan.traits.biased, c->traits().biased) << info.name;
    }
    ++n;
  }
  EXPECT_GE(n, 1);
}

TEST(SchemeCost, ClearErrors) {
  auto bs = two_buckets();
  try {
    plan_scheme("nosuchscheme", bs, 4, {});
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchscheme"), std::string::npos);
  }
  REQUIRE_SCHEME("fp16");
  try {
    plan_scheme("fp16", bs, 4, fits_for({"bf16"}));
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("compressors.\"fp16\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcu::model
