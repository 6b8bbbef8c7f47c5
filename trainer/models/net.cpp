// trainer/models/net.cpp: the model-independent parts of gcu::trainer::Net (synthetic
// batches, the parameter list) and the backward-order parameter dump for profiles.
#include "trainer/models/registry.h"
#include "trainer/torch_compat.h"

#include <torch/torch.h>

namespace gcu::trainer {

Batch Net::make_synthetic_batch(int64_t batch, const torch::Device& device,
                                uint64_t seed) const {
  if (batch < 1) throw ModelError("synthetic batch size " + std::to_string(batch) + " must be >= 1");
  auto gen = compat::make_cpu_generator(seed);
  Batch out;
  const auto shape = input_shape(batch);
  if (input_kind() == InputKind::kTokens) {
    out.input = torch::randint(0, vocab_size(), shape, gen, torch::kInt64);
  } else {
    out.input = torch::randn(shape, gen, torch::kFloat32).to(input_dtype());
  }
  out.target = torch::randint(0, num_classes(), {batch}, gen, torch::kInt64);
  out.input = out.input.to(device);
  out.target = out.target.to(device);
  return out;
}

torch::Tensor Net::loss(const torch::Tensor& output, const torch::Tensor& target) {
  return torch::nn::functional::cross_entropy(output, target);
}

std::vector<ParamInfo> Net::parameter_list() const {
  std::vector<ParamInfo> out;
  for (const auto& item : named_parameters(/*recurse=*/true)) {
    ParamInfo info;
    info.name = item.key();
    info.shape = item.value().sizes().vec();
    info.numel = item.value().numel();
    out.push_back(std::move(info));
  }
  return out;
}

int64_t Net::num_parameters() const {
  int64_t total = 0;
  for (const auto& p : parameters(/*recurse=*/true)) total += p.numel();
  return total;
}

nlohmann::json parameter_shapes_json(const Net& net) {
  const auto params = net.parameter_list();
  auto out = nlohmann::json::array();
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    out.push_back({{"name", it->name}, {"shape", it->shape}, {"numel", it->numel}});
  }
  return out;
}

}  // namespace gcu::trainer
