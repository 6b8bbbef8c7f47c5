// Tests for trainer/models/bert.cpp: BERT-base parameter count and HF layout, and a
// forward pass of a small configuration.
#include "trainer/models/registry.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

// BertForSequenceClassification(bert-base-uncased, num_labels=2) has 109,483,778.
TEST(Bert, BaseParameterCountMatchesHuggingFace) {
  const auto net = make_net("bert");
  EXPECT_EQ(net->num_parameters(), 109'483'778);
  const auto params = net->parameter_list();
  ASSERT_EQ(params.size(), 5u + 12u * 16u + 4u);
  EXPECT_EQ(params[0].name, "embeddings.word_embeddings.weight");
  EXPECT_EQ(params[0].shape, (std::vector<int64_t>{30522, 768}));
  EXPECT_EQ(params[3].name, "embeddings.LayerNorm.weight");
  EXPECT_EQ(params[5].name, "encoder.layer.0.attention.self.query.weight");
  EXPECT_EQ(params[11].name, "encoder.layer.0.attention.output.dense.weight");
  EXPECT_EQ(params[15].name, "encoder.layer.0.intermediate.dense.weight");
  EXPECT_EQ(params[15].shape, (std::vector<int64_t>{3072, 768}));
  EXPECT_EQ(params[20].name, "encoder.layer.0.output.LayerNorm.bias");
  EXPECT_EQ(params[params.size() - 4].name, "pooler.dense.weight");
  EXPECT_EQ(params.back().name, "classifier.bias");
  EXPECT_EQ(params.back().shape, (std::vector<int64_t>{2}));
}

TEST(Bert, SmallConfigurationForward) {
  const auto net = make_net("bert:layers=2,hidden=32,heads=4,seq=16,vocab=100,classes=3");
  EXPECT_EQ(net->input_shape(5), (std::vector<int64_t>{5, 16}));
  const auto batch = net->make_synthetic_batch(5, torch::kCPU, 3);
  const auto out = net->forward(batch.input);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{5, 3}));
  EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
  // Gradients reach every parameter.
  torch::nn::functional::cross_entropy(out, batch.target).backward();
  for (const auto& p : net->named_parameters()) {
    EXPECT_TRUE(p.value().grad().defined()) << p.key();
  }
}

TEST(Bert, AttentionUsesEveryPosition) {
  // Changing the last token changes the pooled (first-token) output: attention mixes
  // positions. With dropout off the forward pass is deterministic.
  const auto net = make_net("bert:layers=1,hidden=16,heads=2,seq=8,vocab=20,dropout=0");
  auto ids = torch::randint(0, 20, {1, 8}, torch::kInt64);
  const auto a = net->forward(ids);
  const auto b = net->forward(ids);
  EXPECT_TRUE(torch::equal(a, b));
  ids[0][7] = (ids[0][7].item<int64_t>() + 1) % 20;
  EXPECT_FALSE(torch::allclose(a, net->forward(ids)));
}

}  // namespace
}  // namespace gcu::trainer
