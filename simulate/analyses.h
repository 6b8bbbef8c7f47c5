// What-if analyses of `gcu simulate` beyond the sweep table, as printable reports over
// model/whatif.h:
//  - crossover: the inter-node bandwidth where a scheme starts (or stops) beating a baseline;
//  - ratio: the compression ratio a scheme needs to come within X% of linear scaling;
//  - trade: encode/decode k times faster at the price of l*k times more bytes;
//  - recommend: candidates ranked by predicted TTA (or iteration time).
#pragma once

#include "model/iteration.h"
#include "model/profile.h"
#include "model/whatif.h"

#include <string>
#include <vector>

namespace gcu::simulate {

struct AnalysisBase {
  model::Setup setup;        // scheme field ignored; nodes/gpus_per_node/batch/model/mode used
  model::Conditions cond;
  std::string profile_label;
};

std::string crossover_report(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                             const std::string& baseline, double lo_gbps, double hi_gbps, model::Metric metric);

std::string ratio_report(const model::Profile& p, const AnalysisBase& a, const std::vector<std::string>& schemes,
                         double within);

std::string trade_report(const model::Profile& p, const AnalysisBase& a, const std::string& scheme,
                         const std::vector<double>& ks, double l);

// candidates empty = model::default_candidates(); top = rows printed (0 = all).
std::string recommend_report(const model::Profile& p, const AnalysisBase& a, std::vector<std::string> candidates,
                             model::Metric metric, size_t top);

}  // namespace gcu::simulate
