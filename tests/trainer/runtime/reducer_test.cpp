// Tests for the DDP-like reducer (trainer/runtime/reducer.h), with ranks as threads of
// one process (compressors/local_group.h): averaged gradients equal the mean of the
// ranks' own gradients, in both modes and with several buckets.
#include "trainer/runtime/reducer.h"

#include "compressors/local_group.h"
#include "compressors/registry.h"
#include "trainer/runtime/train_options.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <mutex>

namespace gcu::trainer {
namespace {

TEST(AssignBuckets, FollowsDdpRuleInReverseOrder) {
  // 4-byte floats: 300 B, 1200 B, 40 B, 2000 B; first bucket 1000 B, cap 1500 B.
  const auto b = assign_buckets({{75}, {300}, {10}, {500}}, 1000, 1500);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].params, (std::vector<int64_t>{3}));        // 2000 B >= 1000: closes alone
  EXPECT_EQ(b[1].params, (std::vector<int64_t>{2, 1, 0}));  // 40+1200 < 1500, +300 >= 1500
  EXPECT_EQ(b[1].offsets, (std::vector<int64_t>{0, 10, 310}));
  EXPECT_EQ(b[1].numel(), 385);
  EXPECT_THROW(assign_buckets({{1}}, 0, 10), TrainError);
}

struct Tiny : torch::nn::Module {
  Tiny() {
    a = register_module("a", torch::nn::Linear(8, 16));
    b = register_module("b", torch::nn::Linear(16, 4));
    unused = register_parameter("unused", torch::zeros({3}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return b->forward(torch::tanh(a->forward(x))); }
  torch::nn::Linear a{nullptr}, b{nullptr};
  torch::Tensor unused;
};

// Per-rank gradients without any reducer, then the reducer's averaged ones. views:
// gradients stay bucket views (Reducer::zero_grad), else they are set to undefined
// before each backward (LibTorch 2.x's Optimizer::zero_grad): the copying path.
void check_average(ReduceMode mode, int world, bool views = false) {
  std::vector<std::vector<torch::Tensor>> own(world), reduced(world);
  std::mutex mu;
  compress::LocalGroup group(world);
  group.run([&](compress::Communicator& comm) {
    const int r = comm.rank();
    torch::manual_seed(7);
    Tiny net;
    auto x = torch::randn({5, 8}, torch::TensorOptions().dtype(torch::kFloat))
                 .add(static_cast<double>(r));  // different data per rank
    std::vector<torch::Tensor> params = net.parameters();
    auto none = compress::make_compressor("none");
    ReducerOptions ro;
    ro.first_bucket_bytes = 64;   // several buckets
    ro.bucket_cap_bytes = 300;
    ro.mode = mode;
    Reducer reducer(params, *none, comm, ro);
    EXPECT_GE(reducer.buckets().size(), 3u);
    for (int it = 0; it < 2; ++it) {  // twice: state is reset between iterations
      for (auto& p : params) p.mutable_grad() = torch::Tensor();
      net.forward(x).pow(2).sum().backward();
      std::vector<torch::Tensor> mine;
      for (auto& p : params) mine.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
      if (views) reducer.zero_grad();
      else for (auto& p : params) p.mutable_grad() = torch::Tensor();
      reducer.begin_iteration();
      net.forward(x).pow(2).sum().backward();
      const auto times = reducer.finish_iteration();
      // Afterwards every gradient is a view of its bucket (no copy-back needed next time).
      for (size_t i = 0; i < params.size(); ++i)
        EXPECT_TRUE(reducer.gradient_is_bucket_view(static_cast<int64_t>(i))) << "parameter " << i;
      EXPECT_GT(times.steps.collectives, 0);
      std::lock_guard<std::mutex> lk(mu);
      own[r] = mine;
      reduced[r].clear();
      for (auto& p : params) reduced[r].push_back(p.grad().clone());
    }
  });
  for (size_t i = 0; i < own[0].size(); ++i) {
    auto mean = torch::zeros_like(own[0][i]);
    for (int r = 0; r < world; ++r) mean += own[r][i];
    mean /= world;
    for (int r = 0; r < world; ++r)
      EXPECT_TRUE(torch::allclose(reduced[r][i], mean, 1e-5, 1e-6)) << "param " << i << " rank " << r;
  }
}

TEST(Reducer, OverlapAveragesGradients) { check_average(ReduceMode::Overlap, 2); }
TEST(Reducer, AfterAveragesGradients) { check_average(ReduceMode::After, 3); }
TEST(Reducer, OverlapAveragesGradientsAsBucketViews) { check_average(ReduceMode::Overlap, 2, true); }
TEST(Reducer, AfterAveragesGradientsAsBucketViews) { check_average(ReduceMode::After, 2, true); }

TEST(Reducer, RejectsNonLeafAndNonFloat) {
  compress::LocalGroup group(1);
  group.run([&](compress::Communicator& comm) {
    auto none = compress::make_compressor("none");
    auto d = torch::zeros({3}, torch::kDouble).requires_grad_(true);
    EXPECT_THROW(Reducer({d}, *none, comm), TrainError);
    auto nl = torch::zeros({3}).requires_grad_(true) * 2;
    EXPECT_THROW(Reducer({nl}, *none, comm), TrainError);
  });
}

TEST(Reducer, ParseMode) {
  EXPECT_EQ(parse_reduce_mode("after"), ReduceMode::After);
  EXPECT_THROW(parse_reduce_mode("later"), TrainError);
}

}  // namespace
}  // namespace gcu::trainer
