// `gcu validate`: run `gcu train` over a grid on the shaped-network testbed, predict each
// cell with the model and report predicted vs measured per component (validate/validate.h).
#include "command.h"
#include "descriptions.h"
#include "model_flags.h"

#include "model/profile_json.h"
#include "model/units.h"
#include "simulate/error.h"
#include "util/output_file.h"
#include "validate/validate.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

namespace gcu::cli {
namespace {

struct ValidateCli {
  validate::ValidateOptions o;
  std::vector<std::string> links = {"unlimited"};
  bool no_plots = false, no_measure = false, no_calibration_noise = false;
  trainer::ScriptedFlags model_flags;
};

std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string out;
  for (char c : raw) out += c == '\0' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void setup_validate(CLI::App& app) {
  auto opt = std::make_shared<ValidateCli>();
  auto& o = opt->o;
  auto* sub = app.add_subcommand(describe::kValidate.name, describe::kValidate.description);
  sub->footer(R"(Each cell (scheme x link x mode x batch x ranks) runs `gcu train` on synthetic data
(--data fashion-mnist: the real training set) in the testbed: every rank in its own
network namespace, joined through a bridge, links rate-limited with tc in both
directions (scripts/netbed.sh; needs root, ip and tc, else
an unshaped loopback fallback that says so). Cells run in a random interleaved order,
--repeats rounds. The measured value is the mean iteration time (what throughput and
time-to-accuracy pay; --statistic median for the typical iteration); a cell whose value
moved more between rounds than |error| is noise-limited, not counted as a model error;
the machine's speed in each round (its forward + optimizer step) is taken out first
(--speed-adjust).
Report: table, validate.{json,csv,txt} (schema gcu.validate/8, docs/validate-schema.md),
bandwidth.png and scatter.png in --out. Exit codes: 0 every cell ran; 3 the reports are
written but some cells failed (a rank died, a time-out); 2 bad input, nothing run.

Examples:
  gcu validate -p prof.json --model cnn --schemes "none;fp16" --links unlimited,1gbit,200mbit
  gcu validate --calibrate --model resnet18:classes=10,image=32 --batch 32 \
      --schemes "none;fp16;powersgd:rank=4" --links unlimited,1gbit --repeats 3 --out val
  # batch sizes (weak scaling): calibrated at each, the report grouped per batch; then
  # scripts/batch_check.sh val-batches OUT predicts each batch from a profile without it
  gcu validate --calibrate --model resnet18:classes=10,image=32 --batch 16,32,64 \
      --schemes "none;qsgd" --links unlimited,200mbit --repeats 4 --out val-batches)");
  sub->add_option("-p,--profile", o.profile, "gcu.profile/2 of the same model and placement (with --calibrate: "
                                              "where the new profile goes)");
  sub->add_flag("--calibrate", o.calibrate, "run `gcu calibrate` first, in the same placement (unshaped links)");
  sub->add_option("--calibrate-budget-s", o.calibrate_budget_s, "calibration time budget")->capture_default_str();
  sub->add_option("--model", o.grid.model, "gcu train --model spec (or your own: torchscript:FILE.pt with --input-shape)")
      ->capture_default_str();
  add_scripted_model_flags(sub, &opt->model_flags);
  sub->add_option("--schemes", o.grid.schemes, "';'-separated scheme specs")->delimiter(';')->capture_default_str();
  sub->add_option("--links", opt->links, "link rates: unlimited, 1gbit, 200mbit, or Gbit/s")
      ->delimiter(',')->capture_default_str();
  sub->add_option("--modes", o.grid.modes, "overlap and/or after")->delimiter(',')->capture_default_str();
  sub->add_option("--batch", o.grid.batches, "per-rank batch sizes")->delimiter(',')->capture_default_str();
  sub->add_option("--ranks", o.grid.ranks, "rank counts")->delimiter(',')->capture_default_str();
  sub->add_option("--iters", o.iters, "gcu train iterations per round")->capture_default_str();
  sub->add_option("--warmup", o.warmup, "of which discarded")->capture_default_str();
  sub->add_option("--repeats", o.repeats, "rounds over all cells, each in a fresh random order")
      ->capture_default_str();
  sub->add_option("--threads", o.threads, "intra-op threads per rank")->capture_default_str();
  sub->add_option("--seed", o.seed, "seed of the cell order")->capture_default_str();
  sub->add_option("--testbed", o.testbed,
                  "auto, netns, loopback, or launcher (your cluster's launcher, --launcher: the network as it is)")
      ->capture_default_str();
  sub->add_option("--launcher", o.launcher,
                  "with --testbed launcher: how your cluster starts ranks, {cmd} standing alone where the rank command "
                  "goes; whole-job ('mpirun -np {ranks} {cmd}', 'srun -N2 --ntasks-per-node=4 {cmd}') or per rank, "
                  "with {rank} ('ssh node{rank} {cmd}'; gcu launch starts one each)");
  sub->add_option("--master-addr", o.master_addr, "with --testbed launcher: rank 0's address (MASTER_ADDR)")
      ->capture_default_str();
  sub->add_option("--shape-cmd", o.shape_cmd,
                  "with --testbed launcher: a command that shapes the links to {rate} (tc's rate in kbit, e.g. 200000kbit; "
                  "{ranks} too), run before a shaped link's cells; without it only unlimited links run");
  sub->add_option("--unshape-cmd", o.unshape_cmd, "with --testbed launcher: puts the links back (after --shape-cmd)");
  sub->add_option("--protocol", o.protocol,
                  "user: what a user gets: one calibration (before the grid, or -p), then each cell predicted "
                  "with the link's rate as a point-to-point probe measures it (one TCP stream each way at once, "
                  "like iperf3 --bidir; reported beside the nominal rate), nothing else re-measured. diagnose: "
                  "the in-grid measurements that attribute an error (--predict-rate link-fits, --link-gamma on, "
                  "--compute-probes on, --speed-adjust forward). Any of those four options overrides its "
                  "protocol's value. Every shaped link is probed under both, so `--reuse --protocol user` "
                  "re-predicts a diagnose run as a user would get it")
      ->check(CLI::IsMember({"user", "diagnose"}))
      ->capture_default_str();
  sub->add_option("--predict-rate", o.predict_rate,
                  "link rate given to the model: probe (the point-to-point probe; user protocol), measured "
                  "(all-reduce through the link), nominal, or link-fits (every collective kind's cost measured "
                  "through the link, per message size, from the link sweep: all-reduces from 128 KiB per rank, "
                  "other kinds from 1 MiB; smaller messages at the measured rate; diagnose protocol)")
      ->check(CLI::IsMember({"probe", "measured", "nominal", "link-fits"}));
  sub->add_option("--statistic", o.statistic,
                  "measured value compared with the prediction: mean (time per iteration) or median")
      ->check(CLI::IsMember({"mean", "median"}))
      ->capture_default_str();
  sub->add_option("--speed-adjust", o.speed_adjust,
                  "forward: take the machine's speed out of each cell's rounds before the noise test and the "
                  "error statistics (a round's forward + optimizer step, which no scheme, link or mode changes, "
                  "against its group's mean; scaled by the model's sensitivity of the total to compute speed); the "
                  "raw figures are reported beside. off: the raw measurement alone (docs/validation.md §2)")
      ->check(CLI::IsMember({"forward", "off"}))
      ->default_str("off (user), forward (diagnose)");
  sub->add_option("--compute-probes", o.compute_probes,
                  "on: time gcu calibrate's compute step again once per round, at a random place among the cells "
                  "(the calibration's ranks, unshaped link, --calibrate-arg's arguments; ~10 s for ResNet-18), and "
                  "predict with the probes' median forward, backward and optimizer, so the machine's speed while the "
                  "grid ran, not at calibration time, is what the model gets; gamma, collectives and codecs stay the "
                  "calibration's. With --reuse, the recorded probes. off: the profile's compute (docs/validation.md §2)")
      ->check(CLI::IsMember({"on", "off"}))
      ->default_str("off (user), on (diagnose)");
  sub->add_option("--error-goal", o.error_goal,
                  "the |error| of the total you need the model within (0.05 = 5%): a noise-limited cell whose "
                  "error's 80% interval stays inside it counts as within the goal, one reaching past it as open "
                  "(the summary's goal_check; docs/validation.md §2)")
      ->capture_default_str();
  sub->add_flag("--no-measure-links", opt->no_measure, "skip the link-rate measurement");
  sub->add_option("--link-gamma", o.link_gamma,
                  "on: after each link's rate sweep, run calibrate's gamma step through that link too (backward "
                  "alone and beside the model's bucket all-reduces, ~20 s at 4 ranks) and predict the link's cells "
                  "with its gamma and collective contention instead of the calibration's: at 4 ranks the all-reduces "
                  "slowed the backward 2.0x beside a 3 Gbit/s link where the unshaped link slowed it 1.2-1.5x "
                  "(docs/history/validation-log.md). With --reuse, the kept links/*.gamma.json.state.json. off: the "
                  "profile's everywhere")
      ->check(CLI::IsMember({"on", "off"}))
      ->default_str("off (user), on (diagnose)");
  sub->add_option("--out", o.out_dir, "output directory")->capture_default_str();
  sub->add_option("--gcu", o.gcu, "gcu binary the ranks run (default: this one)");
  sub->add_option("--netbed", o.netbed, "path of scripts/netbed.sh");
  sub->add_option("--cell-timeout", o.cell_timeout_s, "seconds before a cell's run is stopped")
      ->capture_default_str();
  sub->add_flag("--no-plots", opt->no_plots, "skip the gnuplot plots");
  sub->add_flag("--no-calibration-noise", opt->no_calibration_noise,
                "skip the predicted p10-p90 from the calibration's own sampling noise (the profile's collective "
                "sweeps, <profile>.state.json, redrawn 200 times within their standard errors and refitted); "
                "with it, a cell is noise-limited when hypot(measured uncertainty, that interval) exceeds its error");
  sub->add_flag("--reuse", o.reuse, "run nothing: re-predict the trainer logs and link sweeps already in --out "
                                   "(same grid) with -p (e.g. after re-calibrating)");
  sub->add_option("--exclude-rounds", o.exclude_rounds,
                  "with --reuse: leave these rounds (1-based, comma-separated) out of every cell, e.g. one that the "
                  "summary's round drift shows the whole machine slower in (the report's grid.exclude_rounds says which "
                  "were left out; their drift reads null)")
      ->delimiter(',');
  sub->add_option("--device", o.device,
                  "cpu (Gloo), or cuda: every rank trains on its own GPU (gcu train --device cuda, NCCL and the CUDA "
                  "schemes), and --calibrate and the link sweeps use gcu calibrate --backend nccl")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  sub->add_option("--data", o.data,
                  "what every cell trains on (gcu train --data) and, with --calibrate, what calibrate times compute "
                  "on (--compute-data): synthetic, or fashion-mnist (image models; the data a real run sees)")
      ->check(CLI::IsMember({"synthetic", "fashion-mnist"}))
      ->capture_default_str();
  sub->add_option("--train-arg", o.train_args, "extra argument for gcu train (repeatable)");
  sub->add_option("--calibrate-arg", o.calibrate_args,
                  "extra argument for gcu calibrate with --calibrate (repeatable; an option and its value are two, "
                  "e.g. --calibrate-arg=--collective-calls-scale --calibrate-arg=4)");
  sub->callback([opt] {
    auto& o = opt->o;
    o.plots = !opt->no_plots;
    o.calibration_noise = !opt->no_calibration_noise;
    o.measure_links = !opt->no_measure;
    o.command_line = command_line();
    o.grid.model = model_spec_with_flags(o.grid.model, opt->model_flags);
    try {
      o.grid.links.clear();
      for (const auto& l : opt->links) o.grid.links.push_back(validate::parse_link(l));
      const validate::Report rep = validate::run_validate(o, std::cerr);
      if (rep.summary.failed > 0) {
        // The reports are written; a script still learns that some cells did not run.
        std::fprintf(stderr,
                     "gcu validate: %d of %d cells failed (a rank died, a time-out: each cell's message in "
                     "validate.txt and validate.json); the others are reported. Exit code 3\n",
                     rep.summary.failed, rep.summary.cells);
        throw CLI::RuntimeError(3);
      }
    } catch (const validate::ValidateError& e) {
      throw UsageError(e.what());
    } catch (const model::ModelError& e) {  // ProfileError too
      throw UsageError(e.what());
    } catch (const simulate::SimulateError& e) {
      throw UsageError(e.what());
    } catch (const util::FileError& e) {
      throw UsageError(e.what());
    }
  });
}

const Registrar reg_validate{describe::kValidate.name, describe::kValidate.order, &setup_validate};

}  // namespace
}  // namespace gcu::cli
