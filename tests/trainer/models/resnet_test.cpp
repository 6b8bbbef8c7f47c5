// Tests for trainer/models/resnet.cpp: torchvision parameter counts and layout, and a
// forward pass on Fashion-MNIST-sized inputs.
#include "trainer/models/registry.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

// Parameter counts of torchvision.models.resnet{18,50,101}() (1000 classes).
TEST(ResNet, ParameterCountsMatchTorchvision) {
  EXPECT_EQ(make_net("resnet18")->num_parameters(), 11'689'512);
  EXPECT_EQ(make_net("resnet50")->num_parameters(), 25'557'032);
  EXPECT_EQ(make_net("resnet101")->num_parameters(), 44'549'160);
}

TEST(ResNet, ParameterNamesFollowTorchvision) {
  const auto params = make_net("resnet50")->parameter_list();
  ASSERT_EQ(params.size(), 161u);  // torchvision resnet50: 161 parameter tensors
  EXPECT_EQ(params.front().name, "conv1.weight");
  EXPECT_EQ(params.front().shape, (std::vector<int64_t>{64, 3, 7, 7}));
  EXPECT_EQ(params[1].name, "bn1.weight");
  EXPECT_EQ(params[3].name, "layer1.0.conv1.weight");
  EXPECT_EQ(params.back().name, "fc.bias");
  bool has_downsample = false;
  for (const auto& p : params) {
    if (p.name == "layer2.0.downsample.0.weight") {
      has_downsample = true;
      EXPECT_EQ(p.shape, (std::vector<int64_t>{512, 256, 1, 1}));
    }
  }
  EXPECT_TRUE(has_downsample);
}

TEST(ResNet, Resnet18RunsOnFashionMnistShapes) {
  const auto net = make_net("resnet18:channels=1,classes=10,image=28");
  EXPECT_EQ(net->input_shape(2), (std::vector<int64_t>{2, 1, 28, 28}));
  const auto batch = net->make_synthetic_batch(2, torch::kCPU, 0);
  const auto out = net->forward(batch.input);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 10}));
  EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
  // Only conv1 and fc change: 11,689,512 - 64*3*49 + 64*49 - (512*1000+1000) + (512*10+10).
  EXPECT_EQ(net->num_parameters(), 11'689'512 - 2 * 64 * 49 - 990 * 513);
}

TEST(ResNet, BatchNormStatisticsAreBuffersNotParameters) {
  const auto net = make_net("resnet18:channels=1,classes=10,image=28");
  int64_t running = 0;
  for (const auto& b : net->named_buffers()) {
    if (b.key().find("running_mean") != std::string::npos) ++running;
  }
  EXPECT_EQ(running, 20);  // 17 conv+bn pairs in the trunk + 3 downsample BNs
}

}  // namespace
}  // namespace gcu::trainer
