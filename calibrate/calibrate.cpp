// `gcu calibrate` orchestration (calibrate.h, calibrate_run.h): options, process group,
// the state file and its resume, the scheme lists, the steps (calibrate_steps.cpp) in
// order, and the profile output.
#include "calibrate/calibrate.h"

#include "calibrate/calibrate_run.h"
#include "calibrate/codecs.h"
#include "compressors/registry.h"
#include "model/profile.h"
#include "model/parts.h"
#include "model/profile_json.h"
#include "util/clock.h"
#include "util/iso_time.h"
#include "util/output_file.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sched.h>
#include <unistd.h>

namespace gcu::calibrate {

std::vector<compress::CollectiveKind> parse_collective_kinds(const std::vector<std::string>& names) {
  using compress::CollectiveKind;
  const std::vector<CollectiveKind> all = {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                                           CollectiveKind::ReduceScatter, CollectiveKind::Broadcast};
  std::vector<CollectiveKind> out;
  for (const auto& n : names) {
    auto k = std::find_if(all.begin(), all.end(), [&](CollectiveKind c) { return n == model::collective_key(c); });
    if (k == all.end())
      throw std::invalid_argument("calibrate: unknown collective '" + n +
                                  "' in --collectives (allreduce, allgather, reducescatter, broadcast)");
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
  }
  return out.empty() ? all : out;
}

namespace {

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown CPU";
}

std::vector<std::string> default_schemes() {
  std::vector<std::string> out;
  for (const auto& s : compress::Registry::instance().list()) out.push_back(s.name);
  return out;
}

void check_options(const CalibrateOptions& o) {
  parse_collective_kinds(o.collectives);
  if (o.output.empty()) throw std::invalid_argument("calibrate: an output profile path is required (--output)");
  // Output-file policy (util/output_file.h): refuse a bad target before measuring.
  util::check_output_target(o.output);
  for (const std::string* part : {&o.model_part, &o.system_part})
    if (!part->empty()) util::check_output_target(*part);
  util::check_output_target(o.state_file.empty() ? o.output + ".state.json" : o.state_file);
  for (const auto& s : o.skip)
    if (std::find(calibration_steps().begin(), calibration_steps().end(), s) == calibration_steps().end())
      throw std::invalid_argument("calibrate: unknown step '" + s + "' in --skip (steps: compute, gamma, "
                                  "collectives, codecs, errors, codec-gradients, contention, convergence)");
  if (o.fit_statistic != "mean" && o.fit_statistic != "median" && o.fit_statistic != "p10" && o.fit_statistic != "min")
    throw std::invalid_argument("calibrate: --fit-statistic must be mean, median, p10 or min, got '" + o.fit_statistic +
                                "'");
  if (!std::isfinite(o.collective_gap_ms) || o.collective_gap_ms > 10000)
    throw std::invalid_argument("calibrate: --collective-gap-ms must be a number of at most 10000 (negative: auto), got " +
                                std::to_string(o.collective_gap_ms));
  if (!std::isfinite(o.collective_calls_scale) || o.collective_calls_scale < 0.25 || o.collective_calls_scale > 64)
    throw std::invalid_argument("calibrate: --collective-calls-scale must be a number from 0.25 to 64, got " +
                                std::to_string(o.collective_calls_scale));
  if (o.allgather_floor != "auto" && o.allgather_floor != "on" && o.allgather_floor != "off")
    throw std::invalid_argument("calibrate: --allgather-floor must be auto, on or off, got '" + o.allgather_floor + "'");
  if (o.budget_s < 0) throw std::invalid_argument("calibrate: --budget-s must be >= 0, got " + std::to_string(o.budget_s));
  if (o.batch_sizes.empty()) throw std::invalid_argument("calibrate: at least one batch size is required");
}

// The process group (its timeout outlasts the budget) and the torch threads per rank.
void open_group(CalibrationRun& r) {
  GroupOptions go;
  go.backend = r.opt.backend;
  go.timeout_s = std::max(kMinGroupTimeoutS, r.opt.budget_s * 2 + kGroupTimeoutSlackS);
  r.group = std::make_unique<Group>(go);
  // Ranks sharing this node (torchrun / gcu launch set LOCAL_WORLD_SIZE; default: all).
  const char* lws = std::getenv("LOCAL_WORLD_SIZE");
  r.local_world = lws ? std::max(1, std::atoi(lws)) : r.group->world_size();
  r.threads = r.opt.threads > 0
                  ? r.opt.threads
                  : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / r.local_world);
  torch::set_num_threads(r.threads);
  cpu_set_t cpus;
  r.cores = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? std::max(1, CPU_COUNT(&cpus))
                                                          : std::max(1, int(std::thread::hardware_concurrency()));
  r.t0 = now_s();
}

// A fresh state, or (--resume) rank 0's state file, sent to every rank so that all hold
// the same state (a step that sizes its collectives from it, such as the all-gather
// floor's buckets, must issue the same calls on every rank). A malformed file, or one for
// another model or world size, fails every rank (nothing is overwritten).
void load_state(CalibrationRun& r) {
  const CalibrateOptions& o = r.opt;
  r.state_path = o.state_file.empty() ? o.output + ".state.json" : o.state_file;
  r.state.meta = {o.model_spec, o.batch_sizes, r.group->world_size(), r.local_world, o.backend, r.threads,
                  o.fit_statistic};
  std::string text;  // rank 0: the resumed state's JSON, or "!" and the error; empty: a fresh state
  if (r.lead() && o.resume && std::filesystem::exists(r.state_path)) {
    try {
      CalibrationState old = read_state_file(r.state_path);
      if (old.meta.model_spec == o.model_spec && old.meta.world == r.group->world_size()) {
        old.skipped.clear();
        old.meta.fit_statistic = o.fit_statistic;
        if (old.compute && old.compute->data != o.compute_data) {  // timed on other batches: again
          r.say("calibrate: the state's compute step timed " + old.compute->data + " batches, this run asks for " +
                o.compute_data + ": timing it again");
          old.compute.reset();
        }
        text = to_json(old).dump();
        r.say("calibrate: resuming from " + r.state_path);
      } else {  // never overwritten: another run's measurements
        text = "!" + r.state_path + " is for model '" + old.meta.model_spec + "' on " +
               std::to_string(old.meta.world) + " ranks, this run is model '" + o.model_spec + "' on " +
               std::to_string(r.group->world_size()) + " ranks: delete it or pass another --state";
      }
    } catch (const StateError& e) {
      text = std::string("!") + e.what();
    }
  }
  text = r.group->broadcast_string(text);
  if (!text.empty() && text[0] == '!')
    throw StateError("calibrate --resume: " + text.substr(1) + " (fix or delete the state file)");
  if (!text.empty()) r.state = state_from_json(Json::parse(text), r.state_path);
  for (const auto& s : calibration_steps())
    if (r.state.has(s)) r.done.insert(s);
}

// What the steps measure: the model and batch sizes, and the schemes of each step.
void plan_steps(CalibrationRun& r) {
  const CalibrateOptions& o = r.opt;
  r.compute.model_spec = o.model_spec;
  r.compute.batch_sizes = o.batch_sizes;
  r.compute.warmup = o.warmup;
  r.compute.iters = o.iters;
  r.compute.loop = o.compute_loop;
  r.compute.data = o.compute_data;
  // At least 2 s of timed iterations per batch size; less when the budget is short.
  r.compute.min_time_s = o.budget_s > 0 ? std::min(2.0, 0.01 * o.budget_s) : 2.0;
  r.main_batch = *std::max_element(o.batch_sizes.begin(), o.batch_sizes.end());
  r.schemes = o.schemes.empty() ? default_schemes() : o.schemes;
  r.codec_schemes = o.schemes.empty() ? default_codec_specs() : o.schemes;  // + other parameter values
  r.convergence_off = o.convergence_schemes.size() == 1 && o.convergence_schemes[0] == "-";
  std::vector<std::string> conv_schemes = r.convergence_off ? std::vector<std::string>{} : o.convergence_schemes;
  if (!r.convergence_off && conv_schemes.empty())
    for (const std::string& s : compress::Registry::instance().convergence_specs())
      try {
        compress::make_compressor(s);
        conv_schemes.push_back(s);
      } catch (const std::exception&) {
      }
  r.convergence_schemes = conv_schemes;
  // Errors are measured for the timed schemes and the convergence runs' schemes.
  r.error_schemes = r.schemes;
  for (const auto& s : conv_schemes)
    if (std::find(r.error_schemes.begin(), r.error_schemes.end(), s) == r.error_schemes.end())
      r.error_schemes.push_back(s);
  // Contention: the given scheme, else the registry's contention probe.
  r.contention_scheme =
      o.contention_scheme.empty() ? compress::Registry::instance().contention_probe() : o.contention_scheme;
}

// The profile from the state (rank 0), with its provenance.
CalibrateResult write_profile(CalibrationRun& r) {
  CalibrateResult res;
  if (r.lead()) {
    BuildInfo info;
    info.device = "CPU: " + cpu_model() + " (" + std::to_string(std::thread::hardware_concurrency()) +
                  " cores), " + std::to_string(r.group->world_size()) + " rank(s), " + r.opt.backend + ", " +
                  std::to_string(r.threads) + " torch thread(s) per rank";
    info.date = util::iso_utc_now();
    info.command = r.opt.command_line;
    info.measured_ready_times = r.opt.ready_times == "measured";
    info.libraries = {{"libtorch", TORCH_VERSION}, {"gloo", "bundled with libtorch " TORCH_VERSION},
                      {"compiler", __VERSION__}};
    auto built = build_profile(r.state, info);
    model::validate_profile(built.profile);
    util::write_file_atomic(r.opt.output, model::profile_to_json(built.profile).dump(2) + "\n");
    const model::ProfileParts parts = model::split_profile(built.profile);
    if (!r.opt.model_part.empty()) util::write_file_atomic(r.opt.model_part, parts.model.dump(2) + "\n");
    if (!r.opt.system_part.empty()) util::write_file_atomic(r.opt.system_part, parts.system.dump(2) + "\n");
    res.wrote_profile = true;
    res.report = built.report;
    r.say("calibrate: wrote " + r.opt.output + " (" + std::to_string(static_cast<int>(now_s() - r.t0)) + " s)");
  }
  r.group->barrier();
  return res;
}

}  // namespace

const std::vector<std::string>& calibration_steps() {
  static const std::vector<std::string> steps = {"compute", "gamma",           "collectives", "codecs",
                                                 "errors",  "codec-gradients", "contention",  "convergence"};
  return steps;
}

double CalibrationRun::left() {
  return opt.budget_s > 0 ? opt.budget_s + extra_budget_s - group->allreduce_max(now_s() - t0) : kUnlimitedS;
}

void CalibrationRun::say(const std::string& s) const {
  if (lead() && progress) progress(s);
}

void CalibrationRun::save() const {
  if (lead()) write_state_file(state_path, state);
}

void CalibrationRun::skip(const std::string& what, const std::string& why) {
  state.skipped.push_back(what + ": " + why);
  say("calibrate: " + what + ": skipped (" + why + ")");
}

bool CalibrationRun::wanted(const std::string& s, double min_left_s) {
  if (done.count(s)) return false;
  if (std::find(opt.skip.begin(), opt.skip.end(), s) != opt.skip.end()) {
    skip(s, "--skip");
    return false;
  }
  if (left() < min_left_s) {
    skip(s, "time budget");
    return false;
  }
  say("calibrate: " + s + " (" + std::to_string(static_cast<int>(now_s() - t0)) + " s elapsed)");
  return true;
}

CalibrateResult run_calibration(const CalibrateOptions& o, const Progress& progress) {
  check_options(o);
  CalibrationRun run(o);
  run.progress = progress;
  open_group(run);
  load_state(run);
  plan_steps(run);
  step_compute(run);
  step_gamma(run);
  step_collectives(run);
  step_codecs(run);
  step_errors(run);
  step_codec_gradients(run);
  step_contention(run);
  step_convergence(run);
  if (o.state_only) {
    run.say("calibrate: --state-only: wrote " + run.state_path + ", no profile");
    run.group->barrier();
    return {};
  }
  return write_profile(run);
}

}  // namespace gcu::calibrate
