// What-if analysis reports (analyses.h).
#include "simulate/analyses.h"

#include "simulate/format.h"

#include <cmath>
#include <sstream>

namespace gcu::simulate {
namespace {

std::string header(const model::Profile& p, const AnalysisBase& a, const std::string& what) {
  const int nodes = a.setup.nodes > 0 ? a.setup.nodes : p.cluster.nodes;
  const int gpn = a.setup.gpus_per_node > 0 ? a.setup.gpus_per_node : p.cluster.gpus_per_node;
  const double bw = a.cond.inter_bandwidth_gbps > 0 ? a.cond.inter_bandwidth_gbps : p.cluster.inter.bandwidth_gbps;
  std::ostringstream s;
  s << "gcu simulate " << what << ": " << p.model.name << " (" << a.profile_label << "), " << nodes * gpn
    << " GPUs (" << nodes << " x " << gpn << "), inter-node " << fmt_number(bw) << " Gbps, "
    << model::model_name(a.setup.model) << " model\n\n";
  return s.str();
}

std::string tta_text(const std::optional<model::TtaResult>& t) {
  if (!t) return "-";
  if (t->status == model::TtaStatus::NeverReaches) return "never";
  return t->tta_s ? fmt_duration(*t->tta_s) : "-";
}

}  // namespace

std::string crossover_report(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                             const std::string& baseline, double lo_gbps, double hi_gbps, model::Metric metric) {
  std::vector<std::vector<std::string>> rows = {{"scheme", "baseline", "crossover (Gbps)", "scheme wins"}};
  std::vector<std::string> notes;
  for (const auto& s : schemes) {
    const auto c = model::crossover_bandwidth(p, s, baseline, a.setup, a.cond, lo_gbps, hi_gbps, metric);
    rows.push_back({s, baseline, c.gbps ? fmt_number(std::round(*c.gbps * 1000) / 1000) : "none",
                    c.gbps ? (c.scheme_wins_below ? "below" : "above") : "-"});
    notes.push_back(c.note);
  }
  std::string out = header(p, a, "crossover") + align_columns(rows);
  out += "\n  searched " + fmt_number(lo_gbps) + " to " + fmt_number(hi_gbps) + " Gbps of inter-node bandwidth, comparing " +
         (metric == model::Metric::Tta ? "time to accuracy" : "iteration time") + "\n";
  for (const auto& n : notes) out += "  " + n + "\n";
  return out;
}

std::string ratio_report(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                         double within) {
  std::vector<std::vector<std::string>> rows = {
      {"scheme", "iter now (ms)", "linear (ms)", "target (ms)", "ratio needed"}};
  std::string notes;
  for (const auto& s : schemes) {
    model::Setup st = a.setup;
    st.scheme = s;
    const auto r = model::ratio_for_linear_scaling(p, st, a.cond, within);
    const double linear = r.target_s / (1 + within);
    rows.push_back({s, fmt_ms(r.at_ratio_1_s), fmt_ms(linear), fmt_ms(r.target_s),
                    r.ratio ? fmt_ratio(*r.ratio) : "unreachable"});
    if (!r.note.empty()) notes += "  " + s + ": " + r.note + "\n";
  }
  std::ostringstream w;
  w << within * 100;
  return header(p, a, "ratio") + align_columns(rows) + "\n" + notes +
         "  ratio needed = extra compression (wire bytes divided by it, on top of the scheme's own) for the\n"
         "  iteration to come within " + w.str() + "% of linear scaling (no communication at all); the\n"
         "  scheme's encode/decode costs are kept.\n";
}

std::string trade_report(const model::Profile& p, const AnalysisBase& a, const std::string& scheme,
                         const std::vector<double>& ks, double l) {
  model::Setup st = a.setup;
  st.scheme = scheme;
  const auto rows = model::codec_ratio_trade(p, st, a.cond, ks, l);
  std::vector<std::vector<std::string>> t = {
      {"codec speed-up k", "bytes x", "iter (ms)", "encode+decode (ms)", "comm (ms)", "exposed (ms)"}};
  for (const auto& r : rows)
    t.push_back({fmt_number(r.k), fmt_number(r.bytes_factor), fmt_ms(r.iteration.total_s),
                 fmt_ms(r.iteration.encode_s + r.iteration.decode_s), fmt_ms(r.iteration.comm_s),
                 fmt_ms(r.iteration.exposed_s)});
  return header(p, a, "trade (" + scheme + ", l = " + fmt_number(l) + ")") + align_columns(t) +
         "\n  encode/decode k times faster, paid with l*k times more bytes on the wire.\n";
}

std::string recommend_report(const model::Profile& p, const AnalysisBase& a, std::vector<std::string> candidates,
                             model::Metric metric, size_t top) {
  if (candidates.empty()) candidates = model::default_candidates();
  const auto recs = model::recommend(p, candidates, a.setup, a.cond, metric);
  // FP16 reference for the speed-up column
  double fp16_s = 0;
  for (const auto& r : recs)
    if (r.scheme == "fp16" && r.iteration) fp16_s = r.iteration->total_s;
  std::vector<std::vector<std::string>> t = {{"rank", "scheme", "iter (ms)", "vs FP16", "TTA"}};
  std::vector<std::string> skipped;
  size_t n = 0;
  for (const auto& r : recs) {
    if (!r.skipped.empty()) {
      skipped.push_back(r.scheme + ": " + r.skipped);
      continue;
    }
    if (top && n >= top) continue;
    ++n;
    t.push_back({std::to_string(n), r.scheme, r.iteration ? fmt_ms(r.iteration->total_s) : "-",
                 r.iteration && fp16_s > 0 ? fmt_ratio(fp16_s / r.iteration->total_s) : "-", tta_text(r.tta)});
  }
  std::string out = header(p, a, "recommend") + align_columns(t, 2);
  out += "\n  ranked by predicted " + std::string(metric == model::Metric::Tta ? "time to accuracy" : "iteration time") +
         (recs.empty() || !n ? "" : "; best: " + t[1][1]) + "\n";
  for (const auto& s : skipped) out += "  skipped " + s + "\n";
  return out;
}

}  // namespace gcu::simulate
