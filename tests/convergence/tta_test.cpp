// Convergence multipliers and TTA (convergence/tta.h), including "never reaches the target".
#include "convergence/tta.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

compress::SchemeTraits biased(bool ef) { return {true, ef, ef}; }
const compress::SchemeTraits kUnbiased{false, false, false};

Convergence conv() {
  Convergence c;
  c.baseline_iterations = 1000;
  return c;
}

TEST(Tta, Formulas) {
  EXPECT_DOUBLE_EQ(ef_multiplier(0.5, 1.0), 2.0);        // 1 + (1/0.5 - 1)
  EXPECT_DOUBLE_EQ(ef_multiplier(0.25, 0.5), 2.5);       // 1 + 0.5*3
  EXPECT_EQ(ef_multiplier(0.0, 1.0), kInf);
  EXPECT_DOUBLE_EQ(unbiased_multiplier(2.0, 4, 1.0), 1.5);  // 1 + 2/4
  EXPECT_DOUBLE_EQ(biased_multiplier(0.2, 1.0), 1.25);   // 1 + 0.2/0.8
  EXPECT_EQ(biased_multiplier(1.0, 1.0), kInf);
}

TEST(Tta, BaselinesNeedNoFigures) {
  for (const char* s : {"none", "fp16", "bf16"}) {
    auto e = iterations_to_target(conv(), s, {}, 8);
    EXPECT_EQ(e.status, TtaStatus::Reaches);
    EXPECT_DOUBLE_EQ(*e.iterations, 1000);
  }
  auto t = time_to_accuracy(iterations_to_target(conv(), "none", {}, 8), 0.25);
  EXPECT_DOUBLE_EQ(*t.tta_s, 250.0);
}

TEST(Tta, ErrorFeedbackUsesDelta) {
  Convergence c = conv();
  c.schemes["topk:k=0.01"] = {0.93, 0.5, true, std::nullopt, std::nullopt};
  auto e = iterations_to_target(c, "topk:k=0.01", biased(false), 8);
  EXPECT_EQ(e.status, TtaStatus::Reaches);
  EXPECT_DOUBLE_EQ(*e.multiplier, 2.0);  // delta = 1 - 0.5
  EXPECT_DOUBLE_EQ(*e.iterations, 2000);
}

TEST(Tta, UnbiasedVarianceShrinksWithWorkers) {
  Convergence c = conv();
  c.schemes["qsgd"] = {2.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_DOUBLE_EQ(*iterations_to_target(c, "qsgd", kUnbiased, 4).iterations, 1500);
  EXPECT_DOUBLE_EQ(*iterations_to_target(c, "qsgd", kUnbiased, 16).iterations, 1125);
}

TEST(Tta, BiasedWithoutEfAboveThresholdNeverReaches) {
  Convergence c = conv();
  c.schemes["topk:k=0.01"] = {0.93, std::nullopt, false, std::nullopt, std::nullopt};
  auto e = iterations_to_target(c, "topk:k=0.01", biased(false), 8);
  EXPECT_EQ(e.status, TtaStatus::NeverReaches);
  EXPECT_FALSE(e.iterations.has_value());
  EXPECT_FALSE(e.multiplier.has_value());
  auto t = time_to_accuracy(e, 0.1);
  EXPECT_EQ(t.status, TtaStatus::NeverReaches);
  EXPECT_FALSE(t.tta_s.has_value());
  EXPECT_STREQ(tta_status_name(t.status), "never");
  // Below the threshold it reaches: 1 + 0.2/0.8.
  c.schemes["topk:k=0.01"].relative_error = 0.2;
  EXPECT_DOUBLE_EQ(*iterations_to_target(c, "topk:k=0.01", biased(false), 8).iterations, 1250);
}

TEST(Tta, HugeMultiplierIsNeverNotANumber) {
  Convergence c = conv();
  c.schemes["x"] = {std::nullopt, 0.999, true, std::nullopt, std::nullopt};  // 1/delta = 1000
  EXPECT_EQ(iterations_to_target(c, "x", biased(true), 8).status, TtaStatus::NeverReaches);
}

TEST(Tta, MeasuredFiguresWin) {
  Convergence c = conv();
  c.schemes["a"] = {0.99, std::nullopt, false, 1800.0, std::nullopt};
  c.schemes["b"] = {0.01, std::nullopt, true, std::nullopt, false};
  auto a = iterations_to_target(c, "a", biased(false), 8);
  EXPECT_DOUBLE_EQ(*a.iterations, 1800);
  EXPECT_DOUBLE_EQ(*a.multiplier, 1.8);
  EXPECT_EQ(iterations_to_target(c, "b", biased(true), 8).status, TtaStatus::NeverReaches);
}

TEST(Tta, MissingFiguresAreClearErrors) {
  try {
    iterations_to_target(conv(), "signsgd", biased(false), 8);
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("convergence.schemes.\"signsgd\""), std::string::npos);
  }
  Convergence c;
  EXPECT_THROW(iterations_to_target(c, "none", {}, 8), ModelError);  // no baseline
}

TEST(Tta, BatchFactorLaw) {
  // S(B) = S_min (1 + Bc/B), relative to B0: (1 + Bc/B) / (1 + Bc/B0).
  EXPECT_DOUBLE_EQ(batch_iterations_factor(512, 512, 512), 1.0);      // at the reference
  EXPECT_DOUBLE_EQ(batch_iterations_factor(1024, 512, 512), 0.75);    // (1 + 0.5) / 2
  EXPECT_DOUBLE_EQ(batch_iterations_factor(256, 512, 512), 1.5);      // (1 + 2) / 2
  EXPECT_DOUBLE_EQ(batch_iterations_factor(4096, 512, 0), 1.0);       // Bc = 0: no dependence
  EXPECT_DOUBLE_EQ(batch_iterations_factor(2048, 512, kInf), 0.25);   // Bc = inf: 1/B
  // Far below Bc: nearly 1/B; far above: nearly constant (the floor 1/(1 + Bc/B0)).
  EXPECT_NEAR(batch_iterations_factor(2, 1, 1e9), 0.5, 1e-8);
  EXPECT_NEAR(batch_iterations_factor(1e12, 1000, 1000), 0.5, 1e-8);
  double prev = kInf, prev_samples = 0;
  for (double b : {64.0, 128.0, 1024.0, 65536.0}) {
    const double f = batch_iterations_factor(b, 512, 2048);
    EXPECT_LT(f, prev);               // a larger batch never needs more iterations ...
    EXPECT_GT(f * b, prev_samples);   // ... nor fewer samples
    prev = f;
    prev_samples = f * b;
  }
  EXPECT_THROW(batch_iterations_factor(0, 512, 512), ModelError);
  EXPECT_THROW(batch_iterations_factor(512, 512, -1), ModelError);
}

TEST(Tta, BatchScalingDefaultsFromTheProfile) {
  Profile p;
  p.cluster.nodes = 2;
  p.cluster.gpus_per_node = 4;
  p.model.compute.push_back({32, 0.01, 0.02, 0.001, 0, {}});
  // B0 = 2 x 4 x 32 = 256; Bc absent = B0.
  auto b = batch_scaling(p, 512);
  EXPECT_DOUBLE_EQ(b.reference_batch, 256);
  EXPECT_TRUE(b.reference_defaulted);
  EXPECT_TRUE(b.critical_defaulted);
  EXPECT_DOUBLE_EQ(b.critical_batch, 256);
  EXPECT_DOUBLE_EQ(b.factor, 0.75);
  p.convergence.baseline_global_batch = 1024;
  p.convergence.critical_batch_size = 0.0;
  b = batch_scaling(p, 512);
  EXPECT_FALSE(b.reference_defaulted);
  EXPECT_FALSE(b.critical_defaulted);
  EXPECT_DOUBLE_EQ(b.reference_batch, 1024);
  EXPECT_DOUBLE_EQ(b.factor, 1.0);
  EXPECT_NE(batch_scaling_assumption(p).find("1024"), std::string::npos) << batch_scaling_assumption(p);
  EXPECT_DOUBLE_EQ(batch_scaling(p, 0).factor, 1.0);  // unknown batch: unscaled
}

TEST(Tta, IterationsFollowTheGlobalBatch) {
  Convergence c = conv();
  c.schemes["topk:k=0.01"] = {0.93, 0.5, true, std::nullopt, std::nullopt};  // m = 2
  c.schemes["measured"] = {std::nullopt, std::nullopt, std::nullopt, 1800.0, std::nullopt};
  c.schemes["never"] = {std::nullopt, std::nullopt, std::nullopt, std::nullopt, false};
  BatchScaling b;
  b.global_batch = 1024;
  b.reference_batch = 512;
  b.critical_batch = 512;
  b.factor = batch_iterations_factor(1024, 512, 512);  // 0.75
  auto none = iterations_to_target(c, "none", {}, 8, b);
  EXPECT_DOUBLE_EQ(*none.iterations, 750);
  EXPECT_DOUBLE_EQ(none.batch_factor, 0.75);
  EXPECT_NE(none.basis.find("global batch 1024"), std::string::npos) << none.basis;
  auto topk = iterations_to_target(c, "topk:k=0.01", biased(false), 8, b);
  EXPECT_DOUBLE_EQ(*topk.multiplier, 2.0);  // against the baseline at the same batch
  EXPECT_DOUBLE_EQ(*topk.iterations, 1500);
  EXPECT_DOUBLE_EQ(*iterations_to_target(c, "measured", biased(false), 8, b).iterations, 1350);
  EXPECT_EQ(iterations_to_target(c, "never", biased(false), 8, b).status, TtaStatus::NeverReaches);
  auto t = time_to_accuracy(none, 0.2);
  EXPECT_DOUBLE_EQ(*t.tta_s, 150.0);
  EXPECT_DOUBLE_EQ(t.batch_factor, 0.75);
}

}  // namespace
}  // namespace gcu::model
