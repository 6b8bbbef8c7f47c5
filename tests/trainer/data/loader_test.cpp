// Tests for trainer/data/loader.cpp: per-rank shards, epochs, seeking, evaluation
// passes and synthetic sources.
#include "data/test_data.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

// A fake split of n images whose pixel [0,0] and label encode the index.
FashionMnist fake_split(int64_t n) {
  FashionMnist data;
  data.labels = torch::arange(n, torch::kInt64);
  data.images = torch::zeros({n, 1, 28, 28}, torch::kUInt8);
  data.images.select(3, 0).select(2, 0).select(1, 0).copy_(data.labels.remainder(256));
  return data;
}

TEST(ShardedLoader, ShardsAreDisjointEqualAndCoverTheTruncatedSet) {
  const auto data = fake_split(1003);
  const int64_t world = 4;
  std::vector<torch::Tensor> shards;
  for (int64_t r = 0; r < world; ++r) {
    ShardedLoader loader(data, {.rank = r, .world_size = world, .batch_size = 16, .seed = 9});
    EXPECT_EQ(loader.shard_size(), 250);
    EXPECT_EQ(loader.batches_per_epoch(), 15);
    shards.push_back(loader.shard_indices(0));
  }
  const auto all = torch::cat(shards);
  EXPECT_EQ(all.numel(), 1000);
  EXPECT_EQ(std::get<0>(torch::unique_consecutive(std::get<0>(all.sort()))).numel(), 1000);  // disjoint
  EXPECT_LT(all.max().item<int64_t>(), 1003);
}

TEST(ShardedLoader, RanksTogetherEqualOneBigBatch) {
  const auto data = fake_split(640);
  ShardedLoader single(data, {.world_size = 1, .batch_size = 64, .seed = 5});
  std::vector<std::unique_ptr<ShardedLoader>> ranks;
  for (int64_t r = 0; r < 2; ++r) {
    ranks.push_back(std::make_unique<ShardedLoader>(
        data, LoaderOptions{.rank = r, .world_size = 2, .batch_size = 32, .seed = 5}));
  }
  for (int step = 0; step < 25; ++step) {  // crosses an epoch boundary (10 per epoch)
    const auto big = single.next_batch().target;
    const auto a = ranks[0]->next_batch().target;
    const auto b = ranks[1]->next_batch().target;
    const auto joined = std::get<0>(torch::sort(torch::cat({a, b})));
    EXPECT_TRUE(torch::equal(joined, std::get<0>(torch::sort(big)))) << "step " << step;
  }
  EXPECT_EQ(single.epoch(), 2);
}

TEST(ShardedLoader, EpochsReshuffleDeterministically) {
  const auto data = fake_split(500);
  ShardedLoader a(data, {.rank = 1, .world_size = 2, .batch_size = 10, .seed = 3});
  ShardedLoader b(data, {.rank = 1, .world_size = 2, .batch_size = 10, .seed = 3});
  ShardedLoader c(data, {.rank = 1, .world_size = 2, .batch_size = 10, .seed = 4});
  EXPECT_TRUE(torch::equal(a.shard_indices(0), b.shard_indices(0)));
  EXPECT_FALSE(torch::equal(a.shard_indices(0), a.shard_indices(1)));
  EXPECT_FALSE(torch::equal(a.shard_indices(0), c.shard_indices(0)));
  // Input pixels follow the same indices as the labels.
  const auto batch = a.next_batch();
  const auto marker = (batch.input.select(3, 0).select(2, 0).select(1, 0) * kFashionMnistStd +
                       kFashionMnistMean) * 255.0;
  EXPECT_TRUE(torch::allclose(marker.round(), batch.target.remainder(256).to(torch::kFloat32)));
}

TEST(ShardedLoader, SeekResumesTheSameStream) {
  const auto data = fake_split(300);
  ShardedLoader a(data, {.batch_size = 32, .seed = 2});
  for (int i = 0; i < 12; ++i) a.next_batch();  // 9 batches per epoch: now epoch 1, batch 3
  ShardedLoader b(data, {.batch_size = 32, .seed = 2});
  b.seek(a.epoch(), a.batch_in_epoch());
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(torch::equal(a.next_batch().target, b.next_batch().target));
  }
  EXPECT_THROW(b.seek(0, 10), DataError);
}

TEST(ShardedLoader, BadOptionsAreRejected) {
  const auto data = fake_split(100);
  EXPECT_THROW(ShardedLoader(data, {.rank = 2, .world_size = 2}), DataError);
  EXPECT_THROW(ShardedLoader(data, {.world_size = 0}), DataError);
  EXPECT_THROW(ShardedLoader(data, {.batch_size = 0}), DataError);
  try {
    ShardedLoader(data, {.world_size = 4, .batch_size = 64});
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("smaller than one batch of 64"), std::string::npos);
  }
}

TEST(ShardedLoader, RealShardsHaveLabelsInRange) {
  GCU_REQUIRE_FASHION_MNIST();
  ShardedLoader loader(testing::test_split(true), {.rank = 1, .world_size = 2, .batch_size = 64});
  EXPECT_EQ(loader.shard_size(), 30000);
  const auto batch = loader.next_batch();
  EXPECT_EQ(batch.input.sizes().vec(), (std::vector<int64_t>{64, 1, 28, 28}));
  EXPECT_GE(batch.target.min().item<int64_t>(), 0);
  EXPECT_LE(batch.target.max().item<int64_t>(), 9);
}

TEST(ShardedLoader, MatchesTheModelsInputGeometry) {
  LoaderOptions options;
  match_input_geometry(*make_net("resnet18:channels=3,image=32,classes=10"), options);
  EXPECT_EQ(options.channels, 3);
  EXPECT_EQ(options.image, 32);
  ShardedLoader loader(fake_split(64), options);
  const auto batch = loader.next_batch();
  EXPECT_EQ(batch.input.sizes().vec(), (std::vector<int64_t>{64, 3, 32, 32}));
  EXPECT_TRUE(torch::equal(batch.input.select(1, 0), batch.input.select(1, 2)));
  EXPECT_THROW(match_input_geometry(*make_net("bert:layers=1,hidden=16,heads=2,seq=8"), options),
               DataError);
}

TEST(EvalIterator, RanksSplitTheSetWithoutOverlap) {
  const auto data = fake_split(103);
  std::vector<torch::Tensor> seen;
  for (int64_t r = 0; r < 3; ++r) {
    EvalIterator it(data, 10, torch::kCPU, 28, r, 3);
    Batch batch;
    int64_t count = 0;
    while (it.next(batch)) {
      EXPECT_LE(batch.target.numel(), 10);
      count += batch.target.numel();
      seen.push_back(batch.target);
    }
    EXPECT_EQ(count, it.size());
    it.reset();
    EXPECT_TRUE(it.next(batch));
  }
  EXPECT_TRUE(torch::equal(torch::cat(seen), torch::arange(103, torch::kInt64)));
}

TEST(SyntheticSource, FixedInputFreshLabelsPerStepPerRank) {
  const auto net = make_net("cnn");
  SyntheticSource r0(*net, 8, torch::kCPU, 1, 0);
  SyntheticSource r1(*net, 8, torch::kCPU, 1, 1);
  const auto a = r0.next_batch();
  const auto b = r0.next_batch();
  EXPECT_EQ(a.input.sizes().vec(), net->input_shape(8));
  EXPECT_TRUE(torch::equal(a.input, b.input));
  EXPECT_FALSE(torch::equal(a.target, b.target));  // 10^-8 chance of a false failure
  EXPECT_GE(a.target.min().item<int64_t>(), 0);
  EXPECT_LT(a.target.max().item<int64_t>(), net->num_classes());
  const auto c = r1.next_batch();
  EXPECT_FALSE(torch::equal(a.input, c.input));
  EXPECT_FALSE(torch::equal(a.target, c.target));
  // fresh_labels = false (gcu train --data one-batch): the same labelled batch every step.
  SyntheticSource one(*net, 8, torch::kCPU, 1, 0, /*fresh_labels=*/false);
  const auto o1 = one.next_batch();
  EXPECT_TRUE(torch::equal(o1.input, a.input));
  EXPECT_TRUE(torch::equal(o1.target, one.next_batch().target));
}

TEST(SyntheticSource, SeekResumesTheLabelStream) {
  const auto net = make_net("cnn");
  SyntheticSource s(*net, 8, torch::kCPU, 3, 1);
  std::vector<torch::Tensor> labels;
  for (int i = 0; i < 5; ++i) labels.push_back(s.next_batch().target);
  SyntheticSource t(*net, 8, torch::kCPU, 3, 1);
  t.seek(3);
  EXPECT_TRUE(torch::equal(t.next_batch().target, labels[3]));
  EXPECT_TRUE(torch::equal(t.next_batch().target, labels[4]));
}

// One fixed labelled batch is memorized within ~50 steps,
// and CPU compute drifts as it is. Fresh labels keep the loss near ln(classes).
TEST(SyntheticSource, CannotBeMemorized) {
  auto final_loss = [](bool fresh) {
    torch::manual_seed(5);
    const auto net = make_net("cnn");
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
    SyntheticSource src(*net, 16, torch::kCPU, 7, 0);
    const Batch fixed = src.next_batch();
    double loss_v = 0;
    for (int i = 0; i < 80; ++i) {
      const Batch b = fresh ? src.next_batch() : fixed;
      opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net->forward(b.input), b.target);
      loss.backward();
      opt.step();
      loss_v = loss.item<double>();
    }
    return loss_v;
  };
  EXPECT_LT(final_loss(false), 0.5);  // one batch: memorized
  EXPECT_GT(final_loss(true), 1.5);   // ln(10) = 2.3
}

}  // namespace
}  // namespace gcu::trainer
