// `gcu pilot`: paired pilot runs and the convergence predictions made from them
// (convergence/pilot.h, convergence/pilot_predict.h; docs/calibrate.md §pilot).
//   gcu pilot run --schemes 'none;fp16;qsgd' --iterations 60 -o pilots.jsonl
//   gcu pilot run ... --sequential 0.6   (one seed first; more only for the undecided)
//   gcu pilot predict pilots.jsonl --target-loss 0.6 [--baseline-iterations 600]
//       [--profile prof.json --write-profile prof.pilot.json]
#include "convergence/pilot.h"
#include "convergence/pilot_predict.h"
#include "convergence/pilot_sequential.h"
#include "command.h"
#include "descriptions.h"
#include "util/output_file.h"

#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <memory>

namespace gcu::cli {
namespace {

// An on|off option with its default shown.
void add_switch(CLI::App* app, const std::string& name, std::string& value, const std::string& help) {
  app->add_option(name, value, help)->check(CLI::IsMember({"on", "off"}))->capture_default_str();
}
// A finite number in [lo, hi] with its default shown.
void add_bounded(CLI::App* app, const std::string& name, double& value, const std::string& help, double lo, double hi) {
  app->add_option(name, value, help)->check(kFinite)->check(CLI::Range(lo, hi))->capture_default_str();
}

struct PilotRunCli {
  calibrate::PilotOptions o;
  std::string output;
  double stop_loss = 0;
  int threads = 1;
  double sequential_target = 0;           // > 0: the sequential design at this target
  calibrate::SequentialOptions seq;
  double baseline_iterations = 0;
};

struct PilotPredictCli {
  calibrate::PilotPredictOptions o;
  std::vector<std::string> inputs;
  double baseline_iterations = 0;
  std::string profile, write_profile;
  std::vector<double> extrapolation_sigma{o.extrapolation_sigma_lo, o.extrapolation_sigma_hi};
  std::string biased_rule = "on";
  std::string late = "on";
  std::string late_stall = "on";
  std::string pace = "level";
  std::string one_seed_term = "on";
};

std::vector<nlohmann::json> read_lines(const std::vector<std::string>& files) {
  std::vector<nlohmann::json> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) throw UsageError("cannot read pilot records '" + f + "'");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      try {
        out.push_back(nlohmann::json::parse(line));
      } catch (const nlohmann::json::parse_error& e) {
        throw UsageError(f + ":" + std::to_string(n) + ": not a JSON line (" + e.what() + ")");
      }
    }
  }
  return out;
}

void setup_pilot(CLI::App& app) {
  auto* sub = app.add_subcommand(describe::kPilot.name, describe::kPilot.description);
  sub->require_subcommand(1);
  auto run = std::make_shared<PilotRunCli>();
  auto* r = sub->add_subcommand("run", "Train every (scheme, seed) for a short budget; write JSON lines");
  auto& o = run->o;
  r->add_option("-o,--output", run->output,
                "JSON lines file (gcu.pilot/1), written when every run has finished; - for stdout")
      ->required();
  r->add_option("--task", o.task, "fashion-mnist | fortunes")->capture_default_str();
  r->add_option("--model", o.model_spec, "Model spec (default: the task's)");
  r->add_option("--schemes", o.schemes, "';'-separated specs; include the baselines none and fp16")->delimiter(';')
      ->capture_default_str();
  r->add_option("--seeds", o.seeds, "Shared seeds (init, data order)")->delimiter(',')->capture_default_str();
  r->add_option("--workers", o.workers, "Simulated data-parallel workers")->capture_default_str();
  r->add_option("--batch-size", o.batch_size, "Per-worker batch")->capture_default_str();
  r->add_option("--iterations", o.iterations, "Iterations per run")->capture_default_str();
  r->add_option("--lr", o.lr, "SGD learning rate")->check(kPositiveFinite)->capture_default_str();
  r->add_option("--momentum", o.momentum, "SGD momentum, in [0, 1)")->check(kNonNegativeFinite)->capture_default_str();
  r->add_option("--warmup", o.warmup, "Linear warm-up iterations")->check(CLI::Range(0, 1 << 30))->capture_default_str();
  r->add_option("--branch-at", o.branch_at,
                "A late pilot: train the baseline's step (plain mean) for N iterations, then each scheme "
                "for --iterations more from that state (0: from the start)")
      ->check(CLI::Range(0, 1 << 30))->capture_default_str();
  r->add_option("--eval-resolution", o.eval_resolution, "Relative spacing of evaluations")->check(kPositiveFinite)->capture_default_str();
  r->add_option("--eval-samples", o.eval_samples, "Size of the fixed held-out subset")->capture_default_str();
  r->add_option("--stop-loss", run->stop_loss, "Stop a run once its held-out loss is <= this (0: never)")->check(kNonNegativeFinite);
  r->add_option("--threads", run->threads, "Torch threads")->check(CLI::Range(1, 1024))->capture_default_str();
  r->add_option("--sequential", run->sequential_target,
                "Sequential design at this target (the metric's value): the baseline runs every seed, each "
                "candidate the first; a candidate still 'uncertain' for a reason more seeds can settle runs "
                "the others (docs/calibrate.md, pilot)")
      ->check(kPositiveFinite);
  r->add_option("--metric", run->seq.predict.metric, "With --sequential: loss | error (1 - accuracy)")
      ->check(CLI::IsMember({"loss", "error"}))->capture_default_str();
  r->add_option("--baseline", run->seq.predict.baseline, "With --sequential: the reference scheme")->capture_default_str();
  r->add_option("--stable-looks", run->seq.predict.stable_looks,
                "With --sequential: a reaches / never must hold over the pilot and its prefixes ending "
                "1 .. N-1 evaluations earlier, or the candidate runs its next seed (as gcu pilot predict)")
      ->check(CLI::Range(1, 20))->capture_default_str();
  r->add_option("--full-seeds", run->seq.full_seeds, "With --sequential: ';'-separated schemes that run every seed too")
      ->delimiter(';');
  r->add_option("--baseline-iterations", run->baseline_iterations,
                "With --sequential: measured baseline iterations to target (0: extrapolated)")
      ->check(kNonNegativeFinite);
  r->callback([run]() {
    if (run->stop_loss > 0) run->o.stop_loss = run->stop_loss;
    const bool seq = run->sequential_target > 0;
    if (!seq && (!run->seq.full_seeds.empty() || run->baseline_iterations > 0))
      throw UsageError("--full-seeds and --baseline-iterations need --sequential TARGET");
    run->seq.predict.target = run->sequential_target;
    if (run->baseline_iterations > 0) run->seq.predict.baseline_iterations = run->baseline_iterations;
    torch::set_num_threads(std::max(1, run->threads));
    try {  // before the output is opened (and truncated)
      if (seq) calibrate::check_sequential_options(run->o, run->seq);
      else calibrate::check_pilot_options(run->o);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    // The records go to a temporary file beside the output, renamed over it once every run
    // has finished (util/output_file.h): a failed or interrupted run leaves the old file (or
    // none), never a prefix that `gcu pilot predict` would read as a finished pilot. "-": stdout.
    std::unique_ptr<util::AtomicFile> file;
    try {
      if (run->output != "-") file = std::make_unique<util::AtomicFile>(run->output);
    } catch (const util::FileError& e) {
      throw UsageError(e.what());
    }
    const auto sink = [&](const nlohmann::ordered_json& j) {
      const std::string line = j.dump() + "\n";
      if (file) {
        file->write(line);
        return;
      }
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fflush(stdout);
    };
    const auto progress = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
    try {
      if (!seq) {
        calibrate::run_pilots(run->o, sink, progress);
        if (file) file->commit();
        return;
      }
      int runs = 0;
      for (const auto& r : calibrate::run_pilots_sequential(run->o, run->seq, sink, progress)) {
        runs += static_cast<int>(r["seeds"].size());
        std::fprintf(stderr, "pilot: %s: %zu seed(s)%s\n", r["scheme"].get<std::string>().c_str(), r["seeds"].size(),
                     r["more_seeds"].get<bool>() ? " (uncertain after the first)" : "");
      }
      std::fprintf(stderr, "pilot: sequential design: %d runs of %zu in the full design\n", runs,
                   run->o.schemes.size() * run->o.seeds.size());
      if (file) file->commit();
    } catch (const std::invalid_argument& e) {  // util::FileError too (a write or the rename that failed)
      throw UsageError(e.what());
    }
  });

  auto pred = std::make_shared<PilotPredictCli>();
  auto* p = sub->add_subcommand("predict", "Predict iterations to target per scheme from pilot records (JSON)");
  p->add_option("inputs", pred->inputs, "Pilot JSON lines files")->required();
  p->add_option("--target", pred->o.target, "Target value of the metric (held-out loss, or error)")->required()->check(kFinite);
  p->add_option("--metric", pred->o.metric, "loss | error (1 - accuracy)")->check(CLI::IsMember({"loss", "error"}))->capture_default_str();
  p->add_option("--baseline", pred->o.baseline, "Reference scheme")->capture_default_str();
  p->add_option("--pilot-iterations", pred->o.pilot_iterations, "Use only evaluations up to this iteration (0: all)")
      ->check(CLI::Range(0, 1 << 30));
  p->add_option("--baseline-iterations", pred->baseline_iterations,
                "Measured baseline iterations to target (0: extrapolate the baseline's curve)")
      ->check(kNonNegativeFinite);
  p->add_option("--bootstrap", pred->o.bootstrap, "Bootstrap replicates")->check(CLI::Range(1, 100000))->capture_default_str();
  p->add_option("--max-multiplier", pred->o.max_multiplier, "Above this: never (> 1)")->check(kPositiveFinite)->capture_default_str();
  p->add_option("--extrapolation-sigma", pred->extrapolation_sigma,
                "The interval's extrapolation term, log scale per unit ln(T_0 / pilot end): below,above "
                "(for schemes whose relative error is >= 0.01; docs/model.md 4.2)")
      ->delimiter(',')->expected(2)->check(kNonNegativeFinite)->capture_default_str();
  add_switch(p, "--biased-rule", pred->biased_rule,
                "on: a biased scheme without error feedback (signsgd, topk, topkc, powersgd, ...) is at most "
                "'uncertain' until its pilot reaches the target, as nothing guarantees it approaches the "
                "baseline's loss; off: its status comes from the fit alone (docs/model.md 4.2)");
  add_switch(p, "--one-seed-term", pred->one_seed_term,
                "on: a scheme piloted with one seed gets the baseline's seed-to-seed spread of a fitted "
                "multiplier as an interval term (the sequential design); off: none");
  p->add_option("--stable-looks", pred->o.stable_looks,
                "A reaches / never must also be the decision of the pilot's prefixes ending 1 .. N-1 "
                "evaluations earlier, or it is 'uncertain' (evidence: unstable); 1: the pilot's own decision")
      ->check(CLI::Range(1, 20))->capture_default_str();
  add_switch(p, "--late", pred->late,
                "on: records of late pilots (gcu pilot run --branch-at N) among the inputs are used: the "
                "stall test (--late-stall) and a multiplier's excess after N rescaled by the scheme's relative "
                "error there against the pilot's; off: they are ignored (docs/model.md 4.2)");
  add_switch(p, "--late-stall", pred->late_stall,
                "on (with --late on): a scheme whose gap to the baseline in its late pilot grows faster than "
                "the baseline's pace from N to the target (90% one-sided over >= 2 seeds) is 'never'; off: "
                "the late pilots' error ratio only");
  add_bounded(p, "--late-min-ratio", pred->o.late_min_ratio,
              "A late pilot rescales only when its error is beyond this ratio of the pilot's, either way "
              "(closer: the seeds' noise); 1: always", 1.0, 100.0);
  p->add_option("--pace", pred->pace,
                "With --late on, the late pilots as probes of the pace model, for a biased scheme without error "
                "feedback: level (default): where the branch points' relative error below T_0 is below 0.5 "
                "(PowerSGD), the multiplier is at least 1 + --pace-slope x that error and the interval's upper "
                "end at least 1 + slope x the largest branch's (ranked right on a setting recorded after it was "
                "fixed); on: the change form, the multiplier moved by slope x (the branches' error - the "
                "pilot's), the interval by the branches' spread (failed its held-out setting); both leave the "
                "statuses and replace the error-ratio rescale (the stall test stays); off: the late pilots' "
                "error ratio (docs/validation-tta.md, \"Summary\")")
      ->check(CLI::IsMember({"on", "off", "level"}))->capture_default_str();
  add_bounded(p, "--pace-slope", pred->o.pace_slope,
              "With --pace on or level: the multiplier per unit of relative error (the change form: gained after the pilot; the level form: at the branches) "
              "(fitted on the recorded protocols)", 0.0, 1000.0);
  p->add_option("--probe-iterations", pred->o.probe_iterations,
                "With --pace on or level: each late pilot read as a probe of its first N iterations (its evaluations' "
                "running relative error), what a probe that short costs; 0: the whole late pilot")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  p->add_option("--profile", pred->profile, "Profile to add the predictions to (convergence.schemes.<spec>.pilot)");
  p->add_option("--write-profile", pred->write_profile, "Where to write that profile");
  p->callback([pred]() {
    if (pred->baseline_iterations > 0) pred->o.baseline_iterations = pred->baseline_iterations;
    pred->o.extrapolation_sigma_lo = pred->extrapolation_sigma.at(0);
    pred->o.extrapolation_sigma_hi = pred->extrapolation_sigma.at(1);
    pred->o.biased_rule = pred->biased_rule == "on";
    pred->o.late = pred->late == "on";
    pred->o.late_stall = pred->late_stall == "on";
    pred->o.pace = pred->pace != "off";
    pred->o.pace_form = pred->pace == "level" ? calibrate::PaceForm::Level : calibrate::PaceForm::Change;
    pred->o.one_seed_term = pred->one_seed_term == "on";
    if (!pred->profile.empty() && pred->write_profile.empty()) throw UsageError("--profile needs --write-profile");
    nlohmann::ordered_json t;
    try {
      if (!pred->write_profile.empty()) util::check_output_target(pred->write_profile);  // before the work
      t = calibrate::predict_from_pilots(read_lines(pred->inputs), pred->o);
      if (!pred->profile.empty()) {
        auto prof = nlohmann::ordered_json::parse(util::read_file(pred->profile), nullptr, false);
        // Where the entries go must be an object or absent (then created).
        const auto object_or_absent = [](const nlohmann::ordered_json& j, const char* key) {
          return !j.contains(key) || j[key].is_object();
        };
        if (prof.is_discarded() || !prof.is_object() || !object_or_absent(prof, "convergence") ||
            !object_or_absent(prof.value("convergence", nlohmann::ordered_json::object()), "schemes"))
          throw UsageError("profile '" + pred->profile + "' is not a JSON object with an object 'convergence.schemes'");
        auto& schemes = prof["convergence"]["schemes"];
        for (auto it = t.begin(); it != t.end(); ++it) schemes[it.key()]["pilot"] = calibrate::pilot_profile_entry(it.value());
        prof["convergence"]["source"] = "pilot";  // simulate labels its TTA as measured
        util::write_file_atomic(pred->write_profile, prof.dump(2) + "\n");
      }
    } catch (const std::invalid_argument& e) {  // util::FileError too
      throw UsageError(e.what());
    } catch (const nlohmann::json::exception& e) {  // a record or profile field of the wrong type
      throw UsageError(std::string("pilot predict: malformed record or profile: ") + e.what());
    }
    std::printf("%s\n", t.dump(2).c_str());
  });
}

const Registrar reg_pilot{describe::kPilot.name, describe::kPilot.order, &setup_pilot};

}  // namespace
}  // namespace gcu::cli
