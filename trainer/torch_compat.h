// trainer/torch_compat.h: the one adapter for differences between LibTorch 1.13 (Debian,
// CPU) and LibTorch 2.x (GPU machines). Code elsewhere calls these helpers instead of
// testing TORCH_VERSION_* itself. Keep it small and header-only; add what you hit.
#pragma once

#include <torch/version.h>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <functional>
#include <memory>

#include <cstdint>

// True when the LibTorch being compiled against is at least major.minor.
#define GCU_TORCH_VERSION_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||              \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace gcu::trainer::compat {

// A CPU random generator seeded with `seed`, independent of the global one, so that
// synthetic data and shuffles do not depend on what else drew random numbers.
// (at::detail::createCPUGenerator exists in 1.13 and 2.x.)
inline at::Generator make_cpu_generator(uint64_t seed) {
  return at::detail::createCPUGenerator(seed);
}

// ---- distributed runtime (trainer/runtime/) -----------------------------------------

// The class ProcessGroupGloo / ProcessGroupNCCL derive from: c10d::ProcessGroup in 1.13,
// c10d::Backend from 2.0 on (ProcessGroup became a dispatcher over backends). Both
// have the same allreduce / allgather / broadcast signatures.
#if GCU_TORCH_VERSION_AT_LEAST(2, 0)
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

// Calls `fn` each time the gradient of leaf `param` has been accumulated into
// param.grad() during backward (DDP's "gradient ready" signal). 1.13 has no
// post-accumulate-grad hook API, so this attaches a post hook to the parameter's
// AccumulateGrad node (what c10d's Reducer does in both versions). The node is owned
// weakly by the parameter: keep the returned pointer alive as long as the hook must fire.
inline std::shared_ptr<torch::autograd::Node> add_grad_ready_hook(const at::Tensor& param,
                                                                  std::function<void()> fn) {
  auto acc = torch::autograd::impl::grad_accumulator(param);
  acc->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
      [fn = std::move(fn)](const torch::autograd::variable_list& outputs,
                           const torch::autograd::variable_list& /*inputs*/) {
        fn();
        return outputs;
      }));
  return acc;
}

}  // namespace gcu::trainer::compat
