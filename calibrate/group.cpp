// calibrate's process groups over the trainer's runtime (see group.h).
#include "calibrate/group_impl.h"

#include "trainer/runtime/rendezvous.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#ifdef USE_C10D_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#include <torch/torch.h>

#include <stdexcept>

namespace gcu::calibrate {
namespace {

// A second Gloo group on the trainer's store, bound to the same devices (interfaces).
c10::intrusive_ptr<Backend> second_gloo_group(const trainer::DistContext& ctx, const std::string& prefix) {
  auto* gloo = dynamic_cast<c10d::ProcessGroupGloo*>(ctx.gloo.get());
  if (!gloo) throw std::logic_error("calibrate: the trainer's process group is not Gloo");
  return c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>(prefix, ctx.store),
                                                     ctx.rank(), ctx.world_size(), gloo->getOptions());
}

#ifdef USE_C10D_NCCL
c10::intrusive_ptr<Backend> nccl_group(const trainer::DistContext& ctx, const std::string& prefix) {
  if (!torch::cuda::is_available())
    throw std::invalid_argument("backend 'nccl': no CUDA device is visible to rank " + std::to_string(ctx.rank()));
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = std::chrono::milliseconds(static_cast<int64_t>(ctx.timeout_s * 1000));
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(c10::make_intrusive<c10d::PrefixStore>(prefix, ctx.store),
                                                     ctx.rank(), ctx.world_size(), opts);
}
#endif

}  // namespace

Group::Group(const GroupOptions& opt) : opt_(opt), impl_(std::make_unique<GroupImpl>()) {
  if (opt.backend != "gloo" && opt.backend != "nccl")
    throw std::invalid_argument("unknown backend '" + opt.backend + "' (known: gloo, nccl)");
#ifndef USE_C10D_NCCL
  if (opt.backend == "nccl")
    throw std::invalid_argument("backend 'nccl' needs a CUDA-capable LibTorch built with NCCL; this one is not "
                                "(use gloo)");
#endif
  trainer::ProcessGroupOptions pgo;
  pgo.timeout_s = opt.timeout_s;
  impl_->ctx = trainer::init_process_group(trainer::rank_info_from_env(), pgo);
  if (opt.backend == "nccl") {
#ifdef USE_C10D_NCCL
    const int local = impl_->ctx.info.local_rank;
    impl_->device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local));
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(local));
    impl_->pg = nccl_group(impl_->ctx, "calibrate/nccl");
    impl_->pg_bg = nccl_group(impl_->ctx, "calibrate/nccl_bg");
#endif
  } else {
    impl_->pg = impl_->ctx.gloo;
    impl_->pg_bg = second_gloo_group(impl_->ctx, "calibrate/bg");
  }
}

Group::~Group() = default;

int Group::rank() const { return impl_->ctx.rank(); }
int Group::world_size() const { return impl_->ctx.world_size(); }

void Group::barrier() { impl_->pg->barrier()->wait(); }

namespace {
std::vector<double> allreduce(GroupImpl& impl, std::vector<double> v, c10d::ReduceOp op) {
  auto t = torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kFloat64).clone();
  std::vector<at::Tensor> ts{t.to(impl.device)};
  c10d::AllreduceOptions o;
  o.reduceOp = op;
  impl.pg->allreduce(ts, o)->wait();
  auto r = ts[0].cpu();
  return std::vector<double>(r.data_ptr<double>(), r.data_ptr<double>() + v.size());
}
}  // namespace

std::vector<double> Group::allreduce_max(std::vector<double> v) {
  if (v.empty() || world_size() == 1) return v;
  return allreduce(*impl_, std::move(v), c10d::ReduceOp::MAX);
}

std::vector<double> Group::allreduce_min(std::vector<double> v) {
  if (v.empty() || world_size() == 1) return v;
  return allreduce(*impl_, std::move(v), c10d::ReduceOp::MIN);
}

std::vector<double> Group::allreduce_sum(std::vector<double> v) {
  if (v.empty() || world_size() == 1) return v;
  return allreduce(*impl_, std::move(v), c10d::ReduceOp::SUM);
}

std::string Group::broadcast_string(const std::string& s) {
  if (world_size() == 1) return s;
  static int seq = 0;
  const std::string k = "calibrate/bcast/" + std::to_string(seq++);
  auto& store = *impl_->ctx.store;
  if (rank() == 0) store.set(k, std::vector<uint8_t>(s.begin(), s.end()));
  auto v = store.get(k);  // waits for the key
  barrier();
  return std::string(v.begin(), v.end());
}

}  // namespace gcu::calibrate
