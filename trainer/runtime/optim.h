// Optimizers (SGD with momentum and weight decay, AdamW) and the learning-rate schedule.
//
// Schedule, for iteration t (0-based) of T, base rate lr, warm-up W:
//   t < W      lr * (t + 1) / W                            (linear warm-up)
//   constant   lr
//   step       lr * gamma ^ floor(t / step_every)
//   cosine     lr * 0.5 * (1 + cos(pi * (t - W) / (T - W)))
#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gcu::trainer {

struct OptimizerConfig {
  std::string name = "sgd";  // sgd | adamw
  double lr = 0.05;
  double momentum = 0.9;
  double weight_decay = 0.0;
  std::string schedule = "constant";  // constant | step | cosine
  int64_t warmup_iters = 0;
  int64_t step_every = 0;
  double step_gamma = 0.1;
  int64_t total_iters = 1;
};

// Throws TrainError for an unknown optimizer or schedule, or out-of-range values.
void validate(const OptimizerConfig& c);
std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> params,
                                                        const OptimizerConfig& c);
double lr_at(const OptimizerConfig& c, int64_t iter);
void set_lr(torch::optim::Optimizer& opt, double lr);

}  // namespace gcu::trainer
