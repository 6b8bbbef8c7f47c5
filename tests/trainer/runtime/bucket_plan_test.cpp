// The model's DDP bucket plan equals the trainer's buckets (model/buckets.h is the one
// bucket rule, trainer/runtime/reducer.h uses it): for every network in the trainer's
// registry, plan_buckets over the net's profile layout (parameter_shapes_json: backward
// order, what `gcu calibrate` and the shipped profiles list) gives the same buckets,
// with the same tensors in the same order and the same layouts, as the Reducer builds
// over the net's parameters.
#include "model/buckets.h"
#include "trainer/models/registry.h"
#include "trainer/runtime/reducer.h"

#include "compressors/local_group.h"
#include "compressors/registry.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

namespace gcu::trainer {
namespace {

struct Plans {
  std::vector<model::TensorInfo> tensors;  // profile order (backward)
  std::vector<model::Bucket> model_plan;
  std::vector<std::string> param_names;    // registration order
  std::vector<BucketSpec> reducer_buckets;
};

Plans plans_of(Net& net, const ReducerOptions& ro) {
  Plans out;
  for (const auto& t : parameter_shapes_json(net))
    out.tensors.push_back({t.at("name").get<std::string>(), t.at("shape").get<std::vector<int64_t>>()});
  model::BucketOptions bo;
  bo.first_bucket_bytes = static_cast<model::Bytes>(ro.first_bucket_bytes);
  bo.bucket_cap_bytes = static_cast<model::Bytes>(ro.bucket_cap_bytes);
  out.model_plan = model::plan_buckets(out.tensors, bo);
  for (const auto& p : net.parameter_list()) out.param_names.push_back(p.name);
  compress::LocalGroup group(1);
  group.run([&](compress::Communicator& comm) {
    auto none = compress::make_compressor("none");
    Reducer reducer(net.parameters(), *none, comm, ro);
    out.reducer_buckets = reducer.buckets();
  });
  return out;
}

// Same buckets, tensors (by name) in the same order, same layouts and sizes.
void expect_same(const Plans& p, const std::string& what) {
  ASSERT_EQ(p.model_plan.size(), p.reducer_buckets.size()) << what;
  for (size_t b = 0; b < p.model_plan.size(); ++b) {
    const auto& m = p.model_plan[b];
    const auto& r = p.reducer_buckets[b];
    ASSERT_EQ(m.tensors.size(), r.params.size()) << what << " bucket " << b;
    for (size_t s = 0; s < m.tensors.size(); ++s)
      EXPECT_EQ(p.tensors[m.tensors[s]].name, p.param_names[r.params[s]]) << what << " bucket " << b << " slot " << s;
    EXPECT_EQ(m.layout.shapes, r.layout.shapes) << what << " bucket " << b;
    EXPECT_EQ(m.numel, r.numel()) << what << " bucket " << b;
  }
}

TEST(BucketPlan, ModelPlanEqualsReducerBucketsForEveryShippedModel) {
  const ReducerOptions defaults;  // 1 MiB first bucket, 25 MiB cap, as DDP
  bool saw_oversized_join = false;
  for (const auto& name : known_models()) {
    torch::manual_seed(0);
    auto net = make_net(name);
    const Plans p = plans_of(*net, defaults);
    expect_same(p, name);
    int64_t planned = 0;  // every parameter in exactly one bucket
    for (const auto& b : p.model_plan) planned += b.numel;
    EXPECT_EQ(planned, net->num_parameters()) << name;
    if (name != "cnn") EXPECT_GE(p.model_plan.size(), 2u) << name;  // the CNN (~0.8 MiB) fits the first bucket
    for (const auto& b : p.model_plan)
      for (int t : b.tensors)
        if (b.tensors.size() > 1 && p.tensors[t].numel() * 4 >= defaults.bucket_cap_bytes) saw_oversized_join = true;
  }
  // VGG-19's 25088x4096 classifier weight (392 MiB) joins the open bucket (PyTorch's rule).
  EXPECT_TRUE(saw_oversized_join);
}

struct WithScalar : torch::nn::Module {
  WithScalar() {
    w = register_parameter("w", torch::ones({20, 30}));
    b = register_parameter("b", torch::zeros({20}));
    scale = register_parameter("scale", torch::ones({}));
  }
  torch::Tensor w, b, scale;
};

TEST(BucketPlan, ScalarParameterIsOneElementInBoth) {
  WithScalar net;
  std::vector<model::TensorInfo> tensors;
  auto items = net.named_parameters().items();
  for (auto it = items.rbegin(); it != items.rend(); ++it) tensors.push_back({it->key(), it->value().sizes().vec()});
  model::BucketOptions bo;
  bo.first_bucket_bytes = 80;
  bo.bucket_cap_bytes = 2000;
  const auto plan = model::plan_buckets(tensors, bo);
  std::vector<BucketSpec> got;
  compress::LocalGroup group(1);
  group.run([&](compress::Communicator& comm) {
    auto none = compress::make_compressor("none");
    ReducerOptions ro;
    ro.first_bucket_bytes = 80;
    ro.bucket_cap_bytes = 2000;
    ro.mode = ReduceMode::After;
    Reducer reducer(net.parameters(), *none, comm, ro);
    got = reducer.buckets();
  });
  // Backward order: scale (one element, 4 B) + b (80 B) >= 80 closes the first bucket;
  // w (2400 B) alone.
  ASSERT_EQ(plan.size(), 2u);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(plan[0].tensors, (std::vector<int>{0, 1}));
  EXPECT_EQ(got[0].params, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(got[0].layout.shapes, (std::vector<std::vector<int64_t>>{{1}, {20}}));
  EXPECT_EQ(plan[0].layout.shapes, got[0].layout.shapes);
  EXPECT_EQ(got[0].offsets, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(got[1].params, (std::vector<int64_t>{0}));
  EXPECT_EQ(plan[1].layout.shapes, got[1].layout.shapes);
}

}  // namespace
}  // namespace gcu::trainer
