// Options of `gcu train` and `gcu launch`, and the library entry points the CLI calls.
// Torch-free on purpose: cli/train.cpp and cli/launch.cpp include only this header, so
// the `gcu` binary's CLI files compile in seconds (the LibTorch code is in gcu_trainer).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::trainer {

// Thrown for bad options and bad environments (missing rank variables, unreadable
// checkpoint, ...): the message names the offending value. The CLI exits with code 2.
struct TrainError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when a collective fails or times out (a rank died or stalled). A TrainError (the
// trainer's one error type), but not the user's fault: exit code 1, not 2.
struct DistributedError : TrainError {
  using TrainError::TrainError;
};

struct TrainOptions {
  // what to train
  std::string model = "cnn";            // make_net() spec, e.g. "cnn", "resnet18"
  std::string data = "fashion-mnist";   // "fashion-mnist", "synthetic" or "one-batch"
  std::string data_dir;                 // empty: the dataset's default location
  int64_t batch = 64;                   // per-rank batch size (weak scaling, like DDP)
  int64_t iters = 500;                  // total iterations (including resumed ones)
  uint64_t seed = 1;
  int threads = 0;                      // intra-op threads per rank; 0: LibTorch default
  // optimizer and schedule
  std::string optimizer = "sgd";        // sgd | adamw
  double lr = 0.05;
  double momentum = 0.9;                // sgd only
  double weight_decay = 0.0;
  std::string schedule = "constant";    // constant | step | cosine
  int64_t warmup_iters = 0;             // linear warm-up from 0 to lr
  int64_t step_every = 0;               // step schedule: multiply by step_gamma every N iters
  double step_gamma = 0.1;
  // compression and reduction
  std::string scheme = "none";          // registry spec, e.g. "powersgd:rank=4", "ef(topk:k=0.01)"
  std::string mode = "overlap";         // overlap | after
  double first_bucket_mib = 1.0;
  double bucket_cap_mib = 25.0;
  // process group
  std::string backend = "auto";         // auto | gloo | nccl
  std::string device = "cpu";           // cpu | cuda
  double timeout_s = 60.0;              // collective / rendezvous timeout; also the watchdog's
  // measurement
  int64_t warmup = 5;                   // iterations discarded from the summary
  int64_t eval_every = 0;               // 0: no periodic evaluation
  int64_t eval_samples = 0;             // 0: the whole test set
  double target_acc = 0.0;              // stop when test accuracy >= this (0: never)
  std::string log;                      // JSON-lines log (rank 0 writes; "-" = stdout)
  bool log_all_ranks = false;           // every rank writes <log>.rank<r>
  bool quiet = false;                   // no per-eval progress lines on stderr
  // checkpoints
  std::string checkpoint;               // prefix: each rank writes <prefix>.rank<r>
  int64_t checkpoint_every = 0;         // 0: only at the end (when checkpoint is set)
  bool resume = false;                  // start from <checkpoint>.rank<r>
  // testing aids
  int64_t stall_at_iter = -1;           // this rank sleeps forever at that iteration (fault tests)
  int stall_rank = -1;
  std::string dump_params;              // write the final flattened parameters (raw float32)
};

// Runs one rank of a training job (rank and world from the environment, see
// rendezvous.h). Returns the process exit code; throws TrainError / DistributedError.
int run_train(const TrainOptions& opt);

struct LaunchOptions {
  int nproc = 2;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;                  // 0: pick a free port
  double grace_s = 5.0;                 // after one rank fails, wait this long, then SIGTERM/SIGKILL the rest
  bool prefix_output = true;            // "[rank N] " before each line
  std::vector<std::string> command;     // program and arguments (e.g. gcu train ...)
};

// Starts opt.nproc copies of opt.command on this machine with RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT set; returns 0 when all
// exit 0, else a non-zero code after naming the first failing rank on stderr.
// "{rank}" and "{nproc}" in the command are replaced by each rank's number and the rank
// count (per-rank launcher templates: `gcu launch -n 2 -- ip netns exec ns{rank} gcu train`).
int run_launch(const LaunchOptions& opt);
std::vector<std::string> rank_command(const std::vector<std::string>& command, int rank, int nproc);

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it back).
int pick_free_port();

}  // namespace gcu::trainer
