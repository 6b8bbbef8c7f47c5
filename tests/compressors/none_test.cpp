#include "compressors/local_group.h"
#include "compressors/registry.h"

#include <gtest/gtest.h>

using namespace gcu::compress;

TEST(None, StepAveragesOverRanksAndPlanMatchesBytes) {
  const int p = 4;
  const auto layout = BucketLayout{{{3, 2}, {5}}};
  LocalGroup g(p);
  g.run([&](Communicator& c) {
    auto comp = make_compressor("none");
    std::vector<float> x(layout.numel());
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(c.rank() + i);
    comp->step({0, x.data(), &layout}, c);
    for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(x[i], 1.5f + i);
  });
  EXPECT_EQ(make_compressor("none")->wire_bytes(layout, p), 11 * 4);
}
