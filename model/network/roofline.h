// Compute of a described network (network.h) on one GPU, when nothing was measured: a
// per-layer roofline, or a step time the user measured split by the roofline's shares.
// docs/model.md "Compute of a described model" derives it; every figure it gives is an
// estimate and says so (RooflineResult::basis, ::assumptions).
//
// A layer's backward (forward) takes
//   max(FLOPs / (peak x mfu), bytes / (memory bandwidth x memory_efficiency)) + kernels x launch_s
// FLOPs and bytes per layer from the network (per sample x batch; activation elements x
// the compute dtype's bytes, weight elements x the same), so each layer is compute- or
// memory-bound by its own arithmetic intensity, not by one factor for the model. The
// forward moves half the backward's activation elements (no gradients) and reads the
// weights once. The optimizer streams optimizer_bytes_per_parameter per parameter
// (AdamW with FP32 master weights and moments: read p, g, m, v and write p, m, v, 28 B;
// SGD with momentum 20 B) at the memory roofline, plus one launch per op per chunk of
// tensors (the foreach implementations, roofline.cpp).
// A gradient is ready when the backward of the layer that owns it has ended (layers run
// backward in reverse execution order).
#pragma once

#include "model/hardware.h"
#include "model/network/network.h"
#include "model/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace gcu::model::net {

enum class Precision { FP32, TF32, BF16, FP16 };
Precision parse_precision(const std::string& s);  // "fp32", "tf32", "bf16", "fp16"; throws NetworkError
const char* precision_name(Precision p);
int activation_bytes(Precision p);                 // 4 for fp32/tf32, 2 for bf16/fp16
// The GPU's dense peak at that precision; throws NetworkError when the catalog gives none
// (V100 has no TF32 or BF16 units).
double peak_flops(const hw::Gpu& gpu, Precision p);

enum class Optimizer { AdamW, Sgd };
Optimizer parse_optimizer(const std::string& s);   // "adamw" (or "adam"), "sgd"
const char* optimizer_name(Optimizer o);

struct RooflineOptions {
  int batch_size = 1;                 // per GPU, samples
  Precision precision = Precision::BF16;
  double mfu = 0.4;                   // fraction of peak FLOP/s a compute-bound layer reaches
  double memory_efficiency = 0.8;     // fraction of memory bandwidth a memory-bound layer reaches
  Seconds launch_s = 5e-6;            // per kernel launch and tail
  Optimizer optimizer = Optimizer::AdamW;
  // A measured step (forward + backward + optimizer) to split by the roofline's shares
  // instead of using the roofline's level.
  std::optional<Seconds> step_time_s;
};

struct RooflineResult {
  ComputeEntry compute;               // batch, forward, backward, optimizer, ready_s (backward order)
  std::string basis;                  // "roofline estimate" | "measured step time split by roofline shares" | ...
  double model_flops_per_step = 0;    // forward + backward FLOPs at the batch (per GPU)
  double achieved_mfu = 0;            // model_flops / (forward + backward time) / peak
  int memory_bound_layers = 0, compute_bound_layers = 0;
  std::vector<std::string> assumptions;  // one line per assumed number
};

// One layer's roofline at `batch` samples on `gpu` (o.precision, o.mfu, o.memory_efficiency,
// o.launch_s; o.batch_size is not read).
struct LayerSeconds {
  Seconds forward_s = 0, backward_s = 0;
  bool compute_bound = false;  // the backward's FLOPs take longer than its bytes
};
LayerSeconds layer_seconds(const Layer& l, double batch, const hw::Gpu& gpu, const RooflineOptions& o);

// Throws NetworkError for a network without work and no step time, a batch < 1, an mfu or
// efficiency outside (0, 1], or a GPU without a peak at the precision.
RooflineResult roofline_compute(const Network& n, const hw::Gpu& gpu, const RooflineOptions& o);

// Model states per GPU under plain DDP (parameters, gradients, optimizer state): bytes.
double ddp_memory_bytes(const Network& n, Precision p, Optimizer o);

}  // namespace gcu::model::net
