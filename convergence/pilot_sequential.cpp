// The sequential pilot design (pilot_sequential.h).
#include "convergence/pilot_sequential.h"

#include "compressors/registry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gcu::calibrate {

void check_sequential_options(const PilotOptions& o, const SequentialOptions& seq) {
  check_pilot_options(o);
  const PilotPredictOptions& po = seq.predict;
  if (!(std::isfinite(po.target) && po.target > 0))
    throw std::invalid_argument("pilot: the sequential design needs a target > 0 (the metric's value to reach)");
  check_predict_options(po);  // before any run, not after the first stage
  const auto listed = [&](const std::string& s) { return std::find(o.schemes.begin(), o.schemes.end(), s) != o.schemes.end(); };
  if (!listed(po.baseline))
    throw std::invalid_argument("pilot: the sequential design's baseline '" + po.baseline + "' is not among the schemes");
  for (const auto& s : seq.full_seeds)
    if (!listed(s)) throw std::invalid_argument("pilot: --full-seeds '" + s + "' is not among the schemes");
  if (o.seeds.size() < 2)
    throw std::invalid_argument("pilot: the sequential design needs >= 2 seeds (the baseline's spread)");
}

std::vector<nlohmann::ordered_json> run_pilots_sequential(const PilotOptions& o, const SequentialOptions& seq,
                                                          const RecordSink& sink, const PilotProgress& progress) {
  check_sequential_options(o, seq);
  const PilotPredictOptions& po = seq.predict;
  // Each scheme once: its canonical spec (what the records carry, "qsgd" ->
  // "qsgd:levels=127"), whether it runs every seed, and how many it has run.
  struct Scheme {
    std::string spec;
    bool full = false;
    size_t seeds = 1;
    nlohmann::ordered_json first;  // the prediction after its first seed (candidates)
    nlohmann::ordered_json last;   // the prediction with its seeds so far (from the second stage)
  };
  const auto canonical = [](const std::string& s) { return compress::make_compressor(s)->spec(); };
  std::vector<std::string> full_list{canonical(po.baseline)};
  for (const auto& s : seq.full_seeds) full_list.push_back(canonical(s));
  std::vector<Scheme> schemes;
  for (const auto& spec : o.schemes) {
    Scheme x;
    x.spec = canonical(spec);
    x.full = std::find(full_list.begin(), full_list.end(), x.spec) != full_list.end();
    x.seeds = x.full ? o.seeds.size() : 1;
    schemes.push_back(x);
  }
  auto cfg = pilot_config_record(o);
  cfg["sequential"] = {{"target", po.target}, {"metric", po.metric}, {"baseline", po.baseline},
                       {"full_seeds", seq.full_seeds}, {"first_seed", o.seeds.front()}};
  sink(cfg);
  std::vector<nlohmann::json> records;  // what predict_from_pilots reads
  const RecordSink keep = [&](const nlohmann::ordered_json& j) {
    records.push_back(nlohmann::json::parse(j.dump()));
    sink(j);
  };
  for (const auto& x : schemes) {
    for (size_t k = 0; k < x.seeds; ++k) run_pilot(o, x.spec, o.seeds[k], keep, progress);
    // The target against the baseline's own start (a target it already meets is refused)
    // before any candidate runs, not after the first stage.
    if (x.spec == full_list.front()) predict_from_pilots(records, po);
  }
  // Stages: a candidate that says "more_seeds" runs its next seed, until it does not, has
  // them all, or repeats its `never` (sequential_runs_next_seed).
  for (size_t k = 1; k < o.seeds.size(); ++k) {
    const nlohmann::ordered_json pred = predict_from_pilots(records, po);
    bool ran = false;
    for (auto& x : schemes) {
      if (x.full || x.seeds != k) continue;  // a baseline, or decided at an earlier stage
      const nlohmann::ordered_json& now = pred.at(x.spec);
      if (k == 1) x.first = now;
      const bool next = sequential_runs_next_seed(now, k == 1 ? nullptr : &x.last);
      x.last = now;
      if (!next) {
        if (progress && now.at("more_seeds").get<bool>())
          progress("pilot: " + x.spec + " is `never` with " + std::to_string(k) + " seeds as with " +
                   std::to_string(k - 1) + ": replicated, no more seeds");
        continue;
      }
      if (progress) progress("pilot: " + x.spec + " is undecided with " + std::to_string(k) + " seed(s): running seed " +
                             std::to_string(o.seeds[k]));
      run_pilot(o, x.spec, o.seeds[k], keep, progress);
      x.seeds = k + 1;
      ran = true;
    }
    if (!ran) break;
  }
  std::vector<nlohmann::ordered_json> out;
  for (const auto& x : schemes) {
    nlohmann::ordered_json r{{"type", "sequential"}, {"scheme", x.spec}};
    r["seeds"] = std::vector<uint64_t>(o.seeds.begin(), o.seeds.begin() + x.seeds);
    r["more_seeds"] = !x.full && x.seeds > 1;
    if (!x.full) {
      r["status_after_first_seed"] = x.first.at("status");
      r["evidence_after_first_seed"] = x.first.at("evidence");
    }
    out.push_back(r);
  }
  for (const auto& r : out) sink(r);
  return out;
}

}  // namespace gcu::calibrate
