// Tests for trainer/models/cnn.cpp: shapes, size, and that it learns Fashion-MNIST.
#include "data/test_data.h"
#include "trainer/models/registry.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

TEST(Cnn, ForwardGivesLogitsPerClass) {
  const auto net = make_net("cnn");
  const auto out = net->forward(torch::randn({3, 1, 28, 28}));
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 10}));
  // Small enough for fast CPU runs, large enough to be worth compressing.
  EXPECT_GT(net->num_parameters(), 100'000);
  EXPECT_LT(net->num_parameters(), 400'000);
}

TEST(Cnn, OtherGeometries) {
  const auto net = make_net("cnn:channels=3,image=32,classes=4");
  EXPECT_EQ(net->forward(torch::randn({2, 3, 32, 32})).sizes().vec(),
            (std::vector<int64_t>{2, 4}));
}

TEST(Cnn, LossFallsOnFashionMnist) {
  GCU_REQUIRE_FASHION_MNIST();
  torch::manual_seed(0);
  const auto net = make_net("cnn");
  ShardedLoader loader(testing::test_split(true), LoaderOptions{.batch_size = 64, .seed = 1});
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  std::vector<double> losses;
  for (int step = 0; step < 30; ++step) {
    const auto batch = loader.next_batch();
    opt.zero_grad();
    const auto loss = torch::nn::functional::cross_entropy(net->forward(batch.input), batch.target);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  const double first = (losses[0] + losses[1] + losses[2] + losses[3] + losses[4]) / 5;
  const double last = (losses[25] + losses[26] + losses[27] + losses[28] + losses[29]) / 5;
  EXPECT_GT(first, 1.8);         // ~ln(10) = 2.30 at random initialisation
  EXPECT_LT(last, 0.7 * first);  // and clearly learning after 30 steps
}

}  // namespace
}  // namespace gcu::trainer
