// Optimizers and learning-rate schedule (optim.h).
#include "trainer/runtime/optim.h"

#include "trainer/runtime/train_options.h"

#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <cmath>

namespace gcu::trainer {

void validate(const OptimizerConfig& c) {
  if (c.name != "sgd" && c.name != "adamw")
    throw TrainError("unknown optimizer '" + c.name + "' (expected sgd or adamw)");
  if (c.schedule != "constant" && c.schedule != "step" && c.schedule != "cosine")
    throw TrainError("unknown learning-rate schedule '" + c.schedule +
                     "' (expected constant, step or cosine)");
  if (!(c.lr > 0)) throw TrainError("learning rate must be > 0, got " + std::to_string(c.lr));
  if (c.momentum < 0 || c.momentum >= 1)
    throw TrainError("momentum must be in [0, 1), got " + std::to_string(c.momentum));
  if (c.weight_decay < 0)
    throw TrainError("weight decay must be >= 0, got " + std::to_string(c.weight_decay));
  if (c.warmup_iters < 0)
    throw TrainError("warm-up iterations must be >= 0, got " + std::to_string(c.warmup_iters));
  if (c.schedule == "step" && c.step_every <= 0)
    throw TrainError("the step schedule needs --lr-step-every > 0, got " + std::to_string(c.step_every));
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> params,
                                                        const OptimizerConfig& c) {
  validate(c);
  if (c.name == "sgd") {
    torch::optim::SGDOptions o(c.lr);
    o.momentum(c.momentum).weight_decay(c.weight_decay);
    return std::make_unique<torch::optim::SGD>(std::move(params), o);
  }
  torch::optim::AdamWOptions o(c.lr);
  o.weight_decay(c.weight_decay);
  return std::make_unique<torch::optim::AdamW>(std::move(params), o);
}

double lr_at(const OptimizerConfig& c, int64_t t) {
  if (t < c.warmup_iters) return c.lr * static_cast<double>(t + 1) / static_cast<double>(c.warmup_iters);
  if (c.schedule == "step") return c.lr * std::pow(c.step_gamma, static_cast<double>(t / c.step_every));
  if (c.schedule == "cosine") {
    const double span = static_cast<double>(std::max<int64_t>(1, c.total_iters - c.warmup_iters));
    const double x = std::min(1.0, static_cast<double>(t - c.warmup_iters) / span);
    return c.lr * 0.5 * (1.0 + std::cos(M_PI * x));
  }
  return c.lr;
}

void set_lr(torch::optim::Optimizer& opt, double lr) {
  for (auto& g : opt.param_groups()) g.options().set_lr(lr);
}

}  // namespace gcu::trainer
