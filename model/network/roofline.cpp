// Per-layer roofline and step-time split (roofline.h).
#include "model/network/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace gcu::model::net {
namespace {

std::string roofline_fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

LayerSeconds layer_seconds(const Layer& l, double batch, const hw::Gpu& gpu, const RooflineOptions& o) {
  const double peak = peak_flops(gpu, o.precision);
  const double membw = gpu.memory_bytes_per_s;
  const double elem_bytes = activation_bytes(o.precision);
  LayerSeconds t;
  const double fb = l.backward_flops * batch / (peak * o.mfu);
  const double mb = (l.activation_elements * batch + l.weight_elements) * elem_bytes / (membw * o.memory_efficiency);
  t.backward_s = std::max(fb, mb) + l.kernels * o.launch_s;
  t.compute_bound = fb >= mb;
  const double ff = l.forward_flops * batch / (peak * o.mfu);
  const double mf =
      (0.5 * l.activation_elements * batch + 0.5 * l.weight_elements) * elem_bytes / (membw * o.memory_efficiency);
  // Forward: one kernel for most layers (a fused attention or norm counts as one too).
  t.forward_s = std::max(ff, mf) + o.launch_s;
  return t;
}

Precision parse_precision(const std::string& s) {
  if (s == "fp32") return Precision::FP32;
  if (s == "tf32") return Precision::TF32;
  if (s == "bf16") return Precision::BF16;
  if (s == "fp16") return Precision::FP16;
  throw NetworkError("precision '" + s + "': expected fp32, tf32, bf16 or fp16");
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::BF16: return "bf16";
    case Precision::FP16: return "fp16";
  }
  return "?";
}

int activation_bytes(Precision p) { return p == Precision::BF16 || p == Precision::FP16 ? 2 : 4; }

double peak_flops(const hw::Gpu& gpu, Precision p) {
  const double v = p == Precision::FP32   ? gpu.fp32_flops
                   : p == Precision::TF32 ? gpu.tf32_flops
                   : p == Precision::BF16 ? gpu.bf16_flops
                                          : gpu.fp16_flops;
  if (!(v > 0))
    throw NetworkError("GPU " + gpu.name + " has no " + precision_name(p) +
                       " rate in the catalog (choose another --precision)");
  return v;
}

Optimizer parse_optimizer(const std::string& s) {
  if (s == "adamw" || s == "adam") return Optimizer::AdamW;
  if (s == "sgd") return Optimizer::Sgd;
  throw NetworkError("optimizer '" + s + "': expected adamw or sgd");
}

const char* optimizer_name(Optimizer o) { return o == Optimizer::AdamW ? "adamw" : "sgd"; }

namespace {
// Memory traffic per parameter of one optimizer step, and its launches: PyTorch's foreach
// implementations (the default on CUDA) run each elementwise op over chunks of tensors,
// one launch per chunk; a chunk holds up to 36 tensors for the 4-list AdamW kernels and
// 48 for the 3-list SGD ones (depth_to_max_tensors in ATen's MultiTensorApply.cuh).
double optimizer_bytes_per_parameter(Optimizer o) { return o == Optimizer::AdamW ? 28 : 20; }
int optimizer_ops(Optimizer o) { return o == Optimizer::AdamW ? 8 : 3; }
int optimizer_tensors_per_launch(Optimizer o) { return o == Optimizer::AdamW ? 36 : 48; }
}  // namespace

double ddp_memory_bytes(const Network& n, Precision p, Optimizer o) {
  // FP32 parameters and gradients (DDP reduces FP32 gradients; mixed precision keeps FP32
  // master weights), optimizer moments (AdamW two, SGD one), plus a low-precision weight
  // copy when computing in bf16/fp16.
  const double params = static_cast<double>(n.parameters());
  const double per = 4 + 4 + (o == Optimizer::AdamW ? 8 : 4) + (activation_bytes(p) == 2 ? 2 : 0);
  return params * per;
}

RooflineResult roofline_compute(const Network& n, const hw::Gpu& gpu, const RooflineOptions& o) {
  if (o.batch_size < 1) throw NetworkError("batch size " + std::to_string(o.batch_size) + ": expected >= 1");
  if (!(o.mfu > 0 && o.mfu <= 1)) throw NetworkError(roofline_fmt("--mfu %g: expected a fraction in (0, 1]", o.mfu));
  if (!(o.memory_efficiency > 0 && o.memory_efficiency <= 1))
    throw NetworkError(roofline_fmt("memory efficiency %g: expected a fraction in (0, 1]", o.memory_efficiency));
  if (o.step_time_s && !(*o.step_time_s > 0 && std::isfinite(*o.step_time_s)))
    throw NetworkError("--step-time: expected a time > 0");
  const double peak = peak_flops(gpu, o.precision);
  const double membw = gpu.memory_bytes_per_s;
  const double batch = o.batch_size;
  const auto tensors = n.tensors_backward();

  RooflineResult r;
  r.compute.batch_size = o.batch_size;
  const double nparams = static_cast<double>(n.parameters());
  const double launches = optimizer_ops(o.optimizer) *
                          std::ceil(static_cast<double>(tensors.size()) / optimizer_tensors_per_launch(o.optimizer));
  r.compute.optimizer_s =
      nparams * optimizer_bytes_per_parameter(o.optimizer) / (membw * o.memory_efficiency) + launches * o.launch_s;
  r.assumptions.push_back(std::string("optimizer: ") + optimizer_name(o.optimizer) +
                          roofline_fmt(" (foreach), %.0f bytes of memory traffic per parameter at the memory roofline + %.0f "
                              "launches",
                              optimizer_bytes_per_parameter(o.optimizer), launches));

  if (!n.has_work) {
    if (!o.step_time_s)
      throw NetworkError("network " + n.spec +
                         " gives no per-layer FLOPs (a tensor list without a forward_flops column): give --step-time");
    const Seconds rest = *o.step_time_s - r.compute.optimizer_s;
    if (!(rest > 0))
      throw NetworkError(roofline_fmt("--step-time %g s is shorter than the optimizer step alone (%g s at the memory roofline)",
                             *o.step_time_s, r.compute.optimizer_s));
    r.compute.forward_s = rest / 3;
    r.compute.backward_s = 2 * rest / 3;
    r.basis = "measured step time (--step-time), split 1:2 forward:backward; gradients ready in proportion to "
              "parameter counts";
    r.assumptions.push_back("the tensor list gives no FLOPs: the step (less the optimizer) is split 1:2 between "
                            "forward and backward, and gradients become ready in proportion to parameter counts");
    return r;
  }

  std::vector<LayerSeconds> times;
  times.reserve(n.layers.size());
  Seconds fwd = 0, bwd = 0;
  for (const Layer& l : n.layers) {
    times.push_back(layer_seconds(l, batch, gpu, o));
    fwd += times.back().forward_s;
    bwd += times.back().backward_s;
    (times.back().compute_bound ? r.compute_bound_layers : r.memory_bound_layers)++;
  }
  r.model_flops_per_step = (n.forward_flops() + n.backward_flops()) * batch;
  double scale = 1;
  if (o.step_time_s) {
    const Seconds est = fwd + bwd + r.compute.optimizer_s;
    scale = *o.step_time_s / est;
    r.compute.optimizer_s *= scale;
    r.basis = roofline_fmt("measured step time (--step-time %g ms) split by the roofline's shares (the roofline gave %g ms)",
                  *o.step_time_s * 1e3, est * 1e3);
  } else {
    r.basis = std::string("roofline estimate on ") + gpu.name + " (" + precision_name(o.precision) + ", mfu " +
              roofline_fmt("%g", o.mfu) + ")";
    r.assumptions.push_back(roofline_fmt("compute: per-layer roofline at %.0f%% of the GPU's dense peak for compute-bound layers "
                                "and %.0f%% of its memory bandwidth for memory-bound ones, %g us per kernel",
                                100 * o.mfu, 100 * o.memory_efficiency, o.launch_s * 1e6));
  }
  r.compute.forward_s = fwd * scale;
  r.compute.backward_s = bwd * scale;
  r.achieved_mfu = r.model_flops_per_step / ((fwd + bwd) * scale) / peak;

  // Ready times: layers backward in reverse execution order; a parameter is ready when its
  // owner's backward ends.
  std::map<std::string, Seconds> ready_of;
  Seconds elapsed = 0;
  for (size_t i = n.layers.size(); i-- > 0;) {
    elapsed += times[i].backward_s * scale;
    for (const TensorInfo& t : n.layers[i].params) ready_of.emplace(t.name, elapsed);
  }
  r.compute.ready_s.reserve(tensors.size());
  Seconds prev = 0;
  for (const TensorInfo& t : tensors) {
    const auto it = ready_of.find(t.name);
    Seconds v = it == ready_of.end() ? prev : std::min(it->second, r.compute.backward_s);
    v = std::max(v, prev);  // backward order: never earlier than the tensor before
    r.compute.ready_s.push_back(v);
    prev = v;
  }
  return r;
}

}  // namespace gcu::model::net
