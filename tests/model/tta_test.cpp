// Convergence multipliers and TTA (model/tta.h), including "never reaches the target".
#include "model/tta.h"

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

}  // namespace
}  // namespace gcu::model
