// Tests for trainer/models/vgg.cpp: torchvision parameter counts and layout.
#include "trainer/models/registry.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

// Parameter count of torchvision.models.vgg19() (1000 classes).
TEST(Vgg, ParameterCountMatchesTorchvision) {
  const auto net = make_net("vgg19");
  EXPECT_EQ(net->num_parameters(), 143'667'240);
  const auto params = net->parameter_list();
  ASSERT_EQ(params.size(), 38u);  // 16 conv + 3 linear, weight and bias each
  EXPECT_EQ(params.front().name, "features.0.weight");
  EXPECT_EQ(params[2].name, "features.2.weight");  // conv, ReLU, conv
  EXPECT_EQ(params[32].name, "classifier.0.weight");
  EXPECT_EQ(params[32].shape, (std::vector<int64_t>{4096, 25088}));
  EXPECT_EQ(params.back().name, "classifier.6.bias");
}

TEST(Vgg, BatchNormVariantRunsOnSmallImages) {
  // One construction for both checks: each VGG allocates ~0.5 GB and takes seconds.
  const auto net = make_net("vgg19_bn:classes=10,image=32");
  // 16 BN layers over 2*64 + 2*128 + 4*256 + 8*512 channels, weight and bias each.
  const int64_t bn = 2 * (2 * 64 + 2 * 128 + 4 * 256 + 8 * 512);
  EXPECT_EQ(net->num_parameters(), 143'667'240 - 4096 * 990 - 990 + bn);
  net->eval();
  const auto out = net->forward(torch::randn({1, 3, 32, 32}));
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{1, 10}));
  EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
}

}  // namespace
}  // namespace gcu::trainer
