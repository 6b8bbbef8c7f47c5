// CSV and JSON output of the what-if analyses (analyses.h). JSON is versioned
// ("schema": "gcu.simulate.<analysis>/1") and shares its "profile" and "setup" objects
// with the sweep's "gcu.simulate/1"; CSV has one header line and one row per scheme, k or
// candidate, numbers in SI units (seconds, Gbps, bytes). Fields: docs/model.md §5.1.
#include "simulate/analyses.h"

#include "simulate/format.h"

#include <nlohmann/json.hpp>

namespace gcu::simulate {
namespace {

using Json = nlohmann::ordered_json;

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// RFC 4180: quote a field holding a comma, a quote or a line break; double the quotes.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
std::string num(double v) { return fmt_number(v); }
std::string num(const std::optional<double>& v) { return v ? fmt_number(*v) : std::string(); }

std::string csv(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + field(r[i]);
    out += "\n";
  }
  return out;
}

const char* metric_name(model::Metric m) { return m == model::Metric::Tta ? "tta" : "iteration"; }

Json document(const AnalysisContext& c, Json parameters, Json rows) {
  Json j;
  j["schema"] = analysis_schema(c.analysis);
  j["analysis"] = c.analysis;
  j["profile"] = {{"file", c.profile_label}, {"model", c.model_name}, {"parameters", c.parameters}};
  j["setup"] = {{"nodes", c.nodes},
                {"gpus_per_node", c.gpus_per_node},
                {"gpus", c.nodes * c.gpus_per_node},
                {"batch_size", c.batch_size},
                {"global_batch", double(c.nodes) * c.gpus_per_node * c.batch_size},
                {"inter_bandwidth_gbps", c.inter_bandwidth_gbps},
                {"intra_bandwidth_gbps", c.intra_bandwidth_gbps},
                {"compute_speedup", c.compute_speedup},
                {"iteration_model", c.iteration_model},
                {"mode", c.mode}};
  j["convergence_source"] = c.convergence_source;
  j["parameters"] = std::move(parameters);
  j["rows"] = std::move(rows);
  j["assumptions"] = c.assumptions;
  return j;
}

std::string dump(const Json& j) { return j.dump(2) + "\n"; }

Json tta_json(const std::optional<model::TtaResult>& t) {
  if (!t) return nullptr;
  Json j = {{"status", model::tta_status_name(t->status)}, {"iterations", opt(t->iterations)},
            {"tta_s", opt(t->tta_s)},  {"multiplier", opt(t->multiplier)},
            {"batch_factor", t->batch_factor}, {"basis", t->basis}};
  if (t->tta_lo_s && t->tta_hi_s) j["interval_s"] = {*t->tta_lo_s, *t->tta_hi_s};
  if (!t->evidence.empty()) j["evidence"] = t->evidence;
  return j;
}

}  // namespace

std::string analysis_schema(const std::string& analysis) { return "gcu.simulate." + analysis + "/1"; }

// ---- crossover --------------------------------------------------------------------------
std::string crossover_csv(const CrossoverResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& x : r.rows)
    rows.push_back({x.scheme, r.baseline, metric_name(r.metric), num(r.lo_gbps), num(r.hi_gbps),
                    num(x.crossover_gbps), x.crossover_gbps ? (x.scheme_wins_below ? "below" : "above") : "",
                    x.note});
  return csv({"scheme", "baseline", "metric", "lo_gbps", "hi_gbps", "crossover_gbps", "scheme_wins", "note"}, rows);
}

std::string crossover_json(const CrossoverResult& r) {
  Json rows = Json::array();
  for (const auto& x : r.rows)
    rows.push_back({{"scheme", x.scheme},
                    {"baseline", r.baseline},
                    {"crossover_gbps", opt(x.crossover_gbps)},
                    {"scheme_wins", x.crossover_gbps ? Json(x.scheme_wins_below ? "below" : "above") : Json(nullptr)},
                    {"note", x.note}});
  return dump(document(r.context,
                       {{"baseline", r.baseline}, {"range_gbps", {r.lo_gbps, r.hi_gbps}}, {"metric", metric_name(r.metric)}},
                       std::move(rows)));
}

// ---- ratio ------------------------------------------------------------------------------
std::string ratio_csv(const RatioResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& x : r.rows)
    rows.push_back({x.scheme, num(r.within), num(x.iteration_s), num(x.linear_s), num(x.target_s), num(x.ratio),
                    x.note});
  return csv({"scheme", "within", "iteration_s", "linear_s", "target_s", "ratio_needed", "note"}, rows);
}

std::string ratio_json(const RatioResult& r) {
  Json rows = Json::array();
  for (const auto& x : r.rows)
    rows.push_back({{"scheme", x.scheme},
                    {"iteration_s", x.iteration_s},
                    {"linear_s", x.linear_s},
                    {"target_s", x.target_s},
                    {"ratio_needed", opt(x.ratio)},
                    {"reachable", x.ratio.has_value()},
                    {"note", x.note}});
  return dump(document(r.context, {{"within", r.within}}, std::move(rows)));
}

// ---- trade ------------------------------------------------------------------------------
std::string trade_csv(const TradeResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& x : r.rows) {
    const auto& it = x.iteration;
    rows.push_back({r.scheme, num(r.l), num(x.k), num(x.bytes_factor), num(it.total_s), num(it.encode_s),
                    num(it.decode_s), num(it.comm_s), num(it.exposed_s), num(it.wire_bytes)});
  }
  return csv({"scheme", "l", "k", "bytes_factor", "iteration_s", "encode_s", "decode_s", "comm_s", "exposed_s",
              "wire_bytes"},
             rows);
}

std::string trade_json(const TradeResult& r) {
  Json rows = Json::array();
  std::vector<double> ks;
  for (const auto& x : r.rows) {
    const auto& it = x.iteration;
    ks.push_back(x.k);
    rows.push_back({{"k", x.k},
                    {"bytes_factor", x.bytes_factor},
                    {"iteration_s", it.total_s},
                    {"encode_s", it.encode_s},
                    {"decode_s", it.decode_s},
                    {"comm_s", it.comm_s},
                    {"exposed_s", it.exposed_s},
                    {"wire_bytes", it.wire_bytes}});
  }
  return dump(document(r.context, {{"scheme", r.scheme}, {"l", r.l}, {"k", ks}}, std::move(rows)));
}

// ---- recommend --------------------------------------------------------------------------
std::string recommend_csv(const RecommendResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& x : r.rows) {
    const auto& t = x.rec.tta;
    rows.push_back({x.rank ? std::to_string(x.rank) : "", x.rec.scheme,
                    x.rec.iteration ? num(x.rec.iteration->total_s) : "", num(x.vs_fp16),
                    t ? model::tta_status_name(t->status) : "", t ? num(t->iterations) : "", t ? num(t->tta_s) : "",
                    t ? num(t->tta_lo_s) : "", t ? num(t->tta_hi_s) : "", t ? t->basis : "", x.rec.skipped});
  }
  return csv({"rank", "scheme", "iteration_s", "speedup_vs_fp16", "tta_status", "iterations", "tta_s", "tta_lo_s",
              "tta_hi_s", "tta_basis", "skipped"},
             rows);
}

std::string recommend_json(const RecommendResult& r) {
  Json rows = Json::array();
  for (const auto& x : r.rows)
    rows.push_back({{"rank", x.rank ? Json(x.rank) : Json(nullptr)},
                    {"scheme", x.rec.scheme},
                    {"iteration_s", x.rec.iteration ? Json(x.rec.iteration->total_s) : Json(nullptr)},
                    {"speedup_vs_fp16", opt(x.vs_fp16)},
                    {"tta", tta_json(x.rec.tta)},
                    {"skipped", x.rec.skipped.empty() ? Json(nullptr) : Json(x.rec.skipped)}});
  Json doc = document(r.context, {{"metric", metric_name(r.metric)}, {"candidates", r.rows.size()}}, std::move(rows));
  doc["best"] = r.best.empty() ? Json(nullptr) : Json(r.best);
  if (!r.overlap_note.empty()) doc["best_two_overlap"] = r.overlap_note;
  if (!r.confirm_note.empty()) doc["confirm_best"] = r.confirm_note;
  return dump(doc);
}

// ---- dispatch ---------------------------------------------------------------------------
std::string format_analysis(const CrossoverResult& r, OutputFormat f) {
  return f == OutputFormat::Json ? crossover_json(r) : f == OutputFormat::Csv ? crossover_csv(r) : crossover_text(r);
}
std::string format_analysis(const RatioResult& r, OutputFormat f) {
  return f == OutputFormat::Json ? ratio_json(r) : f == OutputFormat::Csv ? ratio_csv(r) : ratio_text(r);
}
std::string format_analysis(const TradeResult& r, OutputFormat f) {
  return f == OutputFormat::Json ? trade_json(r) : f == OutputFormat::Csv ? trade_csv(r) : trade_text(r);
}
std::string format_analysis(const RecommendResult& r, OutputFormat f) {
  return f == OutputFormat::Json ? recommend_json(r) : f == OutputFormat::Csv ? recommend_csv(r) : recommend_text(r);
}

}  // namespace gcu::simulate
