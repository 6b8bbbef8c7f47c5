// Tests for the optimizers and the learning-rate schedule (trainer/runtime/optim.h):
// SGD with momentum and weight decay, and AdamW, against the update rules computed by
// hand (in double) for a few steps with fixed gradients; the schedule's warm-up, step
// and cosine values; set_lr; bad configurations.
#include "trainer/runtime/optim.h"

#include "trainer/runtime/train_options.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::trainer {
namespace {

const std::vector<double> kStart{0.5, -1.25, 2.0};
const std::vector<std::vector<double>> kGrads{{0.1, -0.2, 0.3}, {-0.4, 0.5, 0.25}, {0.05, 0.05, -1.0}};

// Runs `steps` optimizer steps on one parameter with the gradients kGrads[t] (and lr
// set through set_lr to lrs[t]); returns the parameter after each step.
std::vector<std::vector<double>> run_steps(const OptimizerConfig& c, const std::vector<double>& lrs) {
  auto p = torch::tensor(kStart, torch::kFloat).requires_grad_(true);
  auto opt = make_optimizer({p}, c);
  std::vector<std::vector<double>> out;
  for (size_t t = 0; t < lrs.size(); ++t) {
    p.mutable_grad() = torch::tensor(kGrads[t], torch::kFloat);
    set_lr(*opt, lrs[t]);
    opt->step();
    auto d = p.detach().to(torch::kDouble);
    out.emplace_back(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
  }
  return out;
}

TEST(Optim, SgdMomentumWeightDecayMatchesHandComputation) {
  OptimizerConfig c;
  c.name = "sgd";
  c.momentum = 0.9;
  c.weight_decay = 0.01;
  const std::vector<double> lrs{0.1, 0.05, 0.2};  // also checks that set_lr takes effect
  const auto got = run_steps(c, lrs);
  // PyTorch's rule: d = g + wd p; buf = d (first step), then buf = m buf + d; p -= lr buf.
  std::vector<double> p = kStart, buf(3, 0.0);
  for (size_t t = 0; t < lrs.size(); ++t) {
    for (size_t i = 0; i < 3; ++i) {
      const double d = kGrads[t][i] + c.weight_decay * p[i];
      buf[i] = t == 0 ? d : c.momentum * buf[i] + d;
      p[i] -= lrs[t] * buf[i];
      EXPECT_NEAR(got[t][i], p[i], 1e-6) << "step " << t << " element " << i;
    }
  }
}

TEST(Optim, AdamWMatchesHandComputation) {
  OptimizerConfig c;
  c.name = "adamw";
  c.weight_decay = 0.1;
  const std::vector<double> lrs{0.01, 0.01, 0.005};
  const auto got = run_steps(c, lrs);
  // Decoupled decay p *= 1 - lr wd, then Adam (beta1 0.9, beta2 0.999, eps 1e-8) with
  // bias correction: p -= lr m_hat / (sqrt(v_hat) + eps).
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  std::vector<double> p = kStart, m(3, 0.0), v(3, 0.0);
  for (size_t t = 0; t < lrs.size(); ++t) {
    for (size_t i = 0; i < 3; ++i) {
      const double g = kGrads[t][i];
      p[i] *= 1.0 - lrs[t] * c.weight_decay;
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      const double mh = m[i] / (1 - std::pow(b1, t + 1)), vh = v[i] / (1 - std::pow(b2, t + 1));
      p[i] -= lrs[t] * mh / (std::sqrt(vh) + eps);
      EXPECT_NEAR(got[t][i], p[i], 1e-6) << "step " << t << " element " << i;
    }
  }
  // The first step moves every element by about lr (Adam's normalised step) plus decay.
  EXPECT_NEAR(std::abs(got[0][0] - kStart[0] * (1 - 0.01 * 0.1)), 0.01, 1e-5);
}

TEST(Optim, ScheduleWarmupStepAndCosine) {
  OptimizerConfig c;
  c.lr = 0.4;
  c.total_iters = 100;
  c.schedule = "constant";
  c.warmup_iters = 4;
  EXPECT_DOUBLE_EQ(lr_at(c, 0), 0.1);  // (t + 1) / W
  EXPECT_DOUBLE_EQ(lr_at(c, 3), 0.4);
  EXPECT_DOUBLE_EQ(lr_at(c, 50), 0.4);

  c.warmup_iters = 0;
  c.schedule = "step";
  c.step_every = 10;
  c.step_gamma = 0.5;
  EXPECT_DOUBLE_EQ(lr_at(c, 9), 0.4);
  EXPECT_DOUBLE_EQ(lr_at(c, 10), 0.2);
  EXPECT_DOUBLE_EQ(lr_at(c, 25), 0.1);

  c.schedule = "cosine";
  c.warmup_iters = 20;
  EXPECT_NEAR(lr_at(c, 20), 0.4, 1e-12);              // start of the decay
  EXPECT_NEAR(lr_at(c, 60), 0.2, 1e-12);              // half way through 80 iterations
  EXPECT_NEAR(lr_at(c, 40), 0.2 * (1 + std::cos(M_PI / 4)), 1e-12);
  EXPECT_NEAR(lr_at(c, 100), 0.0, 1e-12);
  EXPECT_NEAR(lr_at(c, 9), 0.4 * 10 / 20, 1e-12);     // still warming up
}

TEST(Optim, BadConfigurationsAreRejectedWithTheValue) {
  auto expect_error = [](OptimizerConfig c, const std::string& needle) {
    try {
      validate(c);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const TrainError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  OptimizerConfig c;
  c.name = "lamb";
  expect_error(c, "lamb");
  c = {};
  c.schedule = "linear";
  expect_error(c, "linear");
  c = {};
  c.lr = -1;
  expect_error(c, "-1");
  c = {};
  c.momentum = 1.0;
  expect_error(c, "momentum");
  c = {};
  c.schedule = "step";
  c.step_every = 0;
  expect_error(c, "--lr-step-every");
  EXPECT_THROW(make_optimizer({}, c), TrainError);
}

}  // namespace
}  // namespace gcu::trainer
