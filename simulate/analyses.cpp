// What-if analyses (analyses.h): results over simulate/whatif.h and their human reports.
// CSV and JSON are in analyses_format.cpp.
#include "simulate/analyses.h"

#include "simulate/error.h"
#include "simulate/format.h"

#include "compressors/registry.h"

#include <cmath>
#include <set>
#include <sstream>

namespace gcu::simulate {
namespace {

AnalysisContext context_of(const model::Profile& p, const AnalysisBase& a, const std::string& analysis, bool tta) {
  AnalysisContext c;
  c.analysis = analysis;
  c.profile_label = a.profile_label;
  c.model_name = p.model.name;
  c.parameters = p.model.parameters;
  c.nodes = a.setup.nodes > 0 ? a.setup.nodes : p.cluster.nodes;
  c.gpus_per_node = a.setup.gpus_per_node > 0 ? a.setup.gpus_per_node : p.cluster.gpus_per_node;
  c.batch_size = a.setup.batch_size > 0 ? a.setup.batch_size
                 : p.model.compute.empty() ? 0
                                           : p.model.compute.front().batch_size;
  c.inter_bandwidth_gbps = a.cond.inter_bandwidth_gbps > 0 ? a.cond.inter_bandwidth_gbps : p.cluster.inter.bandwidth_gbps;
  c.intra_bandwidth_gbps = a.cond.intra_bandwidth_gbps > 0 ? a.cond.intra_bandwidth_gbps : p.cluster.intra.bandwidth_gbps;
  c.compute_speedup = a.cond.compute_speedup;
  c.convergence_source = model::convergence_source(p.convergence);
  c.iteration_model = model::model_name(a.setup.model);
  c.mode = model::mode_name(a.setup.mode);
  if (tta && c.convergence_source != "none") c.assumptions.push_back(model::batch_scaling_assumption(p));
  return c;
}

// The assumption lines behind the schemes' encode/decode costs (model/codec_cost.h:
// extrapolated or assumed fits). A scheme that cannot be costed is the analysis' to report.
void add_cost_assumptions(AnalysisContext& c, const model::Profile& p, const model::Setup& setup,
                          const std::vector<std::string>& schemes) {
  std::set<std::string> lines;
  for (const auto& s : schemes) {
    try {
      model::Setup x = setup;
      x.scheme = s;
      const model::Predictor pred(p, x);
      lines.insert(pred.plan().cost_assumptions.begin(), pred.plan().cost_assumptions.end());
    } catch (const std::exception&) {
    }
  }
  c.assumptions.insert(c.assumptions.end(), lines.begin(), lines.end());
}

std::string header(const AnalysisContext& c, const std::string& what) {
  std::ostringstream s;
  s << "gcu simulate " << what << ": " << c.model_name << " (" << c.profile_label << "), " << c.nodes * c.gpus_per_node
    << " GPUs (" << c.nodes << " x " << c.gpus_per_node << "), batch " << c.batch_size << "/GPU, inter-node "
    << fmt_number(c.inter_bandwidth_gbps) << " Gbps";
  if (c.compute_speedup != 1) s << ", compute " << fmt_number(c.compute_speedup) << "x faster";
  s << ", " << c.iteration_model << " model\n" << convergence_banner(c.convergence_source) << "\n";
  return s.str();
}

std::string footer(const AnalysisContext& c) {
  std::string out;
  for (const auto& a : c.assumptions) out += "  assumption: " + a + "\n";
  return out;
}

std::string tta_text(const std::optional<model::TtaResult>& t) { return fmt_tta(t); }

std::string metric_words(model::Metric m, const AnalysisContext& c) {
  if (m == model::Metric::Iteration && c.convergence_source == "none") return "iteration time (no convergence figures)";
  if (m == model::Metric::Iteration)
    return c.convergence_source == "assumed"
               ? "iteration time (the convergence figures are assumed; --metric tta compares their TTA)"
               : "iteration time";
  return c.convergence_source == "assumed" ? "time to accuracy, from ASSUMED convergence figures"
                                           : "time to accuracy (convergence: " + c.convergence_source + ")";
}

}  // namespace

OutputFormat parse_output_format(const std::string& s) {
  if (s == "table" || s == "text") return OutputFormat::Table;
  if (s == "csv") return OutputFormat::Csv;
  if (s == "json") return OutputFormat::Json;
  throw SimulateError("--format " + s + ": expected table, csv or json");
}

// ---- results --------------------------------------------------------------------------
CrossoverResult run_crossover(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                              const std::string& baseline, double lo_gbps, double hi_gbps, model::Metric metric) {
  CrossoverResult r;
  r.context = context_of(p, a, "crossover", metric == model::Metric::Tta);
  r.baseline = baseline;
  r.lo_gbps = lo_gbps;
  r.hi_gbps = hi_gbps;
  r.metric = metric;
  for (const auto& s : schemes) {
    const auto c = model::crossover_bandwidth(p, s, baseline, a.setup, a.cond, lo_gbps, hi_gbps, metric);
    r.rows.push_back({s, c.gbps, c.scheme_wins_below, c.note});
  }
  std::vector<std::string> costed = schemes;
  costed.push_back(baseline);
  add_cost_assumptions(r.context, p, a.setup, costed);
  return r;
}

RatioResult run_ratio(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                      double within) {
  RatioResult r;
  r.context = context_of(p, a, "ratio", false);
  r.within = within;
  for (const auto& s : schemes) {
    model::Setup st = a.setup;
    st.scheme = s;
    const auto n = model::ratio_for_linear_scaling(p, st, a.cond, within);
    r.rows.push_back({s, n.at_ratio_1_s, n.target_s / (1 + within), n.target_s, n.ratio, n.note});
  }
  add_cost_assumptions(r.context, p, a.setup, schemes);
  return r;
}

TradeResult run_trade(const model::Profile& p, const AnalysisBase& a, const std::string& scheme,
                      const std::vector<double>& ks, double l) {
  TradeResult r;
  r.context = context_of(p, a, "trade", false);
  r.scheme = scheme;
  r.l = l;
  model::Setup st = a.setup;
  st.scheme = scheme;
  r.rows = model::codec_ratio_trade(p, st, a.cond, ks, l);
  add_cost_assumptions(r.context, p, a.setup, {scheme});
  return r;
}

RecommendResult run_recommend(const model::Profile& p, const AnalysisBase& a, std::vector<std::string> candidates,
                              model::Metric metric, size_t top) {
  if (candidates.empty()) candidates = model::default_candidates();
  RecommendResult r;
  r.context = context_of(p, a, "recommend", true);
  r.metric = metric;
  r.top = top;
  const auto recs = model::recommend(p, candidates, a.setup, a.cond, metric);
  const std::string& fp16 = compress::Registry::instance().baseline(compress::Baseline::FP16).name;
  double fp16_s = 0;
  for (const auto& x : recs)
    if (x.scheme == fp16 && x.iteration) fp16_s = x.iteration->total_s;
  std::set<std::string> cost_assumptions;  // candidates costed beyond the measured fits
  for (const auto& x : recs)
    if (x.iteration) cost_assumptions.insert(x.iteration->cost_assumptions.begin(), x.iteration->cost_assumptions.end());
  r.context.assumptions.insert(r.context.assumptions.end(), cost_assumptions.begin(), cost_assumptions.end());
  int rank = 0;
  for (const auto& x : recs) {
    RecommendRow row;
    row.rec = x;
    if (x.skipped.empty()) row.rank = ++rank;
    if (x.iteration && fp16_s > 0 && x.iteration->total_s > 0) row.vs_fp16 = fp16_s / x.iteration->total_s;
    if (row.rank == 1) {
      r.best = x.scheme;
      // The sequential design's pick made on fewer seeds: confirm before acting on it.
      if (x.tta && metric == model::Metric::Tta && x.tta->pilot_seeds > 0 &&
          x.tta->pilot_seeds < x.tta->pilot_baseline_seeds)
        r.confirm_note = "the best (" + x.scheme + ") was piloted with " + std::to_string(x.tta->pilot_seeds) +
                         " of the baseline's " + std::to_string(x.tta->pilot_baseline_seeds) +
                         " seeds: run its other seeds (gcu pilot run --schemes '" + x.scheme +
                         "' --seeds ..., then gcu pilot predict on both files) before acting on it";
    }
    if (row.rank == 2 && x.tta && r.rows.front().rec.tta && metric == model::Metric::Tta) {
      const auto& first = *r.rows.front().rec.tta;
      const bool intervals = first.tta_lo_s || x.tta->tta_lo_s;
      if (intervals && model::tta_intervals_overlap(first, *x.tta).value_or(false))
        r.overlap_note = "the TTA intervals of the best two (" + r.best + ", " + x.scheme +
                         ") overlap: the ranking between them is not certain";
    }
    r.rows.push_back(std::move(row));
  }
  return r;
}

// ---- human reports --------------------------------------------------------------------
std::string crossover_text(const CrossoverResult& r) {
  std::vector<std::vector<std::string>> rows = {{"scheme", "baseline", "crossover (Gbps)", "scheme wins"}};
  for (const auto& x : r.rows)
    rows.push_back({short_label(x.scheme), short_label(r.baseline),
                    x.crossover_gbps ? fmt_number(std::round(*x.crossover_gbps * 1000) / 1000) : "none",
                    x.crossover_gbps ? (x.scheme_wins_below ? "below" : "above") : "-"});
  std::string out = header(r.context, "crossover") + align_columns(rows);
  out += "\n  searched " + fmt_number(r.lo_gbps) + " to " + fmt_number(r.hi_gbps) +
         " Gbps of inter-node bandwidth, comparing " + metric_words(r.metric, r.context) + "\n";
  for (const auto& x : r.rows) out += "  " + x.note + "\n";
  return out + footer(r.context);
}

std::string ratio_text(const RatioResult& r) {
  std::vector<std::vector<std::string>> rows = {
      {"scheme", "iter now (ms)", "linear (ms)", "target (ms)", "ratio needed"}};
  std::string notes;
  for (const auto& x : r.rows) {
    rows.push_back({x.scheme, fmt_ms(x.iteration_s), fmt_ms(x.linear_s), fmt_ms(x.target_s),
                    x.ratio ? fmt_ratio(*x.ratio) : "unreachable"});
    if (!x.note.empty()) notes += "  " + x.scheme + ": " + x.note + "\n";
  }
  std::ostringstream w;
  w << r.within * 100;
  return header(r.context, "ratio") + align_columns(rows) + "\n" + notes +
         "  ratio needed = extra compression (wire bytes divided by it, on top of the scheme's own) for the\n"
         "  iteration to come within " + w.str() + "% of linear scaling (no communication at all); the\n"
         "  scheme's encode/decode costs are kept.\n" + footer(r.context);
}

std::string trade_text(const TradeResult& r) {
  std::vector<std::vector<std::string>> t = {
      {"codec speed-up k", "bytes x", "iter (ms)", "encode+decode (ms)", "comm (ms)", "exposed (ms)"}};
  for (const auto& x : r.rows)
    t.push_back({fmt_number(x.k), fmt_number(x.bytes_factor), fmt_ms(x.iteration.total_s),
                 fmt_ms(x.iteration.encode_s + x.iteration.decode_s), fmt_ms(x.iteration.comm_s),
                 fmt_ms(x.iteration.exposed_s)});
  return header(r.context, "trade (" + r.scheme + ", l = " + fmt_number(r.l) + ")") + align_columns(t) +
         "\n  encode/decode k times faster, paid with l*k times more bytes on the wire.\n" + footer(r.context);
}

std::string recommend_text(const RecommendResult& r) {
  std::vector<std::vector<std::string>> t = {{"rank", "scheme", "iter (ms)", "vs FP16", "TTA"}};
  std::vector<std::string> skipped;
  for (const auto& x : r.rows) {
    if (!x.rank) {
      skipped.push_back(x.rec.scheme + ": " + x.rec.skipped);
      continue;
    }
    if (r.top && size_t(x.rank) > r.top) continue;
    t.push_back({std::to_string(x.rank), short_label(x.rec.scheme), x.rec.iteration ? fmt_ms(x.rec.iteration->total_s) : "-",
                 x.vs_fp16 ? fmt_ratio(*x.vs_fp16) : "-", tta_text(x.rec.tta)});
  }
  std::string out = header(r.context, "recommend") + align_columns(t, 2);
  out += "\n  ranked by predicted " + metric_words(r.metric, r.context) +
         (r.best.empty() ? "" : "; best: " + r.best) + "\n";
  if (!r.overlap_note.empty()) out += "  " + r.overlap_note + "\n";
  if (!r.confirm_note.empty()) out += "  " + r.confirm_note + "\n";
  int fallback = 0;
  for (const auto& x : r.rows) fallback += x.rec.tta && model::is_fallback_basis(x.rec.tta->basis);
  if (fallback)
    out += "  " + std::to_string(fallback) + " TTA(s) from the FALLBACK error-to-multiplier constants (docs/model.md §4; "
           "tta_basis in CSV, tta.basis in JSON); `gcu pilot` gives validated predictions\n";
  for (const auto& s : skipped) out += "  skipped " + s + "\n";
  return out + footer(r.context);
}

}  // namespace gcu::simulate
