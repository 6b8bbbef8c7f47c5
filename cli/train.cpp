// `gcu train`: one rank of a compressed data-parallel training run (trainer/runtime).
// Rank and world come from the environment (torchrun, gcu launch, mpirun or srun).
#include "command.h"
#include "descriptions.h"
#include "model_flags.h"

#include "trainer/runtime/train_options.h"

#include <memory>

namespace {

// The footer of `gcu train --help`.
constexpr const char* kFooter = R"EX(Rank information comes from the environment: RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR, MASTER_PORT (torchrun style, set by `gcu launch`), or Open MPI's
OMPI_COMM_WORLD_* or Slurm's SLURM_PROCID/NTASKS/LOCALID plus MASTER_ADDR/MASTER_PORT.
With none of them, it is a single process (world size 1). See docs/trainer.md.

Examples:
  # 2 ranks on this machine, PowerSGD rank 4, stop at 85% test accuracy
  gcu launch -n 2 -- gcu train --model cnn --scheme powersgd:rank=4 --batch 64 \
      --lr 0.05 --iters 2000 --eval-every 100 --target-acc 0.85 --log run.jsonl
  # timing only: synthetic data, top-k 1% with error feedback, compressed after backward
  gcu launch -n 4 -- gcu train --model resnet18 --data synthetic --scheme "ef(topk:k=0.01)" \
      --mode after --iters 60 --warmup 10 --log t.jsonl
  # checkpoint every 100 iterations, then resume from the last one
  gcu launch -n 2 -- gcu train --iters 500 --checkpoint ck --checkpoint-every 100
  gcu launch -n 2 -- gcu train --iters 1000 --checkpoint ck --resume
  # one node of a multi-node job (repeat on each node with its NODE_RANK)
  torchrun-style: RANK=... WORLD_SIZE=8 MASTER_ADDR=node0 MASTER_PORT=29500 gcu train ...
Schemes: `gcu schemes` lists them (any registry spec works, e.g. "ef(topk:k=0.01)").)EX";

// Network, data, batch, length, seed and threads.
void add_workload_options(CLI::App* sub, gcu::trainer::TrainOptions* opt) {
  sub->add_option("--model", opt->model, "network spec (cnn, resnet18, resnet50, vgg19, bert:..., or your own: torchscript:FILE.pt "
                  "with --input-shape)")
      ->capture_default_str();
  sub->add_option("--data", opt->data,
                  "fashion-mnist; synthetic (timing runs: a fixed random input per rank, fresh random labels every "
                  "step, nothing to memorize); or one-batch (that input with fixed labels: the overfit-one-batch "
                  "check, where any working scheme drives the loss down)")
      ->check(CLI::IsMember({"fashion-mnist", "synthetic", "one-batch"}))->capture_default_str();
  sub->add_option("--data-dir", opt->data_dir, "where unpacked Fashion-MNIST goes (default: cache)");
  sub->add_option("--batch", opt->batch, "per-rank batch size")->check(gcu::cli::positive_count(1000000))
      ->capture_default_str();
  sub->add_option("--iters", opt->iters, "total iterations")->check(gcu::cli::positive_count(1000000000000LL))
      ->capture_default_str();
  sub->add_option("--seed", opt->seed, "random seed (same on all ranks)")->capture_default_str();
  sub->add_option("--threads", opt->threads, "intra-op threads per rank (0: LibTorch default)")
      ->check(gcu::cli::kNonNegativeFinite)->capture_default_str();
}

// Optimizer and learning-rate schedule.
void add_optimizer_options(CLI::App* sub, gcu::trainer::TrainOptions* opt) {
  sub->add_option("--optimizer", opt->optimizer, "sgd or adamw")
      ->check(CLI::IsMember({"sgd", "adamw"}))->capture_default_str();
  sub->add_option("--lr", opt->lr, "base learning rate")->check(gcu::cli::kPositiveFinite)
      ->check(gcu::cli::kFinite)->capture_default_str();
  sub->add_option("--momentum", opt->momentum, "SGD momentum")->check(CLI::Range(0.0, 0.999999))
      ->check(gcu::cli::kFinite)->capture_default_str();
  sub->add_option("--weight-decay", opt->weight_decay, "weight decay")
      ->check(gcu::cli::kNonNegativeFinite)->check(gcu::cli::kFinite)->capture_default_str();
  sub->add_option("--schedule", opt->schedule, "learning-rate schedule: constant, step or cosine")
      ->check(CLI::IsMember({"constant", "step", "cosine"}))->capture_default_str();
  sub->add_option("--warmup-iters", opt->warmup_iters, "linear learning-rate warm-up iterations")
      ->check(gcu::cli::kNonNegativeFinite)->capture_default_str();
  sub->add_option("--lr-step-every", opt->step_every, "step schedule: iterations per step");
  sub->add_option("--lr-step-gamma", opt->step_gamma, "step schedule: factor per step")
      ->check(gcu::cli::kFinite)->capture_default_str();
}

// Compression scheme, buckets, backend, device and timeout.
void add_communication_options(CLI::App* sub, gcu::trainer::TrainOptions* opt) {
  sub->add_option("--scheme", opt->scheme, "compression scheme spec (see `gcu schemes`)")
      ->capture_default_str();
  sub->add_option("--mode", opt->mode, "overlap: per-bucket during backward; after: after backward")
      ->check(CLI::IsMember({"overlap", "after"}))->capture_default_str();
  sub->add_option("--first-bucket-mib", opt->first_bucket_mib, "first bucket size (MiB)")
      ->check(gcu::cli::kPositiveFinite)->check(gcu::cli::kFinite)->capture_default_str();
  sub->add_option("--bucket-cap-mib", opt->bucket_cap_mib, "bucket cap (MiB)")
      ->check(gcu::cli::kPositiveFinite)->check(gcu::cli::kFinite)->capture_default_str();
  sub->add_option("--backend", opt->backend, "auto, gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))->capture_default_str();
  sub->add_option("--device", opt->device, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  sub->add_option("--timeout", opt->timeout_s, "seconds a rank waits for the others in a "
                  "collective or the rendezvous before failing")->check(gcu::cli::kPositiveFinite)
      ->check(gcu::cli::kFinite)->capture_default_str();
}

// Timing, evaluation, stopping and logging.
void add_reporting_options(CLI::App* sub, gcu::trainer::TrainOptions* opt) {
  sub->add_option("--warmup", opt->warmup, "iterations left out of the timing summary")
      ->check(gcu::cli::kNonNegativeFinite)->capture_default_str();
  sub->add_option("--eval-every", opt->eval_every, "evaluate test accuracy every N iterations (0: "
                  "only at the end when evaluating)")->check(gcu::cli::kNonNegativeFinite);
  sub->add_option("--eval-samples", opt->eval_samples, "evaluate on the first N test images (0: all)")
      ->check(gcu::cli::kNonNegativeFinite);
  sub->add_option("--target-acc", opt->target_acc, "stop when test accuracy reaches this")
      ->check(CLI::Range(0.0, 1.0))->check(gcu::cli::kFinite);
  sub->add_option("--log", opt->log, "JSON-lines log (schema gcu.trainlog/1; '-' = stdout)");
  sub->add_flag("--log-all-ranks", opt->log_all_ranks, "every rank writes <log>.rank<r>");
  sub->add_flag("--quiet", opt->quiet, "no progress lines");
}

// Checkpoints, resuming and the final parameters.
void add_checkpoint_options(CLI::App* sub, gcu::trainer::TrainOptions* opt) {
  sub->add_option("--checkpoint", opt->checkpoint, "checkpoint prefix: rank r writes <prefix>.rank<r>");
  sub->add_option("--checkpoint-every", opt->checkpoint_every, "also checkpoint every N iterations")
      ->check(gcu::cli::kNonNegativeFinite);
  sub->add_flag("--resume", opt->resume, "continue from the checkpoint files");
  sub->add_option("--dump-params", opt->dump_params,
                  "write final parameters (raw float32) to <file>.rank<r> (testing)");
}

// Hidden testing options (a stalled rank).
void add_testing_options(CLI::App* sub, gcu::trainer::TrainOptions* opt) {
  sub->add_option("--stall-at-iter", opt->stall_at_iter, "testing: --stall-rank sleeps forever here")
      ->group("");
  sub->add_option("--stall-rank", opt->stall_rank, "testing: which rank stalls")->group("");
}

void setup_train(CLI::App& app) {
  auto opt = std::make_shared<gcu::trainer::TrainOptions>();
  auto* sub = app.add_subcommand(gcu::cli::describe::kTrain.name, gcu::cli::describe::kTrain.description);
  sub->footer(kFooter);
  add_workload_options(sub, opt.get());
  add_optimizer_options(sub, opt.get());
  add_communication_options(sub, opt.get());
  add_reporting_options(sub, opt.get());
  add_checkpoint_options(sub, opt.get());
  add_testing_options(sub, opt.get());
  auto flags = std::make_shared<gcu::trainer::ScriptedFlags>();
  gcu::cli::add_scripted_model_flags(sub, flags.get());
  sub->callback([opt, flags] {
    opt->model = gcu::cli::model_spec_with_flags(opt->model, *flags);
    try {
      const int rc = gcu::trainer::run_train(*opt);
      if (rc != 0) throw CLI::RuntimeError(rc);
    } catch (const gcu::trainer::DistributedError&) {
      throw;  // a rank died or stalled: exit 1
    } catch (const gcu::trainer::TrainError& e) {
      throw gcu::cli::UsageError(e.what());
    }
  });
}

const gcu::cli::Registrar reg_train{gcu::cli::describe::kTrain.name, gcu::cli::describe::kTrain.order, &setup_train};

}  // namespace
