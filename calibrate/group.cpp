// Process group setup for calibrate (see group.h).
#include "calibrate/group_impl.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#include <torch/torch.h>

#include <cstdlib>
#include <stdexcept>

namespace gcu::calibrate {
namespace {

int env_int(const char* name, int dflt, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi)
    throw std::invalid_argument(std::string("environment variable ") + name + "='" + v +
                                "' is not an integer in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  return static_cast<int>(x);
}

c10::intrusive_ptr<c10d::ProcessGroup> make_pg(const GroupOptions& o,
                                               const c10::intrusive_ptr<c10d::Store>& store) {
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  if (o.backend == "nccl") {
#ifdef USE_C10D_NCCL
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, o.rank, o.world_size, opts);
#else
    throw std::invalid_argument("backend 'nccl' needs a CUDA-capable LibTorch; this one is CPU-only (use gloo)");
#endif
  }
  if (o.backend != "gloo")
    throw std::invalid_argument("unknown backend '" + o.backend + "' (known: gloo, nccl)");
  auto opts = c10d::ProcessGroupGloo::Options::create();
  opts->timeout = timeout;
  const char* iface = std::getenv("GLOO_SOCKET_IFNAME");
  if (iface && *iface)
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
  else if (o.master_addr == "127.0.0.1" || o.master_addr == "localhost")
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  else
    opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, o.rank, o.world_size, opts);
}

}  // namespace

GroupOptions group_options_from_env() {
  GroupOptions o;
  o.world_size = env_int("WORLD_SIZE", 1, 1, 1 << 20);
  o.rank = env_int("RANK", 0, 0, o.world_size - 1);
  if (const char* a = std::getenv("MASTER_ADDR"); a && *a) o.master_addr = a;
  o.master_port = env_int("MASTER_PORT", 29500, 1, 65535);
  return o;
}

Group::Group(const GroupOptions& opt) : opt_(opt), impl_(std::make_unique<GroupImpl>()) {
  if (opt.world_size < 1 || opt.rank < 0 || opt.rank >= opt.world_size)
    throw std::invalid_argument("rank " + std::to_string(opt.rank) + " is outside world size " +
                                std::to_string(opt.world_size));
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(opt.master_port);
  so.isServer = opt.rank == 0;
  so.numWorkers = opt.world_size;
  so.waitWorkers = true;
  so.timeout = std::chrono::milliseconds(static_cast<int64_t>(opt.timeout_s * 1000));
  auto tcp = c10::make_intrusive<c10d::TCPStore>(opt.master_addr, so);
  impl_->store = tcp;
  impl_->pg = make_pg(opt, c10::make_intrusive<c10d::PrefixStore>("fg", tcp));
  impl_->pg_bg = make_pg(opt, c10::make_intrusive<c10d::PrefixStore>("bg", tcp));
  if (opt.backend == "nccl") impl_->device = torch::Device(torch::kCUDA, 0);
}

Group::~Group() = default;

void Group::barrier() { impl_->pg->barrier()->wait(); }

std::vector<double> Group::allreduce_max(std::vector<double> v) {
  if (v.empty() || opt_.world_size == 1) return v;
  auto t = torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kFloat64).clone();
  std::vector<at::Tensor> ts{t.to(impl_->device)};
  c10d::AllreduceOptions o;
  o.reduceOp = c10d::ReduceOp::MAX;
  impl_->pg->allreduce(ts, o)->wait();
  auto r = ts[0].cpu();
  return std::vector<double>(r.data_ptr<double>(), r.data_ptr<double>() + v.size());
}

std::vector<double> Group::allreduce_sum(std::vector<double> v) {
  if (v.empty() || opt_.world_size == 1) return v;
  auto t = torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kFloat64).clone();
  std::vector<at::Tensor> ts{t.to(impl_->device)};
  impl_->pg->allreduce(ts)->wait();
  auto r = ts[0].cpu();
  return std::vector<double>(r.data_ptr<double>(), r.data_ptr<double>() + v.size());
}

std::string Group::broadcast_string(const std::string& s) {
  if (opt_.world_size == 1) return s;
  const std::string key = "gcu_calibrate_bcast";
  static int seq = 0;
  const std::string k = key + std::to_string(seq++);
  if (opt_.rank == 0) impl_->store->set(k, std::vector<uint8_t>(s.begin(), s.end()));
  auto v = impl_->store->get(k);  // waits for the key
  barrier();
  return std::string(v.begin(), v.end());
}

}  // namespace gcu::calibrate
