// Tests of the scheme descriptions behind `gcu schemes` (compressors/describe.h).
#include "compressors/describe.h"
#include "compressors/registry.h"

#include <gtest/gtest.h>

using namespace gcu::compress;

TEST(Describe, WireBytesAndRatioComeFromThePlan) {
  const auto layout = BucketLayout::flat(10000);
  auto d = describe_scheme("topk:k=0.01", layout, 4);
  EXPECT_EQ(d.name, "topk");
  EXPECT_EQ(d.spec, "topk:k=0.01");
  EXPECT_EQ(d.wire_bytes, 800);
  EXPECT_EQ(d.fp32_bytes, 40000);
  EXPECT_DOUBLE_EQ(d.ratio, 50.0);
  EXPECT_EQ(format_calls(d.calls),
            "all-gather f32 x 100 (values) + all-gather i32 x 100 (indices)");
  auto e = describe_scheme("ef(topk:k=0.01)", layout, 4);
  EXPECT_EQ(e.name, "topk");
  EXPECT_EQ(e.wire_bytes, d.wire_bytes);
  EXPECT_TRUE(e.traits.error_feedback);
  EXPECT_EQ(format_calls({}), "-");
}

TEST(Describe, AllRegisteredSchemesAreListed) {
  const auto all = describe_all(BucketLayout::flat(1000), 2);
  EXPECT_EQ(all.size(), Registry::instance().list().size());
  for (const auto& d : all) EXPECT_GT(d.wire_bytes, 0) << d.spec;
  EXPECT_THROW(describe_scheme("none", BucketLayout::flat(1), 0), CompressorError);
  EXPECT_THROW(describe_scheme("nosuch", BucketLayout::flat(1), 2), CompressorError);
}

TEST(Describe, ParseLayout) {
  const auto l = parse_layout("20x30,7,2x3x4");
  ASSERT_EQ(l.shapes.size(), 3u);
  EXPECT_EQ(l.shapes[0], (std::vector<int64_t>{20, 30}));
  EXPECT_EQ(l.numel(), 600 + 7 + 24);
  for (const char* bad : {"", "0x3", "ax2", "3,,4", "4x", "-1"})
    EXPECT_THROW(parse_layout(bad), CompressorError) << bad;
}
