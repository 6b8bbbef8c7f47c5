// Tests for trainer/models/net.cpp: synthetic batches, parameter lists, the JSON dump.
#include "trainer/models/registry.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

TEST(Net, SyntheticImageBatchHasModelShapeAndIsSeeded) {
  const auto net = make_net("cnn:classes=7");
  const auto a = net->make_synthetic_batch(5, torch::kCPU, 42);
  const auto b = net->make_synthetic_batch(5, torch::kCPU, 42);
  const auto c = net->make_synthetic_batch(5, torch::kCPU, 43);
  EXPECT_EQ(a.input.sizes().vec(), (std::vector<int64_t>{5, 1, 28, 28}));
  EXPECT_EQ(a.input.scalar_type(), torch::kFloat32);
  EXPECT_EQ(a.target.sizes().vec(), (std::vector<int64_t>{5}));
  EXPECT_EQ(a.target.scalar_type(), torch::kInt64);
  EXPECT_TRUE(torch::equal(a.input, b.input));
  EXPECT_TRUE(torch::equal(a.target, b.target));
  EXPECT_FALSE(torch::equal(a.input, c.input));
  EXPECT_GE(a.target.min().item<int64_t>(), 0);
  EXPECT_LT(a.target.max().item<int64_t>(), 7);
  // The global generator plays no part.
  torch::manual_seed(1);
  const auto d = net->make_synthetic_batch(5, torch::kCPU, 42);
  EXPECT_TRUE(torch::equal(a.input, d.input));
}

TEST(Net, SyntheticTokenBatchIsInVocabulary) {
  const auto net = make_net("bert:layers=1,hidden=16,heads=2,vocab=50,seq=12,classes=3");
  const auto batch = net->make_synthetic_batch(4, torch::kCPU, 0);
  EXPECT_EQ(batch.input.sizes().vec(), (std::vector<int64_t>{4, 12}));
  EXPECT_EQ(batch.input.scalar_type(), torch::kInt64);
  EXPECT_GE(batch.input.min().item<int64_t>(), 0);
  EXPECT_LT(batch.input.max().item<int64_t>(), 50);
  EXPECT_LT(batch.target.max().item<int64_t>(), 3);
  EXPECT_EQ(net->input_kind(), InputKind::kTokens);
}

TEST(Net, ParameterListFollowsRegistrationOrder) {
  const auto net = make_net("cnn");
  const auto params = net->parameter_list();
  std::vector<std::string> names;
  int64_t total = 0;
  for (const auto& p : params) {
    names.push_back(p.name);
    int64_t numel = 1;
    for (const auto d : p.shape) numel *= d;
    EXPECT_EQ(numel, p.numel) << p.name;
    total += p.numel;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"conv1.weight", "conv1.bias", "conv2.weight",
                                             "conv2.bias", "fc1.weight", "fc1.bias",
                                             "fc2.weight", "fc2.bias"}));
  EXPECT_EQ(params[0].shape, (std::vector<int64_t>{16, 1, 3, 3}));
  EXPECT_EQ(params[4].shape, (std::vector<int64_t>{128, 32 * 7 * 7}));
  EXPECT_EQ(total, net->num_parameters());
}

TEST(Net, ParameterShapesJsonIsInBackwardOrder) {
  const auto net = make_net("cnn");
  const auto params = net->parameter_list();
  const auto json = parameter_shapes_json(*net);
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[params.size() - 1 - i];
    EXPECT_EQ(json[i]["name"], p.name);
    EXPECT_EQ(json[i]["shape"].get<std::vector<int64_t>>(), p.shape);
    EXPECT_EQ(json[i]["numel"].get<int64_t>(), p.numel);
  }
  EXPECT_EQ(json[0]["name"], "fc2.bias");
}

}  // namespace
}  // namespace gcu::trainer
