// The validation driver (validate.h): checks, optional calibration, link-rate
// measurement, rounds of cells in random interleaved order, predictions (the statistics:
// stats.cpp).
#include "validate/validate.h"
#include "validate/speed_adjust.h"

#include "validate/calibration_noise.h"
#include "validate/link_fits.h"
#include "validate/link_gamma.h"
#include "validate/link_rate.h"
#include "validate/predict.h"
#include "validate/report.h"
#include "validate/rounds.h"
#include "validate/runner.h"

#include "simulate/error.h"
#include "util/iso_time.h"
#include "util/output_file.h"
#include "simulate/profile_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

namespace gcu::validate {

namespace fs = std::filesystem;

namespace {

std::string self_exe() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gcu") : p.string();
}

std::string default_netbed() {
#ifdef GCU_NETBED_SCRIPT
  if (fs::exists(GCU_NETBED_SCRIPT)) return GCU_NETBED_SCRIPT;
#endif
  // build/cli/gcu -> scripts/netbed.sh
  const fs::path p = fs::path(self_exe()).parent_path() / "../../scripts/netbed.sh";
  return p.lexically_normal().string();
}

void prepare_out_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw ValidateError("output directory " + dir + " exists and is not a directory");
  fs::create_directories(fs::path(dir) / "raw", ec);
  if (ec) throw ValidateError("cannot create " + dir + "/raw: " + ec.message());
}

// The probe's script: scripts/link_probe.py, beside netbed.sh.
std::string probe_script(const std::string& netbed) {
  return (fs::path(netbed).parent_path() / "link_probe.py").string();
}

double rate_for(const ValidateOptions& o, const Cell& c, const std::vector<LinkRate>& links, bool shaped,
                double* measured) {
  *measured = 0;
  for (const auto& l : links)
    if (l.ranks == c.ranks && l.link.name == c.link.name)
      *measured = o.predict_rate == "probe" ? l.probed_gbps : l.measured_gbps;
  if (c.link.unlimited()) return 0;  // the profile's own link: calibrated unshaped
  if (!shaped) return *measured;     // loopback: the link is not shaped, whatever was asked
  if (o.predict_rate != "nominal" && *measured > 0) return *measured;
  return c.link.nominal_gbps;
}

}  // namespace

namespace {

// --error-goal as given, for its error message (%g: 0.05, nan, -1).
std::string goal_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// The options with their defaults filled in; throws ValidateError on a bad combination.
ValidateOptions checked_options(const ValidateOptions& opt) {
  ValidateOptions o = opt;
  if (o.gcu.empty()) o.gcu = self_exe();
  if (o.device != "cpu" && o.device != "cuda")
    throw ValidateError("device '" + o.device + "': expected cpu or cuda");
  if (o.netbed.empty()) o.netbed = default_netbed();
  if (o.testbed == "launcher") {
    if (o.launcher.empty())
      throw ValidateError("--testbed launcher needs --launcher TEMPLATE, e.g. 'mpirun -np {ranks} {cmd}'");
    parse_launcher_template(o.launcher);  // its problem named before anything runs
  } else if (!o.launcher.empty()) {
    throw ValidateError("--launcher needs --testbed launcher");
  }
  if (o.repeats < 1 || o.iters < 1 || o.warmup < 0 || o.warmup >= o.iters)
    throw ValidateError("need --repeats >= 1 and 0 <= --warmup < --iters");
  if (o.statistic != "mean" && o.statistic != "median")
    throw ValidateError("--statistic '" + o.statistic + "': expected mean or median");
  if (o.protocol != "user" && o.protocol != "diagnose")
    throw ValidateError("--protocol '" + o.protocol + "': expected user or diagnose");
  const bool user = o.protocol == "user";
  if (o.predict_rate.empty()) o.predict_rate = user ? "probe" : "link-fits";
  if (o.link_gamma.empty()) o.link_gamma = user ? "off" : "on";
  if (o.speed_adjust.empty()) o.speed_adjust = user ? "off" : "forward";
  if (o.compute_probes.empty()) o.compute_probes = user ? "off" : "on";
  if (o.predict_rate != "probe" && o.predict_rate != "measured" && o.predict_rate != "nominal" &&
      o.predict_rate != "link-fits")
    throw ValidateError("--predict-rate '" + o.predict_rate + "': expected probe, measured, nominal or link-fits");
  if (o.link_gamma != "on" && o.link_gamma != "off") throw ValidateError("--link-gamma: expected on or off");
  if (o.speed_adjust != "forward" && o.speed_adjust != "off") throw ValidateError("--speed-adjust: expected forward or off");
  if (o.compute_probes != "on" && o.compute_probes != "off") throw ValidateError("--compute-probes: expected on or off");
  if (!o.calibrate && o.profile.empty()) throw ValidateError("give a profile (-p) or --calibrate");
  if (!o.exclude_rounds.empty() && !o.reuse)
    throw ValidateError("--exclude-rounds re-predicts a recording without some of its rounds: it needs --reuse");
  for (int k : o.exclude_rounds)
    if (k < 1 || k > o.repeats)
      throw ValidateError("--exclude-rounds " + std::to_string(k) + ": rounds are 1.." + std::to_string(o.repeats) +
                          " (--repeats)");
  if (int(o.exclude_rounds.size()) >= o.repeats) throw ValidateError("--exclude-rounds leaves no round");
  if (!(o.error_goal > 0 && o.error_goal < 10))
    throw ValidateError("--error-goal " + goal_text(o.error_goal) +
                        ": expected a relative error above 0 and below 10 (0.05 is 5%)");
  return o;
}

// Appended to a prediction error when the calibration skipped steps for its time budget
// (their fits are then missing): what to raise.
std::string budget_hint(const model::Profile& p) {
  std::string skipped;
  for (const auto& a : p.provenance.assumptions)
    if (a.rfind("skipped: ", 0) == 0 && a.find("time budget") != std::string::npos)
      skipped += (skipped.empty() ? "" : ", ") + a.substr(9, a.find(':', 9) - 9);
  if (skipped.empty()) return "";
  return " (the calibration skipped " + skipped +
         " for its time budget: raise --calibrate-budget-s, or --budget-s of gcu calibrate)";
}

// Every cell's predictor; a cell the profile cannot predict is an error naming it (and the
// calibration steps skipped for their budget, if any).
std::vector<std::unique_ptr<CellPredictor>> predictors(const model::Profile& p, const std::vector<Cell>& cells) {
  std::vector<std::unique_ptr<CellPredictor>> preds;
  try {
    for (const auto& c : cells) preds.push_back(std::make_unique<CellPredictor>(p, c));
  } catch (const ValidateError& e) {
    throw ValidateError(e.what() + budget_hint(p));
  }
  return preds;
}

// Everything that can fail before running, fails now: the output directory, and every
// cell's prediction from a given profile.
void check_before_running(const ValidateOptions& o, const std::vector<Cell>& cells) {
  prepare_out_dir(o.out_dir);
  check_output_targets(o.out_dir);
  if (!o.calibrate) predictors(simulate::load_profile_file(o.profile).profile, cells);
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}


// --calibrate: runs `gcu calibrate` on the first cell's ranks, unshaped, writing o.profile.
void run_calibration(ValidateOptions& o, const std::vector<Cell>& cells, Testbed& bed, const std::string& testbed,
                     std::ostream& log) {
  if (o.profile.empty()) o.profile = o.out_dir + "/profile.json";
  const int ranks = cells.front().ranks;
  bed.configure(ranks, parse_link("unlimited"));
  const std::vector<std::string> a = bed.command(o.gcu, ranks, calibrate_args(o, cells));
  log << "gcu validate: calibrating " << o.grid.model << " on " << ranks << " ranks (" << testbed << ", budget "
      << o.calibrate_budget_s << " s) -> " << o.profile << "\n";
  const ProcessResult r = run_process(a, o.out_dir + "/calibrate.log", o.calibrate_budget_s * 3 + 120);
  if (r.interrupted) throw ValidateError("interrupted");
  if (r.exit_code != 0)
    throw ValidateError("gcu calibrate failed (exit " + std::to_string(r.exit_code) + "; " + o.out_dir +
                        "/calibrate.log):\n" + r.output_tail);
}

// Link rates, once per (ranks, link): a short all-reduce sweep through the link.
// With --link-gamma on, the gamma step after each sweep (link_gamma.h), or its kept state
// with --reuse.
std::vector<LinkRate> link_rates(const ValidateOptions& o, const std::vector<Cell>& cells, Testbed& bed,
                                 const model::Profile& base, std::ostream& log) {
  std::vector<LinkRate> links;
  std::map<std::pair<int, std::string>, bool> seen;
  for (const auto& c : cells) {
    if (seen[{c.ranks, c.link.name}]) continue;
    seen[{c.ranks, c.link.name}] = true;
    LinkRate lr;
    lr.link = c.link;
    lr.ranks = c.ranks;
    const std::string prior = link_stem(o.out_dir, c.ranks, c.link.name) + ".json.state.json";
    // The collective sweep only where the prediction or the gamma step reads it.
    const bool sweep = o.predict_rate == "measured" || o.predict_rate == "link-fits" || o.link_gamma == "on";
    const std::string probe = link_probe_stem(o.out_dir, c.ranks, c.link.name);
    const std::string not_measured = !o.measure_links ? "not measured (--no-measure-links)"
                                     : c.ranks == 1   ? "not measured (1 rank: nothing crosses a link)"
                                                      : "";
    if (o.reuse) {
      if (std::filesystem::exists(prior)) {
        read_link_sweep(lr, prior);
        lr.note = "reused " + prior;
      } else {
        lr.note = not_measured.empty() ? "no kept sweep" : not_measured;
      }
      if (!read_link_probe(lr, probe)) lr.probe_note = "no kept probe (" + probe + ".rank0)";
    } else if (!not_measured.empty()) {
      lr.note = lr.probe_note = not_measured;
    } else {
      bed.configure(c.ranks, c.link);
      if (sweep) {
        lr = measure_link_rate(bed, o.gcu, c.ranks, c.link, o.out_dir, o.threads, log,
                               o.device == "cuda" ? "nccl" : "gloo");
      } else {
        lr.note = "not measured (--predict-rate " + o.predict_rate + " reads no sweep)";
      }
      if (o.link_gamma == "on" && !interrupted()) lr.gamma = measure_link_gamma(bed, o, base, c.ranks, c.link, log);
      if (!interrupted())
        measure_link_probe(lr, bed, o.gcu, probe_script(o.netbed), o.out_dir, kLinkProbeSeconds, log);
    }
    const std::string gamma_state = link_gamma_state_path(o.out_dir, c.ranks, c.link.name);
    if (o.reuse && o.link_gamma == "on" && std::filesystem::exists(gamma_state))
      read_link_gamma(lr.gamma, gamma_state, base, c.ranks);
    if (o.link_gamma != "on") lr.gamma.note = "off (--link-gamma off)";
    else if (!lr.gamma.measured && lr.gamma.note.empty()) lr.gamma.note = "not measured";
    links.push_back(lr);
    if (interrupted()) throw ValidateError("interrupted");
  }
  return links;
}

// Per cell: the mean load, the link rate predicted with, the prediction and the statistics.
void finish_cells(const ValidateOptions& o, const Report& rep, const model::Profile& profile,
                  const std::vector<std::unique_ptr<CellPredictor>>& preds, const std::vector<double>& load_sum,
                  std::vector<CellResult>& res, std::ostream& log) {
  for (size_t i = 0; i < res.size(); ++i) {
    CellResult& r = res[i];
    r.load_average = load_sum[i] / o.repeats;
    r.rate_used_gbps = rate_for(o, r.cell, rep.links, rep.testbed != "loopback", &r.measured_link_gbps);
    if (rep.testbed == "loopback" && !r.cell.link.unlimited())
      r.message += std::string(r.message.empty() ? "" : "; ") + "link " + r.cell.link.name +
                   " NOT shaped (loopback testbed): predicted at the measured loopback rate, or the profile's";
    r.link_fits = preds[i]->link_in_profile();
    r.predicted = preds[i]->predict(r.rate_used_gbps);
    r.compute_basis = preds[i]->compute_basis();
    r.speed.sensitivity_s = preds[i]->compute_sensitivity_s(r.rate_used_gbps);
    if (r.ok && r.samples.empty()) {
      r.ok = false;
      r.message = "no measured iterations in the logs";
    }
  }
  if (o.calibration_noise) add_calibration_noise(o.profile + ".state.json", profile, rep.links, res, log);
  for (auto& r : res)
    if (r.ok) compute_stats(r, o.statistic);
  if (o.speed_adjust == "forward") apply_speed_adjustment(res, o.statistic);
}

// What the probes found: the grid's compute against the calibration's, per batch size.
void log_compute_probes(const ComputeProbes& cp, std::ostream& log) {
  log << "gcu validate: compute probes: " << cp.note << "\n";
  for (const auto& b : cp.batches)
    if (b.probes > 0)
      log << "gcu validate:   batch " << b.batch_size << ": the grid's compute ran " << std::showpos
          << std::lround((b.compute_ratio - 1) * 100) << "% against the calibration's (forward "
          << std::lround((b.forward_ratio - 1) * 100) << "%, backward " << std::lround((b.backward_ratio - 1) * 100)
          << "%, optimizer " << std::lround((b.optimizer_ratio - 1) * 100) << "%)" << std::noshowpos << "; "
          << b.probes << " probes, backward range " << std::lround(b.backward_spread * 100) << "%\n";
}

// A profile older than this when the grid starts gets a warning (calibrations drift).
constexpr double kStaleCalibrationS = 3600;

// Names what the machine, not the model, moved: rounds the whole machine ran slower or
// faster in (Summary::round_drift), and compute away from the calibration's.
void warn_machine_drift(const Summary& s, std::ostream& log) {
  const std::vector<double>& drift = s.round_drift;
  for (size_t k = 0; k < drift.size(); ++k)
    if (std::isfinite(drift[k]) && std::abs(drift[k] - 1) > kRoundDriftWarn)
      log << "gcu validate: warning: round " << k + 1 << " ran " << (drift[k] > 1 ? "+" : "")
          << std::lround((drift[k] - 1) * 100)
          << "% against its cells' medians (median over the cells; each round runs them in a fresh random order, "
             "so a model error cannot do this): a machine-wide phase, not a model error; it makes its cells "
             "noise-limited. `--reuse --exclude-rounds "
          << k + 1 << "` re-predicts the grid without it (docs/validation.md §2)\n";
  if (const double f = s.forward_measured_over_predicted; std::isfinite(f) && std::abs(f - 1) > kComputeDriftWarn)
    log << "gcu validate: warning: the cells' forward ran " << (f > 1 ? "+" : "") << std::lround((f - 1) * 100)
        << "% against the calibration's (median over the cells; no scheme or link changes it): the machine's speed "
           "moved since the calibration, or the calibration caught an unusual minute; every prediction is off by "
           "that share of compute. Calibrate in the same quiet period as the grid (--calibrate); the summary's "
           "\"at the calibration's speed\" line shows the errors without that drift (docs/validation.md §2)\n";
}

}  // namespace

Report run_validate(const ValidateOptions& opt, std::ostream& log) {
  ValidateOptions o = checked_options(opt);
  const std::vector<Cell> cells = expand_grid(o.grid);
  check_before_running(o, cells);
  setenv("OMP_NUM_THREADS", std::to_string(std::max(1, o.threads)).c_str(), 1);
  install_signal_handlers();

  Report rep;
  Testbed bed(TestbedSpec{o.testbed, o.netbed, o.out_dir, o.launcher, o.master_addr, o.shape_cmd, o.unshape_cmd});
  rep.testbed = bed.name();
  rep.testbed_note = bed.note();
  if (!bed.note().empty()) log << "gcu validate: " << bed.note() << "\n";

  if (o.calibrate && o.reuse) throw ValidateError("--reuse re-predicts from a profile: give -p, not --calibrate");
  if (o.calibrate) run_calibration(o, cells, bed, rep.testbed, log);
  const auto lp = simulate::load_profile_file(o.profile);
  rep.profile_path = o.profile;
  rep.profile_model = lp.profile.model.name;
  predictors(lp.profile, cells);  // a cell the profile cannot predict fails before the links are measured
  rep.links = link_rates(o, cells, bed, lp.profile, log);
  // Every cell's predictor from `p`: the profile's, or a shaped link's own fits.
  const auto cell_predictors = [&](const model::Profile& p) {
    std::vector<std::unique_ptr<CellPredictor>> preds = predictors(p, cells);
    if (o.predict_rate == "link-fits" && rep.testbed != "loopback") apply_link_fits(p, cells, rep.links, preds);
    apply_link_gamma(cells, rep.links, preds);
    return preds;
  };
  std::vector<std::unique_ptr<CellPredictor>> preds = cell_predictors(lp.profile);  // a link fit that fails, before the grid runs

  std::vector<CellResult> res(cells.size());
  std::vector<double> load_sum(cells.size(), 0);
  const PriorLoads prior_load = prior_loads(o);
  for (size_t i = 0; i < cells.size(); ++i) {
    res[i].cell = cells[i];
    res[i].ok = true;
  }
  rep.profile_date = lp.profile.provenance.date;
  rep.gamma = lp.profile.cluster.gamma;
  rep.overlap_contention = lp.profile.cluster.overlap_contention;
  rep.comm_contention = lp.profile.cluster.comm_contention;
  if (!o.reuse) {
    const std::time_t start = std::time(nullptr);
    rep.grid_started = util::iso_utc(start);
    if (const auto t = util::parse_iso_utc(rep.profile_date)) rep.calibration_age_s = double(start - *t);
    if (rep.calibration_age_s && *rep.calibration_age_s > kStaleCalibrationS)
      log << "gcu validate: warning: the profile was calibrated " << std::lround(*rep.calibration_age_s / 3600.0)
          << " h before this grid; on a shared machine a calibration from another session moves predictions by "
             "~10% (docs/history/validation-log.md): calibrate in the same hour (--calibrate)\n";
  }
  RoundsRun rounds{o, cells, bed, prior_load, res, load_sum, log, rep.compute_probes.probes};
  run_rounds(rounds);
  bed.down();

  // The predictions with the compute the machine delivered while the grid ran.
  model::Profile profile = lp.profile;
  if (o.compute_probes == "on") {
    profile = with_probed_compute(lp.profile, rep.compute_probes);
    if (rep.compute_probes.used) preds = cell_predictors(profile);
    log_compute_probes(rep.compute_probes, log);
  } else {
    rep.compute_probes.note = "off (--compute-probes off): predicted with the calibration's compute";
  }

  finish_cells(o, rep, profile, preds, load_sum, res, log);
  rep.options = o;
  rep.cells = std::move(res);
  rep.summary = summarize(rep.cells, o.error_goal);
  rep.summary.round_drift = round_drift(rep.cells, o.repeats);
  warn_machine_drift(rep.summary, log);
  write_reports(rep, profile, log);
  return rep;
}

std::vector<std::string> train_command(const ValidateOptions& o, const Cell& c, const std::string& log) {
  std::vector<std::string> a = {o.gcu, "train", "--model", c.model, "--data", o.data,
                                "--batch", std::to_string(c.batch), "--iters", std::to_string(o.iters),
                                "--warmup", std::to_string(o.warmup), "--scheme", c.scheme,
                                "--mode", c.mode, "--threads", std::to_string(o.threads),
                                "--log", log, "--quiet", "--timeout", "60"};
  // Every rank's log: the measured components are each iteration's slowest rank's.
  if (c.ranks > 1) a.push_back("--log-all-ranks");
  if (o.device == "cuda") a.insert(a.end(), {"--device", "cuda"});
  a.insert(a.end(), o.train_args.begin(), o.train_args.end());
  return a;
}

// `gcu calibrate` arguments for the grid's model, batch sizes and compressing schemes.
std::vector<std::string> calibrate_args(const ValidateOptions& o, const std::vector<Cell>& cells) {
  std::vector<std::string> batches, schemes;
  for (int b : o.grid.batches) batches.push_back(std::to_string(b));
  for (const auto& c : cells)
    if (c.scheme != "none" && std::find(schemes.begin(), schemes.end(), c.scheme) == schemes.end())
      schemes.push_back(c.scheme);
  std::vector<std::string> a = {o.gcu, "calibrate", "--model", o.grid.model, "--batch-sizes", joined(batches, ","),
                                "--threads", std::to_string(o.threads), "--budget-s",
                                std::to_string(int(o.calibrate_budget_s)), "--convergence-schemes", "-",
                                "--compute-data", o.data, "-o", o.profile};
  if (!schemes.empty()) a.insert(a.end(), {"--schemes", joined(schemes, ";")});
  if (o.device == "cuda") a.insert(a.end(), {"--backend", "nccl"});
  a.insert(a.end(), o.calibrate_args.begin(), o.calibrate_args.end());
  return a;
}

}  // namespace gcu::validate
