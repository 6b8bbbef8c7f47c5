// Traces for the importer's tests: the real ones python3-torch wrote here
// (tests/data/traces/, PyTorch 1.13 without Kineto) and a small Kineto (PyTorch 2.x) CUDA
// trace written by hand, in the format Kineto writes, whose figures are worked out below.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace gcu::import::testing {

inline std::string traces_dir() { return std::string(GCU_SOURCE_DIR) + "/tests/data/traces/"; }

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// One iteration of a CUDA DDP job with two one-gradient buckets, starting at `t0` µs
// (a ProfilerStep of 1000 µs). CPU launches and GPU kernels (correlation in args):
//   forward  DDP.forward 10..110: kernels 30..80 (corr 1), 80..180 (corr 2)
//   backward node 200..220: kernel 210..400 (corr 3)
//            AccumulateGrad 230..260: kernel 400..450 (corr 4); c10d::allreduce_ at 250 with
//            record_param_comms (1000 elements) and the NCCL kernel 460..660 (corr 5)
//            AccumulateGrad 300..320: kernel 450..500 (corr 6); c10d::allreduce_ at 310 with
//            record_param_comms (2000 elements) and the NCCL kernel 660..760 (corr 7)
//   optimizer Optimizer.step 500..600: kernel 770..800 (corr 8)
// On the GPU's clock: forward 30..180 = 150 µs; backward 180..500 = 320 µs; gradient 1 ready
// at 450 (270 µs into backward), gradient 2 at 500 (320 µs); optimizer 770..800 = 30 µs;
// tail 500..770 = 270 µs; data 10 µs; all-reduces 200 µs and 100 µs; the iteration on the
// GPU 30..800 = 770 µs (its CPU step is 1000 µs).
inline nlohmann::json kineto_cuda_iteration(double t0, int corr0) {
  using J = nlohmann::json;
  J ev = J::array();
  const auto cpu = [&](const char* cat, const std::string& name, double ts, double dur, J args = J::object()) {
    ev.push_back({{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 100}, {"tid", 100}, {"ts", t0 + ts}, {"dur", dur},
                  {"args", args}});
  };
  const auto launch = [&](double ts, int corr) {
    ev.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"pid", 100}, {"tid", 100},
                  {"ts", t0 + ts}, {"dur", 3}, {"args", {{"correlation", corr0 + corr}}}});
  };
  const auto kernel = [&](const std::string& name, double ts, double dur, int corr, int stream) {
    ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", name}, {"pid", 0}, {"tid", stream}, {"ts", t0 + ts},
                  {"dur", dur}, {"args", {{"correlation", corr0 + corr}, {"stream", stream}}}});
  };
  cpu("user_annotation", "ProfilerStep#" + std::to_string(corr0), 0, 1000);
  cpu("user_annotation", "DistributedDataParallel.forward", 10, 100);
  launch(20, 1), kernel("void at::native::vectorized_elementwise_kernel<4>", 30, 50, 1, 7);
  launch(50, 2), kernel("ampere_sgemm_128x64_tn", 80, 100, 2, 7);
  cpu("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 200, 20);
  launch(205, 3), kernel("ampere_sgemm_128x64_nn", 210, 190, 3, 7);
  cpu("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 230, 30);
  launch(235, 4), kernel("void at::native::vectorized_elementwise_kernel<4> add", 400, 50, 4, 7);
  cpu("cpu_op", "c10d::allreduce_", 250, 5);
  cpu("cpu_op", "record_param_comms", 251, 2,
      {{"Collective name", "allreduce"}, {"In msg nelems", 1000}, {"Out msg nelems", 1000}, {"dtype", "Float"}});
  launch(252, 5), kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 460, 200, 5, 20);
  cpu("cpu_op", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 300, 20);
  launch(305, 6), kernel("void at::native::vectorized_elementwise_kernel<4> add", 450, 50, 6, 7);
  cpu("cpu_op", "c10d::allreduce_", 310, 5);
  cpu("cpu_op", "record_param_comms", 311, 2, {{"Collective name", "allreduce"}, {"In msg nelems", 2000}});
  launch(312, 7), kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 660, 100, 7, 20);
  cpu("user_annotation", "Optimizer.step#AdamW.step", 500, 100);
  launch(510, 8), kernel("void at::native::multi_tensor_apply_kernel", 770, 30, 8, 7);
  ev.push_back({{"ph", "f"}, {"id", corr0 + 8}, {"pid", 0}, {"tid", 7}, {"ts", t0 + 770}, {"cat", "ac2g"}, {"name", "ac2g"}});
  return ev;
}

inline std::string kineto_cuda_trace(int iterations = 2) {
  nlohmann::json t;
  t["schemaVersion"] = 1;
  t["deviceProperties"] = {{{"id", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"totalGlobalMem", 85000000000LL}}};
  t["distributedInfo"] = {{"backend", "nccl"}, {"rank", 0}, {"world_size", 8}};
  t["traceEvents"] = nlohmann::json::array();
  for (int i = 0; i < iterations; ++i)
    for (auto& e : kineto_cuda_iteration(1.7e12 + 1000.0 * i, 100 * i)) t["traceEvents"].push_back(e);
  t["traceName"] = "rank0.pt.trace.json";
  return t.dump();
}

}  // namespace gcu::import::testing
