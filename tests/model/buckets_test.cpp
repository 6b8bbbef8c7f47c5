// DDP bucket assignment (model/buckets.h): 1 MiB first bucket, 25 MiB cap, oversized
// tensors, scalars.
#include "model/buckets.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

std::vector<std::vector<int>> members(const std::vector<Bucket>& bs) {
  std::vector<std::vector<int>> out;
  for (const auto& b : bs) out.push_back(b.tensors);
  return out;
}

TEST(Buckets, FirstBucketOneMiBThenCap) {
  // Elements -> bytes: 200000 -> 800000, 100000 -> 400000 (together 1.2e6 >= 1 MiB: close);
  // 5e6 -> 20e6, 2e6 -> 8e6 (28e6 >= 25 MiB = 26214400: close); 10e6 -> 40e6 alone (>= cap);
  // 1000 -> 4000 left over in the last bucket.
  std::vector<TensorInfo> t = {{"a", {200000}}, {"b", {100000}}, {"c", {5000000}},
                               {"d", {1000, 2000}}, {"e", {10000000}}, {"f", {10, 100}}};
  auto bs = plan_buckets(t);
  EXPECT_EQ(members(bs), (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4}, {5}}));
  EXPECT_DOUBLE_EQ(bs[0].bytes, 1.2e6);
  EXPECT_EQ(bs[1].numel, 7000000);
  EXPECT_DOUBLE_EQ(bs[2].bytes, 40e6);
  ASSERT_EQ(bs[1].layout.shapes.size(), 2u);
  EXPECT_EQ(bs[1].layout.shapes[1], (std::vector<int64_t>{1000, 2000}));
  EXPECT_EQ(bs[3].layout.numel(), 1000);
}

TEST(Buckets, OversizedTensorJoinsOpenBucketLikePyTorch) {
  // PyTorch's compute_bucket_assignment_by_size: a tensor >= the cap is appended to the
  // open bucket and closes it; it sits alone only when it opens a bucket.
  std::vector<TensorInfo> t = {{"small", {1000}}, {"huge", {10000000}}, {"tail", {5}}, {"huge2", {7000000}}};
  EXPECT_EQ(members(plan_buckets(t)), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  std::vector<TensorInfo> u = {{"first", {300000}}, {"huge", {10000000}}, {"tail", {5}}};
  EXPECT_EQ(members(plan_buckets(u)), (std::vector<std::vector<int>>{{0}, {1}, {2}}));
}

TEST(AssignDdpBuckets, ScalarsAndEmptyTensorsAndElementSizes) {
  // 0-d tensors count one element; numel 0 adds no bytes; bytes = numel * element bytes.
  EXPECT_EQ(assign_ddp_buckets({{1, 4}, {0, 4}, {250, 4}, {1, 4}}, 1000, 2000),
            (std::vector<std::vector<int>>{{0, 1, 2}, {3}}));  // 4+0+1000 >= 1000
  EXPECT_EQ(assign_ddp_buckets({{250, 2}, {250, 2}, {600, 2}}, 1000, 1500),
            (std::vector<std::vector<int>>{{0, 1}, {2}}));  // 500+500 closes; 1200 < 1500
  EXPECT_EQ(bucket_shape({}), (std::vector<int64_t>{1}));
  EXPECT_EQ(bucket_shape({3, 4}), (std::vector<int64_t>{3, 4}));
  const auto bs = plan_buckets({{"scale", {}}, {"w", {2, 3}}});
  ASSERT_EQ(bs.size(), 1u);
  EXPECT_EQ(bs[0].layout.shapes[0], (std::vector<int64_t>{1}));
  EXPECT_EQ(bs[0].numel, 7);
  EXPECT_DOUBLE_EQ(bs[0].bytes, 28);
  EXPECT_THROW(assign_ddp_buckets({{-1, 4}}, 10, 10), ModelError);
  EXPECT_THROW(assign_ddp_buckets({{1, 4}}, 10, 0), ModelError);
}

TEST(Buckets, ConfigurableCaps) {
  std::vector<TensorInfo> t(10, TensorInfo{"x", {250}});  // 1000 B each
  BucketOptions o;
  o.first_bucket_bytes = 1000;
  o.bucket_cap_bytes = 3000;
  EXPECT_EQ(members(plan_buckets(t, o)),
            (std::vector<std::vector<int>>{{0}, {1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
}

TEST(Buckets, EveryTensorExactlyOnceInOrder) {
  std::vector<TensorInfo> t;
  for (int i = 0; i < 50; ++i) t.push_back({"t", {int64_t(1) << (i % 23)}});
  int next = 0;
  for (const auto& b : plan_buckets(t))
    for (int i : b.tensors) EXPECT_EQ(i, next++);
  EXPECT_EQ(next, 50);
}

TEST(Buckets, BadInputs) {
  EXPECT_THROW(plan_buckets({{"bad", {3, 0}}}), ModelError);
  BucketOptions o;
  o.bucket_cap_bytes = 0;
  EXPECT_THROW(plan_buckets({{"x", {3}}}, o), ModelError);
  EXPECT_TRUE(plan_buckets({}).empty());
}

}  // namespace
}  // namespace gcu::model
