// A DDP-like gradient reducer with compression hooks (SPEC §4).
//
// Parameters are packed into buckets in reverse registration order (the order in which
// backward produces their gradients) by DDP's rule, implemented once in model/buckets.h
// (assign_ddp_buckets) for the model and the trainer: append tensors to the open bucket
// and close it once its size reaches the limit, 1 MiB for the first bucket and
// bucket_cap_bytes (25 MiB) after. Each bucket is one contiguous
// float buffer handed to Compressor::step() as a GradBucket (index = bucket number).
//
// Modes:
//   overlap  a gradient-ready hook per parameter (autograd post-accumulate hook, see
//            compat::add_grad_ready_hook) copies the gradient into its bucket; when a
//            bucket is complete it is handed to one communication thread, which runs
//            compress + collectives + decompress for the buckets strictly in order (one
//            "stream", like DDP's), overlapped with the rest of backward.
//   after    backward first; then every bucket is compressed and reduced in order on
//            the calling thread (how most compression papers measure).
// finish_iteration() waits for the last bucket; the averaged (decompressed) gradients
// are then in param.grad().
//
// Gradients as bucket views (DDP's gradient_as_bucket_view=True): each param.grad() is
// set to a view of its slot in the bucket buffer, so autograd accumulates straight into
// the bucket and the compressor's result is the gradient: no copy into the bucket and no
// copy back (two passes over all gradients saved per iteration). Call the reducer's
// zero_grad() (zeroes the buckets) instead of the optimizer's, which in LibTorch 2.x
// sets gradients to undefined. A gradient that is not the view (set to undefined or
// replaced) is copied in and out as before, and the view is restored afterwards. Error feedback is the compressor's business
// ("ef(topk:k=0.01)" from the registry); FP16/BF16 baselines are the schemes fp16/bf16.
#pragma once

#include "compressors/compressor.h"
#include "trainer/runtime/timing_communicator.h"

#include <torch/nn/module.h>
#include <torch/types.h>

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gcu::trainer {

enum class ReduceMode { Overlap, After };
ReduceMode parse_reduce_mode(const std::string& s);  // "overlap" | "after"; throws TrainError
const char* reduce_mode_name(ReduceMode m);

struct ReducerOptions {
  int64_t first_bucket_bytes = 1 << 20;
  int64_t bucket_cap_bytes = 25 << 20;
  ReduceMode mode = ReduceMode::Overlap;
  // GPU path: run first on the communication thread (make the rank's device current;
  // CUDA's current device is per thread); the wait for the device at the end of an
  // iteration (NCCL-aware: polls errors, honours the timeout); and the CUDA-event marks
  // that time compressor steps without waiting at each collective boundary
  // (TimingCommunicator::set_device_marks; not owned).
  std::function<void()> thread_init;
  std::function<void()> device_sync;
  DeviceMarks* device_marks = nullptr;
};

struct BucketSpec {
  std::vector<int64_t> params;   // indices into the reducer's parameter list, bucket order
  std::vector<int64_t> offsets;  // element offset of each in the bucket buffer
  compress::BucketLayout layout;
  int64_t numel() const { return layout.numel(); }
};

// DDP's bucket assignment (model/buckets.h: assign_ddp_buckets, the same rule the model
// plans with) over float32 tensors given in registration order, walked in reverse (the
// gradient-ready order); buckets come out in backward order. A 0-d parameter's layout
// shape is {1} (model::bucket_shape). Throws TrainError for a size <= 0.
std::vector<BucketSpec> assign_buckets(const std::vector<std::vector<int64_t>>& shapes,
                                       int64_t first_bucket_bytes, int64_t bucket_cap_bytes);

struct ReduceTimes {
  double exposed_s = 0;   // waiting in finish_iteration() for communication to end
  double comm_busy_s = 0; // total time spent in compressor steps (all buckets)
  StepTimes steps;        // encode / collectives / decode summed over buckets
};

class Reducer {
 public:
  // `params`: the model's trainable parameters in registration order (leaf tensors that
  // require grad, float32, all on one device). Compressor and communicator must outlive
  // the reducer.
  Reducer(std::vector<torch::Tensor> params, compress::Compressor& compressor,
          compress::Communicator& comm, ReducerOptions options = {});
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Zeroes the gradients (the bucket buffers; gradients that are not bucket views too).
  void zero_grad();
  // Arms the hooks; call before backward.
  void begin_iteration();
  // Waits for every bucket (launching those with parameters that got no gradient), then
  // writes the averaged gradients into param.grad(). Rethrows a communication error.
  ReduceTimes finish_iteration();

  const std::vector<BucketSpec>& buckets() const { return buckets_; }
  // Whether param.grad() is currently the view of its bucket slot.
  bool gradient_is_bucket_view(int64_t param) const { return grad_is_view(param); }
  // Called (on the thread that runs the bucket) before bucket i's step, e.g. to set the
  // communicator's error context. Set before the first iteration.
  std::function<void(int64_t bucket)> on_bucket_start;
  // Called after the last step of an iteration, before timing stops (GPU: synchronize).
  std::function<void()> sync_device;

 private:
  void grad_ready(int64_t param);
  void copy_in(int64_t param);
  torch::Tensor slot(int64_t param) const;      // param's view of its bucket
  bool grad_is_view(int64_t param) const;
  void run_bucket(int64_t b);
  void comm_loop();

  std::vector<torch::Tensor> params_;
  compress::Compressor& compressor_;
  TimingCommunicator timing_;
  ReducerOptions options_;
  std::vector<BucketSpec> buckets_;
  std::vector<torch::Tensor> buffers_;       // one flat float buffer per bucket
  std::vector<int64_t> bucket_of_, slot_of_;  // per parameter
  std::vector<std::shared_ptr<void>> hooks_;  // keep the grad accumulators alive

  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool stop_ = false;
  std::vector<char> param_ready_;
  std::vector<int64_t> pending_;  // per bucket: parameters not yet ready
  int64_t next_ = 0;              // next bucket the comm thread runs
  int64_t launched_ = 0;          // buckets complete and handed to the comm thread (prefix)
  std::vector<char> bucket_ready_;
  std::exception_ptr error_;
  std::exception_ptr init_error_;  // options_.thread_init failed on the comm thread
  ReduceTimes times_;
  std::thread comm_thread_;
};

// Copies rank `root`'s parameters and buffers into every rank's module (DDP does this
// at construction): all ranks start from the same point.
void broadcast_module_state(torch::nn::Module& module, compress::Communicator& comm, int root = 0);
// Copies rank `root`'s tensors to every rank, all in one broadcast (DDP coalesces its
// per-iteration buffer broadcast the same way).
void broadcast_tensors(const std::vector<torch::Tensor>& tensors, compress::Communicator& comm,
                       int root = 0);

}  // namespace gcu::trainer
