// `gcu calibrate`: measure this machine and write a profile (docs/calibrate.md; calibrate/calibrate.h).
// Run on every rank, e.g. `gcu launch -n 2 -- gcu calibrate --model cnn -o prof.json`
// or with torchrun-style variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT).
#include "calibrate/calibrate.h"
#include "command.h"
#include "descriptions.h"
#include "model_flags.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>

namespace gcu::cli {
namespace {

// The full command line of this process (provenance), from /proc/self/cmdline.
std::string full_command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string out;
  for (char c : raw) out += c == '\0' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.empty() ? "gcu calibrate" : out;
}

struct CalibrateCli {
  calibrate::CalibrateOptions o;
  trainer::ScriptedFlags model_flags;
  std::string command;
};

void setup_calibrate(CLI::App& app) {
  auto opt = std::make_shared<CalibrateCli>();
  auto* sub = app.add_subcommand(describe::kCalibrate.name, describe::kCalibrate.description);
  auto& o = opt->o;
  sub->add_option("-o,--output", o.output, "Profile to write (JSON, gcu.profile/2)")->required();
  sub->add_option("--model-part", o.model_part,
                  "Also write the profile's model part (gcu.model-part/1: model, buckets, convergence) here");
  sub->add_option("--system-part", o.system_part,
                  "Also write the profile's system part (gcu.system-part/1: cluster, codec costs) here; `gcu "
                  "simulate -p MODEL --system SYSTEM` combines any two");
  sub->add_option("--model", o.model_spec, "Model spec, e.g. cnn, resnet18:classes=10,channels=1,image=28, or your own: "
                  "torchscript:FILE.pt with --input-shape")
      ->capture_default_str();
  add_scripted_model_flags(sub, &opt->model_flags);
  sub->add_option("--batch-sizes", o.batch_sizes, "Per-rank batch sizes to time")->delimiter(',')->capture_default_str();
  sub->add_option("--warmup", o.warmup, "Warm-up iterations discarded per measurement")->capture_default_str();
  sub->add_option("--iters", o.iters, "Timed iterations per measurement")->capture_default_str();
  sub->add_option("--min-bytes", o.min_bytes, "Smallest collective message (bytes)")->capture_default_str();
  sub->add_option("--max-bytes", o.max_bytes, "Largest collective message (bytes, nccl-tests size)")->capture_default_str();
  sub->add_option("--schemes", o.schemes,
                  "Compressor specs to time and measure errors of (default: all registered; codec timing "
                  "adds other values of each numeric parameter and an ef(...) spec, docs/calibrate.md)")
      ->delimiter(';');
  sub->add_option("--codec-sizes", o.codec_sizes, "Bucket sizes (elements) of the codec timing sweep")->delimiter(',');
  sub->add_option("--contention-scheme", o.contention_scheme, "Compressor overlapped with backward for the contention factor");
  sub->add_option("--error-snapshots", o.error_snapshots, "Training iterations whose gradients measure compression error")
      ->capture_default_str();
  sub->add_option("--convergence-schemes", o.convergence_schemes,
                  "Schemes of the short convergence runs, which fit the TTA constants and validate them on "
                  "held-out schemes (';'-separated; default qsgd;efsignsgd;ef(topk:k=0.01);topk:k=0.1;"
                  "powersgd:rank=2;signsgd;terngrad; '-' skips the step)")->delimiter(';');
  sub->add_option("--convergence-iterations", o.convergence_iterations, "Length of the FP32 convergence run")
      ->capture_default_str();
  sub->add_option("--budget-s", o.budget_s, "Time budget in seconds (0: none); later steps are shortened or skipped")
      ->capture_default_str();
  sub->add_option("--fit-statistic", o.fit_statistic,
                  "Statistic of each size the collective fits use: mean (the expected cost of a call, latency tail "
                  "included: what an iteration pays on average), median, or p10 / min (the undisturbed cost)")
      ->capture_default_str();
  sub->add_option("--collectives", o.collectives,
                  "Collective kinds to time: allreduce, allgather, reducescatter, broadcast (comma-separated; "
                  "default: every kind). A profile needs the all-reduce for its link")
      ->delimiter(',');
  sub->add_option("--collective-gap-ms", o.collective_gap_ms,
                  "Idle time before each timed collective call, as a training step leaves its communication "
                  "threads idle through forward and backward (on VMs an idle vCPU wakes slowly). Negative: auto, "
                  "the measured forward + backward of the largest batch, at most 20 ms (5 ms without the compute "
                  "step); 0: back-to-back calls, as nccl-tests times them")
      ->capture_default_str();
  sub->add_flag("--collective-gap-busy", o.collective_gap_busy,
                "Spend the gap before each timed collective busy (a loop over a 16 MiB buffer) instead of asleep: "
                "a training step's forward and backward keep the core busy (and, with more ranks than cores, "
                "compete with the other ranks' collectives). Not the default: on the VMs measured it made every prediction "
                "15-40% too pessimistic, where the idle gap is within noise (docs/history/validation-log.md)");
  sub->add_flag("--collective-free-running", o.collective_free_running,
                "Time the collectives as a training step meets them: no barrier before a timed call, each rank "
                "busy for the gap x 0.5-1.5 (its own draw) and then calling, so the ranks arrive at different "
                "times and the first out compute beside the last still in; a call costs what its last arriving "
                "rank measured (docs/history/validation-log.md)");
  sub->add_option("--collective-calls-scale", o.collective_calls_scale,
                  "Time this many times the calls per collective size and per all-gather floor size (and give the "
                  "sweep that many times its share of --budget-s, added to the budget): the calibration's own noise, which gcu validate reports per cell, shrinks "
                  "as 1/sqrt of it (docs/history/validation-log.md). 0.25-64")
      ->capture_default_str();
  sub->add_option("--allgather-floor", o.allgather_floor,
                  "Time each all-gather scheme's bucket all-gathers as a training step enters them (free-running: "
                  "no barrier, each rank after its own busy gap) and keep them as the profile's allgather_floor, "
                  "which the model takes as max(link, floor). auto: when this node's ranks x torch threads "
                  "outnumber its cores, where ranks leaving a call compute on the cores the last still need "
                  "(docs/history/validation-log.md); on; off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  sub->add_option("--compute-loop", o.compute_loop,
                  "How the compute step times forward, backward and optimizer. trainer: inside the trainer's own "
                  "loop (its reducer, the uncompressed all-reduce of every bucket between backward and optimizer, "
                  "no barrier), so the other ranks' communication competes for the cores as it does in training; "
                  "barrier: each iteration alone after a barrier (at 4 ranks on 2 cores its backward came out "
                  "1.4-2.3x short of the trainer's; docs/history/validation-log.md). With --backend nccl, trainer "
                  "runs the buckets over the trainer's own NCCL communicator and falls back to barrier in a "
                  "build without the trainer's GPU path")
      ->check(CLI::IsMember({"trainer", "barrier"}))
      ->capture_default_str();
  sub->add_option("--ready-times", o.ready_times,
                  "Each gradient's ready time inside backward in the profile: spread (backward spread over the "
                  "tensors by parameter count, the model's default) or measured (the compute step's tensor hooks, "
                  "host clock; kept in the state either way). On the five recorded CPU grids the measured times "
                  "predicted no better than the spread (4-rank ResNet-18: median 4.2% with them, 2.8% without; "
                  "docs/model.md)")
      ->check(CLI::IsMember({"spread", "measured"}))
      ->capture_default_str();
  sub->add_option("--compute-data", o.compute_data,
                  "The batches the compute step times, as gcu train --data: synthetic (a fixed random input per "
                  "rank, fresh labels every step) or fashion-mnist (each rank's shuffled shard; image models). "
                  "CPU compute depends on the values: at 2 ranks x batch 32 the CNN's forward took 3.0-3.2 ms on "
                  "Fashion-MNIST and 3.7-3.8 on synthetic inputs (docs/history/validation-log.md), so calibrate "
                  "on the data you will train on")
      ->check(CLI::IsMember({"synthetic", "fashion-mnist"}))
      ->capture_default_str();
  sub->add_option("--state", o.state_file, "State file of partial results (default: <output>.state.json)");
  sub->add_flag("--resume", o.resume, "Reuse the completed steps of the state file");
  sub->add_option("--threads", o.threads, "Torch threads per rank (0: cores / local ranks)")->capture_default_str();
  sub->add_option("--backend", o.backend, "gloo (CPU) or nccl (CUDA-capable LibTorch)")->capture_default_str();
  sub->add_flag("--state-only", o.state_only,
                "Write the state file (-o's .state.json, or --state) and no profile: for measuring one step "
                "alone, e.g. `--skip compute,collectives,... --state-only` for the gamma step on a link (gcu "
                "validate's per-link gamma), whose state cannot make a profile by itself");
  sub->add_option("--skip", o.skip, "Steps to skip: compute,gamma,collectives,codecs,errors,codec-gradients,contention,convergence")
      ->delimiter(',');
  sub->callback([opt]() {
    auto& o = opt->o;
    o.command_line = full_command_line();
    o.model_spec = model_spec_with_flags(o.model_spec, opt->model_flags);
    try {
      auto r = calibrate::run_calibration(o, [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); });
      if (r.wrote_profile) std::printf("%s", r.report.c_str());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  });
}

const Registrar reg_calibrate{describe::kCalibrate.name, describe::kCalibrate.order, &setup_calibrate};

}  // namespace
}  // namespace gcu::cli
