// Report formatting and writing (report.h).
#include "validate/report.h"

#include "validate/predict.h"

#include "simulate/error.h"
#include "util/iso_time.h"
#include "util/output_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

namespace gcu::validate {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kFiles[] = {"validate.json", "validate.csv", "validate.txt", "bandwidth.png", "bandwidth.gp",
                        "scatter.png", "scatter.gp"};

std::string num(double v, const char* f = "%.4g") {
  if (!std::isfinite(v)) return "";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
json jnum(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json spread_json(const Spread& s) { return {{"median", s.median}, {"mean", s.mean}, {"p10", s.p10}, {"p90", s.p90}}; }
std::string given(const CellResult& c) { return c.cell.scheme_given.empty() ? c.cell.scheme : c.cell.scheme_given; }
std::string pct(double e) { return std::isfinite(e) ? num(e * 100, "%+.1f%%") : "-"; }
std::string csvq(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace

void check_output_targets(const std::string& dir) {
  for (const char* f : kFiles) {
    try {
      util::check_output_target((fs::path(dir) / f).string());
    } catch (const util::FileError& e) {
      throw ValidateError(e.what());
    }
  }
}

namespace {
// The summary's error groups, as the table names them and the JSON keys them; by batch
// size and rank count the table lists only when the grid has more than one of them.
struct NamedGroups {
  const std::vector<GroupErrors>* groups;
  const char* what;
  const char* key;
  bool always_listed;
};
std::array<NamedGroups, 4> named_groups(const Summary& s) {
  return {{{&s.by_scheme, "scheme", "by_scheme", true},
           {&s.by_link, "link", "by_link", true},
           {&s.by_batch, "per-rank batch", "by_batch", false},
           {&s.by_ranks, "ranks", "by_ranks", false}}};
}
}  // namespace

std::string format_table(const Report& r) {
  std::ostringstream o;
  o << "gcu validate: " << r.profile_model << ", profile " << r.profile_path << ", testbed " << r.testbed
    << (r.testbed_note.empty() ? "" : " (" + r.testbed_note + ")") << "\n";
  const ValidateOptions& op = r.options;
  o << "protocol " << op.protocol
    << (op.protocol == "user" ? " (one calibration; each link at its point-to-point probed rate; nothing re-measured)"
                              : " (in-grid measurements attribute the error)")
    << ": predict-rate " << op.predict_rate << ", link-gamma " << op.link_gamma << ", compute-probes "
    << op.compute_probes << ", speed-adjust " << op.speed_adjust << "\n";
  if (r.calibration_age_s)
    o << "profile calibrated " << r.profile_date << ", " << num(*r.calibration_age_s / 60, "%.0f")
      << " min before the grid started (" << r.grid_started << ")\n";
  o << "contention (profile): gamma " << num(r.gamma, "%.3f") << " (backward's rate while a collective runs), "
    << "comm_contention " << num(r.comm_contention, "%.3f") << " (a collective's CPU side beside backward), "
    << "overlap_contention " << num(r.overlap_contention, "%.3f") << " (codec beside backward)\n";
  o << "links (requested -> point-to-point probe, both ways at once; measured all-reduce rate; all-gather's):";
  for (const auto& l : r.links)
    o << "  " << l.link.name << " x" << l.ranks << " -> "
      << (l.probed_gbps > 0 ? "probe " + num(l.probed_gbps, "%.3g") + " Gbit/s" : "no probe") << "; "
      << (l.measured_gbps > 0 ? num(l.measured_gbps, "%.3g") + " Gbit/s" : "not measured")
      << (l.measured_allgather_gbps > 0 ? " (" + num(l.measured_allgather_gbps, "%.3g") + ")" : "");
  // Each link's own gamma step (link_gamma.h), when its cells were predicted with it.
  bool any_gamma = false;
  for (const auto& l : r.links) any_gamma = any_gamma || l.gamma.measured;
  if (any_gamma) {
    o << "\nper link (its cells predicted with these; --link-gamma): gamma / comm_contention (\"profile's\": not "
         "determined by the link, the profile's used), all-reduces beside the backward / alone (ms):";
    for (const auto& l : r.links)
      if (l.gamma.measured)
        o << "  " << l.link.name << " x" << l.ranks << " " << num(l.gamma.gamma, "%.2f") << " / "
          << num(l.gamma.comm_contention, "%.2f") << (l.gamma.comm_contention_used() ? "" : " (profile's)") << ", "
          << num(l.gamma.comm_s * 1e3, "%.0f") << " / "
          << num(l.gamma.comm_alone_s * 1e3, "%.0f");
  }
  // Batch sizes the profile has no compute for (each basis once).
  std::vector<std::string> bases;
  for (const auto& c : r.cells)
    if (!c.compute_basis.empty() && std::find(bases.begin(), bases.end(), c.compute_basis) == bases.end())
      bases.push_back(c.compute_basis);
  for (const auto& basis : bases) o << "\ncompute not measured at the cell's batch: " << basis;
  const std::string& stat = r.options.statistic;
  o << "\n\ntotal iteration time (ms): predicted vs measured " << stat
    << " [p10, p90]; error = (pred - meas) / meas\n";
  char b[512];
  std::snprintf(b, sizeof b, "%-22s %-9s %-7s %4s %3s %9s %9s %19s %8s %9s %6s %5s %6s\n", "scheme", "link", "mode",
                "b", "r", "pred", "meas", "[p10, p90]", "error", "adj.error", "noise", "load", "ivcsw");
  o << b;
  for (const auto& c : r.cells) {
    if (!c.ok) {
      std::snprintf(b, sizeof b, "%-22s %-9s %-7s %4d %3d  FAILED: %s\n", given(c).c_str(),
                    c.cell.link.name.c_str(), c.cell.mode.c_str(), c.cell.batch, c.cell.ranks,
                    c.message.substr(0, 160).c_str());
      o << b;
      continue;
    }
    const auto& t = c.measured[size_t(Component::Total)];
    std::snprintf(b, sizeof b, "%-22s %-9s %-7s %4d %3d %9.1f %9.1f   [%7.1f, %7.1f] %8s %9s %6s %5s %6s\n",
                  given(c).c_str(), c.cell.link.name.c_str(), c.cell.mode.c_str(), c.cell.batch, c.cell.ranks,
                  at(c.predicted, Component::Total) * 1e3, t.of(stat) * 1e3, t.p10 * 1e3, t.p90 * 1e3,
                  pct(at(c.error, Component::Total)).c_str(), c.speed.applied ? pct(c.speed.error).c_str() : "-",
                  c.noise_limited ? "yes" : "no",
                  std::isfinite(c.load_average) ? num(c.load_average, "%.1f").c_str() : "-",
                  c.nivcsw >= 0 ? std::to_string(c.nivcsw).c_str() : "-");
    o << b;
  }
  o << "\nper component (ms, predicted / measured " << stat << "):\n";
  std::snprintf(b, sizeof b, "%-34s", "cell");
  o << b;
  for (int k = 0; k < kComponents; ++k)
    if (Component(k) != Component::Data) {
      std::snprintf(b, sizeof b, " %15s", component_name(Component(k)));
      o << b;
    }
  o << "\n";
  for (const auto& c : r.cells) {
    if (!c.ok) continue;
    std::snprintf(b, sizeof b, "%-34s", c.cell.label().substr(0, 34).c_str());  // scheme as given
    o << b;
    for (int k = 0; k < kComponents; ++k) {
      if (Component(k) == Component::Data) continue;
      std::snprintf(b, sizeof b, " %7.1f/%7.1f", c.predicted[size_t(k)] * 1e3, c.measured[size_t(k)].of(stat) * 1e3);
      o << b;
    }
    o << "\n";
  }
  const Summary& s = r.summary;
  o << "\nsummary: " << s.ok << " of " << s.cells << " cells ok, " << s.failed << " failed; " << s.noise_limited
    << " noise-limited (" << num(s.noise_limited_fraction * 100, "%.0f") << "%); |error| of total over "
    << s.counted << " counted cells: median " << num(s.median_abs_error * 100, "%.1f") << "%, max "
    << num(s.max_abs_error * 100, "%.1f") << "%; over all ok cells (noise-limited too): median "
    << num(s.median_abs_error_all * 100, "%.1f") << "%, max " << num(s.max_abs_error_all * 100, "%.1f") << "%\n";
  if (r.options.speed_adjust == "forward")
    o << "speed adjustment (the machine's speed per round, from forward + optimizer, taken out; docs/validation.md "
         "§2): "
      << s.speed_adjusted << " cells; median shift of the error " << pct(s.speed_adjustment_shift)
      << "; without it: " << s.noise_limited_unadjusted << " noise-limited, |error| over " << s.counted_unadjusted
      << " counted cells: median " << num(s.median_abs_error_unadjusted * 100, "%.1f") << "%, max "
      << num(s.max_abs_error_unadjusted * 100, "%.1f") << "%; over all ok cells: median "
      << num(s.median_abs_error_all_unadjusted * 100, "%.1f") << "%, max "
      << num(s.max_abs_error_all_unadjusted * 100, "%.1f") << "%\n";
  o << "compute probes (calibrate's compute step once per round among the cells; docs/validation.md §2): "
    << r.compute_probes.note;
  for (const auto& b : r.compute_probes.batches)
    if (b.probes > 0) o << "; batch " << b.batch_size << ": x" << num(b.compute_ratio, "%.3f") << " the calibration's";
  o << "\n";
  if (s.median_calibration_uncertainty > 0)
    o << "calibration noise: the calibration's own sampling noise moves a prediction by "
      << num(s.median_calibration_uncertainty * 100, "%.1f")
      << "% p10-p90 on median (redrawn collective sweeps, floors and contention factor); noise-limited by the measurement alone: "
      << s.noise_limited_measurement << "\n";
  o << "noise-limited by the rounds' range instead of the 80% interval of their mean (the rule before "
       "gcu.validate/5): "
    << s.noise_limited_range_rule << "\n";
  if (s.rounds_plan.noise_limited > 0) {
    const RoundsPlan& p = s.rounds_plan;
    o << "rounds to count the noise-limited cells (their round-to-round spread as measured; docs/validation.md §2): "
      << p.noise_limited << " at " << p.rounds << " round(s); at " << 2 * p.rounds << " rounds " << p.at_2x
      << " would count (noise-limited " << num(p.noise_limited_fraction_2x * 100, "%.0f") << "%), at "
      << 4 * p.rounds << " rounds " << p.at_4x << " (" << num(p.noise_limited_fraction_4x * 100, "%.0f")
      << "%); " << p.calibration_limited << " within the calibration's own noise (no rounds help), " << p.beyond
      << " beyond " << kRoundsPlanMax << " rounds (the model within the measurement's noise)";
    if (p.one_round > 0) o << ", " << p.one_round << " with one round (no spread to scale)";
    o << "\n";
  }
  if (s.goal_check.noise_limited > 0) {
    const GoalCheck& g = s.goal_check;
    o << "noise-limited cells against the " << num(g.goal * 100, "%.3g")
      << "% goal (--error-goal; the far end of each one's 80% error interval, docs/validation.md §2): "
      << g.within << " of " << g.noise_limited << " within it (the model within the goal there, the exact error "
      << "hidden by the noise), " << g.open << " open (" << num(g.open_fraction * 100, "%.0f")
      << "% of the ok cells: the noise reaches past the goal)";
    if (std::isfinite(g.max_bound)) o << "; largest bound " << num(g.max_bound * 100, "%.1f") << "%";
    o << "\n";
  }
  if (std::isfinite(s.forward_measured_over_predicted))
    o << "compute against the calibration (median over the cells, measured / predicted): forward "
      << num(s.forward_measured_over_predicted, "%.3f") << ", backward "
      << num(s.backward_measured_over_predicted, "%.3f") << "\n";
  if (std::isfinite(s.median_abs_error_at_calibration_speed))
    o << "at the calibration's speed (the speed adjustment against the predicted forward + optimizer, which also "
         "takes out the machine's drift since the calibration; not used by the noise test): |error| median "
      << num(s.median_abs_error_at_calibration_speed * 100, "%.1f") << "%, max "
      << num(s.max_abs_error_at_calibration_speed * 100, "%.1f") << "%, median signed "
      << pct(s.median_error_at_calibration_speed) << "\n";
  if (!s.round_drift.empty()) {
    o << "round drift (median over the cells of round value / cell median):";
    for (size_t k = 0; k < s.round_drift.size(); ++k)
      o << " " << k + 1 << ": "
        << (std::isfinite(s.round_drift[k]) ? num(s.round_drift[k], "%.3f")
                                            : std::string(r.options.reuse &&
                                                                  std::count(r.options.exclude_rounds.begin(),
                                                                             r.options.exclude_rounds.end(), int(k) + 1)
                                                              ? "excluded"
                                                              : "-"));
    o << "\n";
  }
  for (const NamedGroups& ng : named_groups(s)) {
    if (!ng.always_listed && ng.groups->size() < 2) continue;
    o << "\nby " << ng.what << " (all ok cells): median |error|, max |error|, median signed error, cells (noise-limited)\n";
    for (const auto& gr : *ng.groups) {
      std::snprintf(b, sizeof b, "  %-40s %7s %7s %8s %4d (%d)\n", gr.name.substr(0, 40).c_str(),
                    num(gr.median_abs_error * 100, "%.1f%%").c_str(), num(gr.max_abs_error * 100, "%.1f%%").c_str(),
                    pct(gr.median_error).c_str(), gr.cells, gr.noise_limited);
      o << b;
    }
  }
  return o.str();
}

std::string format_csv(const Report& r) {
  std::ostringstream o;
  o << "id,model,scheme,link,link_nominal_gbps,link_measured_gbps,rate_used_gbps,mode,batch,ranks,status,"
       "noise_limited,spread,load_average,involuntary_context_switches,iterations,rank_logs,straggler_wait_mean_s,"
       "pred_total_p10_s,pred_total_p90_s";
  // (the speed adjustment's columns go last, before the message)
  for (int k = 0; k < kComponents; ++k) {
    const std::string n = component_name(Component(k));
    o << ",pred_" << n << "_s,meas_" << n << "_median_s,meas_" << n << "_mean_s,meas_" << n << "_p10_s,meas_" << n
      << "_p90_s,error_" << n;
  }
  o << ",speed_sensitivity_s,speed_coefficient,mean_speed,adjusted_total_s,adjusted_error_total,adjusted_uncertainty,"
       "error_bound,message\n";
  for (const auto& c : r.cells) {
    o << c.cell.id << "," << csvq(c.cell.model) << "," << csvq(c.cell.scheme) << "," << c.cell.link.name << ","
      << (c.cell.link.unlimited() ? "" : num(c.cell.link.nominal_gbps, "%.6g")) << ","
      << (c.measured_link_gbps > 0 ? num(c.measured_link_gbps, "%.6g") : "") << ","
      << (c.rate_used_gbps > 0 ? num(c.rate_used_gbps, "%.6g") : "") << "," << c.cell.mode << "," << c.cell.batch
      << "," << c.cell.ranks << "," << (c.ok ? "ok" : "failed") << "," << (c.noise_limited ? 1 : 0) << ","
      << num(c.spread, "%.6g") << "," << num(c.load_average, "%.3g") << "," << c.nivcsw << "," << c.samples.size()
      << "," << c.rank_logs << ","
      << (c.straggler_wait_s.empty() ? "" : num(spread_of(c.straggler_wait_s).mean, "%.6g")) << ","
      << (c.calibration_draws > 0 ? num(c.predicted_p10, "%.6g") : "") << ","
      << (c.calibration_draws > 0 ? num(c.predicted_p90, "%.6g") : "");
    for (int k = 0; k < kComponents; ++k) {
      o << "," << num(c.predicted[size_t(k)], "%.6g");
      if (c.ok)
        o << "," << num(c.measured[size_t(k)].median, "%.6g") << "," << num(c.measured[size_t(k)].mean, "%.6g") << ","
          << num(c.measured[size_t(k)].p10, "%.6g") << ","
          << num(c.measured[size_t(k)].p90, "%.6g") << "," << num(c.error[size_t(k)], "%.6g");
      else
        o << ",,,,,";
    }
    if (c.ok && c.speed.applied)
      o << "," << num(c.speed.sensitivity_s, "%.6g") << "," << num(c.speed.coefficient, "%.6g") << ","
        << num(c.speed.mean_speed, "%.6g") << ","
        << num(c.speed.value, "%.6g") << "," << num(c.speed.error, "%.6g") << "," << num(c.speed.uncertainty, "%.6g");
    else
      o << ",,,,,,";
    const double bound = error_bound(c);
    o << "," << (std::isfinite(bound) ? num(bound, "%.6g") : "") << "," << csvq(c.message) << "\n";
  }
  return o.str();
}

// The compute probes (compute_probe.h): every probe's figures, and per batch size the
// calibration's compute, the probes' median and their ratio.
json probes_json(const ComputeProbes& cp) {
  const auto entry = [](const ProbeEntry& e) {
    return json{{"forward_s", e.forward_s}, {"backward_s", e.backward_s}, {"optimizer_s", e.optimizer_s}};
  };
  json probes = json::array();
  for (const auto& p : cp.probes) {
    json es = json::array();
    for (const auto& e : p.entries) {
      json x = entry(e);
      x["batch"] = e.batch_size;
      es.push_back(x);
    }
    probes.push_back({{"round", p.round + 1}, {"ok", p.ok}, {"message", p.message}, {"state", p.state_path},
                      {"wall_s", p.wall_s}, {"entries", es}});
  }
  json batches = json::array();
  for (const auto& b : cp.batches)
    batches.push_back({{"batch", b.batch_size}, {"probes", b.probes}, {"calibrated", entry(b.calibrated)},
                       {"probed", entry(b.probed)}, {"forward_ratio", b.forward_ratio},
                       {"backward_ratio", b.backward_ratio}, {"optimizer_ratio", b.optimizer_ratio},
                       {"compute_ratio", b.compute_ratio}, {"backward_range", b.backward_spread}});
  return {{"used", cp.used}, {"note", cp.note}, {"probes", probes}, {"batches", batches}};
}

namespace {
// A cell's rounds_to_count: null when it counts, the rounds when more would make it count,
// else why none would.
json rounds_json(const CellResult& c) {
  const int k = rounds_to_count(c);
  switch (k) {
    case kRoundsCounted: return nullptr;
    case kRoundsCalibrationLimited: return "calibration";
    case kRoundsBeyond: return "beyond";
    case kRoundsOneRound: return "one round";
    default: return k;
  }
}
}  // namespace

std::string format_json(const Report& r) {
  json j;
  j["schema"] = kReportSchema;
  const auto& o = r.options;
  j["command"] = o.command_line;
  j["date"] = util::iso_utc_now();
  j["profile"] = {{"file", r.profile_path}, {"model", r.profile_model},
                  {"calibrated", r.profile_date.empty() ? json(nullptr) : json(r.profile_date)},
                  {"gamma", r.gamma}, {"overlap_contention", r.overlap_contention},
                  {"comm_contention", r.comm_contention}};
  j["grid_started"] = r.grid_started.empty() ? json(nullptr) : json(r.grid_started);
  j["calibration_age_s"] = r.calibration_age_s ? json(*r.calibration_age_s) : json(nullptr);
  j["testbed"] = {{"kind", r.testbed}, {"note", r.testbed_note}};
  j["grid"] = {{"model", o.grid.model}, {"protocol", o.protocol}, {"iters", o.iters}, {"warmup", o.warmup}, {"repeats", o.repeats},
               {"threads", o.threads}, {"seed", o.seed}, {"predict_rate", o.predict_rate}, {"data", o.data},
               {"exclude_rounds", o.exclude_rounds}, {"speed_adjust", o.speed_adjust},
               {"compute_probes", o.compute_probes}, {"error_goal", o.error_goal}, {"link_gamma", o.link_gamma}};
  j["statistic"] = o.statistic;
  json links = json::array();
  const auto link_gamma_json = [](const LinkGamma& g) {
    if (!g.measured) return json{{"measured", false}, {"note", g.note}};
    return json{{"measured", true},
                {"gamma", g.gamma},
                {"comm_contention", g.comm_contention},
                {"comm_contention_used", g.comm_contention_used()},
                {"stretch", g.stretch},
                {"alone_s", g.alone_s},
                {"overlapped_s", g.overlapped_s},
                {"comm_s", g.comm_s},
                {"comm_alone_s", g.comm_alone_s},
                {"state", g.state_path}};
  };
  for (const auto& l : r.links)
    links.push_back({{"link", l.link.name}, {"ranks", l.ranks},
                     {"requested_gbps", l.link.unlimited() ? json(nullptr) : json(l.link.nominal_gbps)},
                     {"measured_gbps", l.measured_gbps > 0 ? json(l.measured_gbps) : json(nullptr)},
                     {"measured_allgather_gbps",
                      l.measured_allgather_gbps > 0 ? json(l.measured_allgather_gbps) : json(nullptr)},
                     {"note", l.note}, {"gamma", link_gamma_json(l.gamma)},
                     {"probed_gbps", l.probed_gbps > 0 ? json(l.probed_gbps) : json(nullptr)},
                     {"probed_rx_gbps", l.probed_gbps > 0 ? json{l.probed_rx_gbps[0], l.probed_rx_gbps[1]} : json(nullptr)},
                     {"probe_note", l.probe_note}});
  j["links"] = links;
  j["compute_probes"] = probes_json(r.compute_probes);
  json cells = json::array();
  for (const auto& c : r.cells) {
    json x;
    x["id"] = c.cell.id;
    x["settings"] = {{"model", c.cell.model}, {"scheme", c.cell.scheme}, {"scheme_given", c.cell.scheme_given},
                     {"link", c.cell.link.name},
                     {"link_nominal_gbps", c.cell.link.unlimited() ? json(nullptr) : json(c.cell.link.nominal_gbps)},
                     {"link_measured_gbps", c.measured_link_gbps > 0 ? json(c.measured_link_gbps) : json(nullptr)},
                     {"rate_used_gbps", c.rate_used_gbps > 0 ? json(c.rate_used_gbps) : json(nullptr)},
                     {"link_fits", c.link_fits},
                     {"mode", c.cell.mode}, {"batch", c.cell.batch}, {"ranks", c.cell.ranks},
                     {"compute_basis", c.compute_basis.empty() ? json(nullptr) : json(c.compute_basis)}};
    x["status"] = c.ok ? "ok" : "failed";
    x["message"] = c.message;
    json pred, meas, err;
    for (int k = 0; k < kComponents; ++k) {
      const std::string n = component_name(Component(k));
      pred[n] = c.predicted[size_t(k)];
      if (c.ok) {
        meas[n] = spread_json(c.measured[size_t(k)]);
        err[n] = jnum(c.error[size_t(k)]);
      }
    }
    x["predicted"] = pred;
    x["measured"] = c.ok ? meas : json(nullptr);
    x["error"] = c.ok ? err : json(nullptr);
    x["spread"] = c.ok ? jnum(c.spread) : json(nullptr);
    x["uncertainty"] = c.ok ? jnum(c.uncertainty) : json(nullptr);
    x["uncertainty_range"] = c.ok ? jnum(c.uncertainty_range) : json(nullptr);
    x["calibration_noise"] =
        c.calibration_draws > 0
            ? json{{"p10", c.predicted_p10}, {"p90", c.predicted_p90}, {"draws", c.calibration_draws},
                   {"uncertainty", jnum(c.calibration_uncertainty)}}
            : json(nullptr);
    x["speed_adjustment"] = json(nullptr);
    if (c.ok && c.speed.applied)
      x["speed_adjustment"] = {{"sensitivity_s", c.speed.sensitivity_s}, {"coefficient", c.speed.coefficient},
                               {"reference_s", c.speed.reference_s},
                               {"speed", c.speed.speed}, {"mean_speed", c.speed.mean_speed},
                               {"round_values", c.speed.round_values}, {"value", c.speed.value},
                               {"error", jnum(c.speed.error)}, {"uncertainty", jnum(c.speed.uncertainty)},
                               {"reference_uncertainty", jnum(c.speed.reference_uncertainty)},
                               {"error_at_calibration_speed", jnum(c.speed.error_at_calibration_speed)}};
    else if (c.ok && r.options.speed_adjust == "forward")
      x["speed_adjustment"] = {{"note", c.speed.note}};
    x["round_reference"] = c.round_reference;
    x["noise_limited"] = c.noise_limited;
    x["rounds_to_count"] = rounds_json(c);
    x["error_bound"] = jnum(error_bound(c));
    x["rounds"] = c.rounds;
    x["round_values"] = c.round_values;
    x["round_ids"] = c.round_ids;
    x["iterations"] = c.samples.size();
    x["rank_logs"] = c.rank_logs;
    x["straggler_wait"] = c.straggler_wait_s.empty() ? json(nullptr) : spread_json(spread_of(c.straggler_wait_s));
    x["load_average"] = jnum(c.load_average);
    x["involuntary_context_switches"] = c.nivcsw >= 0 ? json(c.nivcsw) : json(nullptr);
    x["wall_s"] = c.wall_s;
    x["logs"] = c.logs;
    cells.push_back(x);
  }
  j["cells"] = cells;
  const Summary& s = r.summary;
  j["summary"] = {{"cells", s.cells}, {"ok", s.ok}, {"failed", s.failed}, {"noise_limited", s.noise_limited},
                  {"noise_limited_fraction", s.noise_limited_fraction}, {"counted", s.counted},
                  {"noise_limited_measurement", s.noise_limited_measurement},
                  {"median_calibration_uncertainty", s.median_calibration_uncertainty},
                  {"noise_limited_range_rule", s.noise_limited_range_rule},
                  {"median_abs_error_total", s.median_abs_error}, {"max_abs_error_total", s.max_abs_error},
                  {"median_abs_error_total_all_ok", s.median_abs_error_all},
                  {"max_abs_error_total_all_ok", s.max_abs_error_all}};
  j["summary"]["speed_adjusted"] = s.speed_adjusted;
  j["summary"]["speed_adjustment_shift"] = jnum(s.speed_adjustment_shift);
  j["summary"]["unadjusted"] = {{"noise_limited", s.noise_limited_unadjusted}, {"counted", s.counted_unadjusted},
                                {"median_abs_error_total", s.median_abs_error_unadjusted},
                                {"max_abs_error_total", s.max_abs_error_unadjusted},
                                {"median_abs_error_total_all_ok", s.median_abs_error_all_unadjusted},
                                {"max_abs_error_total_all_ok", s.max_abs_error_all_unadjusted}};
  j["summary"]["at_calibration_speed"] = {{"median_abs_error_total", jnum(s.median_abs_error_at_calibration_speed)},
                                          {"max_abs_error_total", jnum(s.max_abs_error_at_calibration_speed)},
                                          {"median_error_total", jnum(s.median_error_at_calibration_speed)}};
  j["summary"]["forward_measured_over_predicted"] = jnum(s.forward_measured_over_predicted);
  j["summary"]["backward_measured_over_predicted"] = jnum(s.backward_measured_over_predicted);
  const RoundsPlan& rp = s.rounds_plan;
  j["summary"]["rounds_plan"] = {{"rounds", rp.rounds}, {"noise_limited", rp.noise_limited},
                                 {"count_at_2x", rp.at_2x}, {"count_at_4x", rp.at_4x},
                                 {"noise_limited_fraction_at_2x", rp.noise_limited_fraction_2x},
                                 {"noise_limited_fraction_at_4x", rp.noise_limited_fraction_4x},
                                 {"calibration_limited", rp.calibration_limited}, {"beyond", rp.beyond},
                                 {"one_round", rp.one_round}, {"max_rounds", kRoundsPlanMax}};
  const GoalCheck& gc = s.goal_check;
  j["summary"]["goal_check"] = {{"goal", gc.goal}, {"noise_limited", gc.noise_limited}, {"within", gc.within},
                                {"open", gc.open}, {"open_fraction", gc.open_fraction},
                                {"max_bound", jnum(gc.max_bound)}};
  json drift = json::array();
  for (double d : s.round_drift) drift.push_back(jnum(d));
  j["summary"]["round_drift"] = drift;
  for (const NamedGroups& ng : named_groups(s)) {
    json arr = json::array();
    for (const auto& gr : *ng.groups)
      arr.push_back({{"name", gr.name}, {"cells", gr.cells}, {"noise_limited", gr.noise_limited},
                     {"median_abs_error_total", gr.median_abs_error}, {"max_abs_error_total", gr.max_abs_error},
                     {"median_error_total", gr.median_error}});
    j["summary"][ng.key] = arr;
  }
  return j.dump(1) + "\n";
}

}  // namespace gcu::validate
