// Compute measurements on the launched ranks (docs/calibrate.md), torch-free header:
//  * forward, backward and optimizer (SGD, momentum 0.9) time per batch size, and the
//    time from backward start at which each parameter's gradient is ready (tensor hooks;
//    on CUDA, events would replace host clocks: not done, see docs/calibrate.md);
//  * gamma: backward alone vs backward while a background thread all-reduces the model's
//    DDP buckets (1 MiB first, then 25 MiB) on a second process group, ratio of medians;
//  * overlap contention: backward alone vs with a concurrent compressor thread
//    (roundtrip of a bucket-sized gradient in a loop), and the compressor's per-call time
//    alone vs overlapped; the factor is the geometric mean of the two slowdowns (the model
//    slows both by one factor, model/iteration.h);
//  * real gradients of a few training iterations (for compression errors).
// All ranks run every measurement at the same time (as in data-parallel training, they
// share the machine); rank 0's numbers are reported.
#pragma once

#include "calibrate/codecs.h"
#include "calibrate/group.h"
#include "calibrate/stats.h"
#include "model/profile.h"

#include <functional>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct ComputeOptions {
  std::string model_spec = "cnn";
  std::vector<int> batch_sizes = {32, 64};
  int warmup = 3;
  int iters = 10;                 // timed iterations at least
  // ... and at least this long (measure_compute; the count is planned from the warm-up and
  // is at most kMaxComputeIters): ten iterations of a small model last ~0.1 s, and one
  // busy phase of the machine moved such a median by 40%.
  double min_time_s = 2.0;
  double lr = 0.01;
  bool real_data = true;  // Fashion-MNIST for gradients when the model takes 28x28x1 images
  // The batches measure_compute times on, as `gcu train --data`: "synthetic" (a fixed
  // random input per rank, fresh labels every step) or "fashion-mnist" (each rank's shard
  // of the training set, shuffled; image models only). CPU compute depends on the values:
  // on loopback at 2 ranks x batch 32 the CNN's forward in gcu train took 3.0-3.2 ms on
  // Fashion-MNIST and 3.7-3.8 on synthetic inputs, and calibrate followed (3.2-3.5 against
  // 3.8-4.0).
  std::string data = "synthetic";
  // measure_compute's loop (compute timed after a barrier is not compute as the training
  // loop pays it): "trainer" times forward, backward and optimizer inside the trainer's own
  // loop (its reducer in `after` mode, the uncompressed all-reduce of every bucket between
  // backward and optimizer, gradients as bucket views, no barrier: the iterations are
  // aligned by the all-reduce, as in training); "barrier" times them alone, every iteration
  // after a barrier (the former default). "trainer" runs at any world size (one rank: the
  // reducer's all-reduce is a copy, as in gcu train); on a CUDA device over gcu's NCCL
  // communicator with the trainer's device hooks, which needs a build with the trainer's
  // GPU path; without it, it falls back to "barrier" and says so.
  std::string loop = "trainer";
};

constexpr int kMaxComputeIters = 2000;

// Per batch size: forward, backward and optimizer of the slowest rank of each iteration
// (synchronous data parallelism waits for it every step), over the timed iterations.
struct ComputeTimes {
  int batch_size = 0;
  Summary forward_s, backward_s, optimizer_s;
  std::vector<double> ready_s;  // median per tensor, same order as ComputeResult::tensors
};

// What the profile takes of a compute Summary: the winsorized mean (the expected time an
// iteration pays, as `gcu validate` compares; a rare preemption capped at the 95th
// percentile). With 4 ranks on 2 cores the slowest rank of each iteration is 25-45% slower
// than the rank that is slowest on median.
inline double profile_value(const Summary& s) { return s.mean_w95; }

struct ComputeResult {
  std::string model_name;        // the net's canonical spec
  int64_t parameters = 0;
  std::vector<model::TensorInfo> tensors;  // observed gradient-ready order
  std::vector<ComputeTimes> times;
};

using Progress = std::function<void(const std::string&)>;

ComputeResult measure_compute(Group& g, const ComputeOptions& opt, const Progress& progress = {});

struct GammaResult {
  double gamma = 1;  // median(overlapped) / median(alone), as measured (may be < 1)
  Summary alone_s, overlapped_s;
  Summary comm_s;    // the all-reduces' time beside the backward, from its start (state.h GammaState)
  Summary comm_alone_s;  // the same all-reduces alone, after a barrier
  int buckets = 0;
  double bucket_bytes = 0;  // total bytes all-reduced per backward
  std::vector<double> each_bucket_bytes;
};
GammaResult measure_gamma(Group& g, const ComputeOptions& opt, int batch_size,
                          const Progress& progress = {});

// Overlap contention: every timed iteration runs, each after a barrier so that every rank
// is in the same phase, the backward alone, the codec alone in a loop for as long as that
// backward took, and the backward with the codec looping beside it. A rank's slowdowns are
// the medians of those paired per-iteration ratios; the factor is sqrt(backward x codec) of
// the medians over the ranks.
struct ContentionResult {
  std::string scheme;
  double factor = 1;
  double backward_slowdown = 1, codec_slowdown = 1;  // medians over the ranks
  Summary backward_alone_s, backward_overlapped_s;   // this rank's
  double codec_alone_s = 0, codec_overlapped_s = 0;  // per call, this rank's medians
  // Every rank's own slowdowns, in rank order.
  std::vector<double> rank_backward_slowdown, rank_codec_slowdown;
};
ContentionResult measure_contention(Group& g, const ComputeOptions& opt, int batch_size,
                                    const std::string& scheme, const Progress& progress = {});

// Gradients of `snapshots` training iterations (after `skip` iterations), flattened in
// the tensors' backward order (reverse registration; see GradientSet).
GradientSet collect_gradients(const ComputeOptions& opt, int batch_size, int snapshots, int skip,
                              const Progress& progress = {});

}  // namespace gcu::calibrate
