// What-if analyses of `gcu simulate` beyond the sweep table, over simulate/whatif.h:
//  - crossover: the inter-node bandwidth where a scheme starts (or stops) beating a baseline;
//  - ratio: the compression ratio a scheme needs to come within X% of linear scaling;
//  - trade: encode/decode k times faster at the price of l*k times more bytes;
//  - recommend: candidates ranked by predicted TTA (or iteration time).
// Each analysis returns a plain result struct (run_*), printed by format_analysis() as a
// human report, CSV (one row per scheme / k / candidate) or versioned JSON
// ("schema": "gcu.simulate.<analysis>/1", analyses_format.cpp).
#pragma once

#include "model/iteration.h"
#include "model/profile.h"
#include "convergence/tta.h"
#include "simulate/whatif.h"

#include <optional>
#include <string>
#include <vector>

namespace gcu::simulate {

struct AnalysisBase {
  model::Setup setup;        // scheme field ignored; nodes/gpus_per_node/batch/model/mode used
  model::Conditions cond;
  std::string profile_label;
};

// The setup an analysis ran under, resolved against the profile (for headers and JSON).
struct AnalysisContext {
  std::string analysis;      // "crossover", "ratio", "trade", "recommend"
  std::string profile_label;
  std::string model_name;
  int64_t parameters = 0;
  int nodes = 0, gpus_per_node = 0, batch_size = 0;
  model::Gbps inter_bandwidth_gbps = 0, intra_bandwidth_gbps = 0;
  double compute_speedup = 1;
  std::string iteration_model;  // "event" | "closed-form"
  std::string mode;             // as requested
  std::string convergence_source;  // "assumed" | "pilot" | "calibrated" (model::convergence_source)
  std::vector<std::string> assumptions;
};

struct CrossoverRow {
  std::string scheme;
  std::optional<model::Gbps> crossover_gbps;
  bool scheme_wins_below = false;  // meaningful when crossover_gbps is set
  std::string note;
};
struct CrossoverResult {
  AnalysisContext context;
  std::string baseline;
  model::Gbps lo_gbps = 0, hi_gbps = 0;
  model::Metric metric = model::Metric::Tta;
  std::vector<CrossoverRow> rows;
};

struct RatioRow {
  std::string scheme;
  model::Seconds iteration_s = 0;  // the scheme as it is
  model::Seconds linear_s = 0;     // no communication at all
  model::Seconds target_s = 0;     // (1 + within) * linear_s
  std::optional<double> ratio;     // absent = unreachable
  std::string note;
};
struct RatioResult {
  AnalysisContext context;
  double within = 0;
  std::vector<RatioRow> rows;
};

struct TradeResult {
  AnalysisContext context;
  std::string scheme;
  double l = 1;
  std::vector<model::TradeRow> rows;
};

struct RecommendRow {
  int rank = 0;  // 1-based among evaluated candidates; 0 = skipped
  model::Recommendation rec;
  std::optional<double> vs_fp16;  // T_fp16 / T_scheme (when fp16 was a candidate)
};
struct RecommendResult {
  AnalysisContext context;
  model::Metric metric = model::Metric::Tta;
  size_t top = 0;                  // rows shown in the report (0 = all); JSON/CSV list all
  std::vector<RecommendRow> rows;  // ranked first, then skipped
  std::string best;                // empty when nothing could be evaluated
  std::string overlap_note;        // set when the best two TTA intervals overlap (pilot intervals)
  std::string confirm_note;        // set when the best's pilot had fewer seeds than the baseline's
};

CrossoverResult run_crossover(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                              const std::string& baseline, double lo_gbps, double hi_gbps, model::Metric metric);
RatioResult run_ratio(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                      double within);
TradeResult run_trade(const model::Profile& p, const AnalysisBase& a, const std::string& scheme,
                      const std::vector<double>& ks, double l);
// candidates empty = model::default_candidates().
RecommendResult run_recommend(const model::Profile& p, const AnalysisBase& a, std::vector<std::string> candidates,
                              model::Metric metric, size_t top);

enum class OutputFormat { Table, Csv, Json };
OutputFormat parse_output_format(const std::string& s);  // "table", "csv", "json"; throws SimulateError

// Human reports (analyses.cpp).
std::string crossover_text(const CrossoverResult& r);
std::string ratio_text(const RatioResult& r);
std::string trade_text(const TradeResult& r);
std::string recommend_text(const RecommendResult& r);

// CSV and JSON (analyses_format.cpp). Schemas "gcu.simulate.crossover/1", ...ratio/1,
// ...trade/1, ...recommend/1; docs/model.md §5.1 lists their fields.
std::string analysis_schema(const std::string& analysis);
std::string crossover_csv(const CrossoverResult& r);
std::string crossover_json(const CrossoverResult& r);
std::string ratio_csv(const RatioResult& r);
std::string ratio_json(const RatioResult& r);
std::string trade_csv(const TradeResult& r);
std::string trade_json(const TradeResult& r);
std::string recommend_csv(const RecommendResult& r);
std::string recommend_json(const RecommendResult& r);

std::string format_analysis(const CrossoverResult& r, OutputFormat f);
std::string format_analysis(const RatioResult& r, OutputFormat f);
std::string format_analysis(const TradeResult& r, OutputFormat f);
std::string format_analysis(const RecommendResult& r, OutputFormat f);

}  // namespace gcu::simulate
