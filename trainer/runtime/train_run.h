// One rank's training run in steps (internal to gcu_trainer; the entry point is
// run_train, train_options.h). TrainRun holds what set-up builds and the loop updates;
// run_train (train_loop.cpp) calls the steps in order:
//   setup_run        train_setup.cpp: options checked before any rendezvous (bad
//                    arguments fail fast on every rank), device, scheme, model (same
//                    seed everywhere, then rank 0's weights broadcast), data, process
//                    group, optimizer, reducer, resume, log header
//   stall_if_asked   the fault-injection hook of the tests (--stall-at-iter)
//   run_iteration    data, forward, backward with overlapped reduction, exposed
//                    communication, optimizer; one "iter" log record
//   evaluate         test accuracy over all ranks, time to target
//   checkpoint       every --checkpoint-every iterations and at the end
//   finish_run       summary record, final parameters, the closing line
//
// --device cuda (GPU path, gpu.h): the model, data and gradient buckets live on GPU
// LOCAL_RANK; buckets are reduced by the CUDA compressors over NCCL (gpu::make_nccl_
// communicator); Gloo still carries the set-up broadcasts, batch-norm buffers (staged
// through the host) and evaluation counts. Phase boundaries synchronize the device
// (TrainRun::sync), so the breakdown is in device time.
#pragma once

#include "trainer/data/dataset.h"
#include "trainer/models/registry.h"
#include "trainer/runtime/checkpoint.h"
#include "trainer/runtime/optim.h"
#include "trainer/runtime/pg_communicator.h"
#include "trainer/runtime/process_group.h"
#include "trainer/runtime/reducer.h"
#include "trainer/runtime/train_options.h"
#include "trainer/runtime/trainlog.h"
#include "trainer/runtime/watchdog.h"

#include "compressors/compressor.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gcu::trainer {

using RunClock = std::chrono::steady_clock;

// Test images per evaluation batch (a forward pass without gradients).
inline constexpr int64_t kEvalBatch = 500;
// Image side for data loading when the net has no image input (token models): Fashion-MNIST's.
inline constexpr int64_t kDefaultImageSide = 28;
// The watchdog ends a rank that made no progress for --timeout plus this long (the
// collectives' own timeout fires first and names the missing ranks).
inline constexpr double kWatchdogGraceS = 60.0;
// torch's global seed at iteration i is seed * kIterSeedStride + i (dropout masks etc.):
// the same on every rank and after a resume.
inline constexpr uint64_t kIterSeedStride = 1000003ULL;

// What the loop accumulates for the summary.
struct RunProgress {
  int64_t iter = 0;               // the next iteration to run (== completed iterations)
  int64_t start_iter = 0;         // first iteration of this process (> 0 after --resume)
  TimingSummary timing;           // measured (post-warm-up) iterations
  RunClock::time_point wall0;
  double eval_s = 0;
  double last_acc = -1;           // < 0: never evaluated
  bool reached = false;
  double tta_s = 0, tta_wall_s = 0;
  int64_t tta_iter = -1;
  double loss_first = -1, loss_last = -1;
};

// Member order is destruction order reversed: the reducer goes before the compressor and
// communicators it uses, the watchdog after the process group.
struct TrainRun {
  explicit TrainRun(const TrainOptions& o) : opt(o) {}
  TrainRun(const TrainRun&) = delete;
  TrainRun& operator=(const TrainRun&) = delete;

  bool on_gpu() const { return device.is_cuda(); }
  void sync() const;  // GPU: waits for the device (phase boundaries); CPU: nothing
  bool lead() const { return info.rank == 0; }

  const TrainOptions& opt;
  RankInfo info;
  torch::Device device = torch::kCPU;
  ReduceMode mode = ReduceMode::Overlap;
  OptimizerConfig oc;
  std::unique_ptr<compress::Compressor> compressor;
  std::shared_ptr<Net> net;
  std::unique_ptr<BatchSource> source;
  std::unique_ptr<EvalIterator> eval;  // null: no evaluation
  std::unique_ptr<Watchdog> watchdog;
  DistContext ctx;
  std::unique_ptr<PgCommunicator> comm;  // Gloo: set-up, buffers, evaluation (and buckets on CPU)
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<compress::Communicator> nccl;  // GPU: the buckets
  std::unique_ptr<DeviceMarks> marks;             // GPU: CUDA-event step timing
  std::unique_ptr<Reducer> reducer;
  std::vector<torch::Tensor> buffers;  // batch-norm statistics, broadcast from rank 0
  TrainState state;
  std::string ckpt;                    // this rank's checkpoint file; empty: none
  std::unique_ptr<JsonLinesWriter> log;
  RunProgress progress;
};

// train_setup.cpp
void setup_run(TrainRun& run);

// train_loop.cpp
void stall_if_asked(const TrainOptions& o, int rank, int64_t iter);
double run_iteration(TrainRun& run);                 // returns the loss
bool evaluate(TrainRun& run, double loss);           // true: the target was reached now
void checkpoint(TrainRun& run, int64_t iter);
void finish_run(TrainRun& run);

}  // namespace gcu::trainer
