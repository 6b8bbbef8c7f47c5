// The sequential pilot design (pilot_sequential.h).
#include "calibrate/pilot_sequential.h"

#include "compressors/registry.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <stdexcept>

namespace gcu::calibrate {

void check_sequential_options(const PilotOptions& o, const SequentialOptions& seq) {
  check_pilot_options(o);
  const PilotPredictOptions& po = seq.predict;
  if (!(std::isfinite(po.target) && po.target > 0))
    throw std::invalid_argument("pilot: the sequential design needs a target > 0 (the metric's value to reach)");
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
  // Records carry the compressor's canonical spec ("qsgd" -> "qsgd:levels=127").
  const auto canonical = [](const std::string& s) { return compress::make_compressor(s)->spec(); };
  const std::string base = canonical(po.baseline);
  std::vector<std::string> full_list;
  for (const auto& s : seq.full_seeds) full_list.push_back(canonical(s));
  auto cfg = pilot_config_record(o);
  cfg["sequential"] = {{"target", po.target}, {"metric", po.metric}, {"baseline", po.baseline},
                       {"full_seeds", seq.full_seeds}, {"first_seed", o.seeds.front()}};
  sink(cfg);
  std::vector<nlohmann::json> records;  // what predict_from_pilots reads
  const RecordSink keep = [&](const nlohmann::ordered_json& j) {
    records.push_back(nlohmann::json::parse(j.dump()));
    sink(j);
  };
  const auto full = [&](const std::string& spec) {
    const std::string s = canonical(spec);
    return s == base || std::find(full_list.begin(), full_list.end(), s) != full_list.end();
  };
  for (const auto& spec : o.schemes) {
    if (full(spec))
      for (uint64_t seed : o.seeds) run_pilot(o, spec, seed, keep, progress);
    else
      run_pilot(o, spec, o.seeds.front(), keep, progress);
  }
  // Stages: a candidate that says "more_seeds" runs its next seed, until it does not or
  // has them all.
  std::map<std::string, size_t> used;  // canonical spec -> seeds run
  std::map<std::string, nlohmann::ordered_json> first;  // the status after the first seed
  std::vector<std::string> open;
  for (const auto& spec : o.schemes)
    if (!full(spec)) open.push_back(canonical(spec)), used[canonical(spec)] = 1;
  for (size_t k = 1; k < o.seeds.size() && !open.empty(); ++k) {
    const nlohmann::ordered_json pred = predict_from_pilots(records, po);
    std::vector<std::string> next;
    for (const auto& s : open) {
      if (k == 1) first[s] = pred.at(s);
      if (!pred.at(s).at("more_seeds").get<bool>()) continue;
      if (progress) progress("pilot: " + s + " is undecided with " + std::to_string(k) + " seed(s): running seed " +
                             std::to_string(o.seeds[k]));
      run_pilot(o, s, o.seeds[k], keep, progress);
      used[s] = k + 1;
      next.push_back(s);
    }
    open = next;
  }
  std::vector<nlohmann::ordered_json> out;
  for (const auto& spec : o.schemes) {
    const std::string s = canonical(spec);
    nlohmann::ordered_json r{{"type", "sequential"}, {"scheme", s}};
    const size_t n = full(spec) ? o.seeds.size() : used.at(s);
    r["seeds"] = std::vector<uint64_t>(o.seeds.begin(), o.seeds.begin() + n);
    r["more_seeds"] = n > 1 && !full(spec);
    if (first.count(s)) {
      r["status_after_first_seed"] = first[s].at("status");
      r["evidence_after_first_seed"] = first[s].at("evidence");
    }
    out.push_back(r);
  }
  for (const auto& r : out) sink(r);
  return out;
}

}  // namespace gcu::calibrate
