// simulate/analyses_format: CSV and versioned JSON of the what-if analyses. Structure, not
// golden numbers: schema names, one row per scheme / k / candidate, nulls where a result
// is absent, CSV quoting of specs that hold commas, numbers that match the result structs.
#include "simulate/analyses.h"

#include "model/profile_json.h"
#include "test_profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace gcu::simulate {
namespace {

using nlohmann::json;

using test::tiny_profile;
const AnalysisBase kBase{{}, {}, "tiny.json"};

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void common_fields(const json& j, const std::string& analysis) {
  EXPECT_EQ(j["schema"], "gcu.simulate." + analysis + "/1");
  EXPECT_EQ(j["analysis"], analysis);
  EXPECT_EQ(j["profile"]["file"], "tiny.json");
  EXPECT_EQ(j["profile"]["model"], "tiny");
  EXPECT_EQ(j["setup"]["gpus"], 4);  // 2 nodes x 2
  EXPECT_EQ(j["setup"]["global_batch"], 128.0);
  EXPECT_TRUE(j["rows"].is_array());
  EXPECT_TRUE(j["assumptions"].is_array());
}

TEST(AnalysesFormat, CrossoverJsonAndCsv) {
  const auto r = run_crossover(tiny_profile(), kBase, {"topk:k=0.1", "fp16"}, "none", 0.1, 100, model::Metric::Tta);
  const json j = json::parse(crossover_json(r));
  common_fields(j, "crossover");
  EXPECT_EQ(j["parameters"]["metric"], "tta");
  EXPECT_EQ(j["parameters"]["range_gbps"], json({0.1, 100.0}));
  ASSERT_EQ(j["rows"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& row = j["rows"][i];
    EXPECT_EQ(row["scheme"], r.rows[i].scheme);
    if (r.rows[i].crossover_gbps) {
      EXPECT_DOUBLE_EQ(row["crossover_gbps"].get<double>(), *r.rows[i].crossover_gbps);
      EXPECT_TRUE(row["scheme_wins"] == "below" || row["scheme_wins"] == "above");
    } else {
      EXPECT_TRUE(row["crossover_gbps"].is_null());
      EXPECT_TRUE(row["scheme_wins"].is_null());
    }
  }
  EXPECT_FALSE(j["assumptions"].empty());  // TTA metric: the global-batch law is stated
  const auto l = lines(crossover_csv(r));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "scheme,baseline,metric,lo_gbps,hi_gbps,crossover_gbps,scheme_wins,note");
  EXPECT_EQ(l[1].rfind("topk:k=0.1,none,tta,0.1,100,", 0), 0u) << l[1];
}

TEST(AnalysesFormat, RatioJsonAndCsv) {
  const auto r = run_ratio(tiny_profile(), kBase, {"none", "fp16"}, 0.1);
  const json j = json::parse(ratio_json(r));
  common_fields(j, "ratio");
  EXPECT_DOUBLE_EQ(j["parameters"]["within"].get<double>(), 0.1);
  ASSERT_EQ(j["rows"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& row = j["rows"][i];
    EXPECT_NEAR(row["target_s"].get<double>(), 1.1 * row["linear_s"].get<double>(), 1e-15);
    EXPECT_EQ(row["reachable"].get<bool>(), !row["ratio_needed"].is_null());
    EXPECT_DOUBLE_EQ(row["iteration_s"].get<double>(), r.rows[i].iteration_s);
  }
  const auto l = lines(ratio_csv(r));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "scheme,within,iteration_s,linear_s,target_s,ratio_needed,note");
}

TEST(AnalysesFormat, TradeJsonAndCsv) {
  const auto r = run_trade(tiny_profile(), kBase, "topk:k=0.1", {1, 2, 4}, 0.5);
  const json j = json::parse(trade_json(r));
  common_fields(j, "trade");
  EXPECT_EQ(j["parameters"]["scheme"], "topk:k=0.1");
  EXPECT_EQ(j["parameters"]["k"], json({1.0, 2.0, 4.0}));
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["rows"][2]["bytes_factor"].get<double>(), 2.0);  // l * k
  EXPECT_NEAR(j["rows"][1]["encode_s"].get<double>(), j["rows"][0]["encode_s"].get<double>() / 2, 1e-15);
  const auto l = lines(trade_csv(r));
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0], "scheme,l,k,bytes_factor,iteration_s,encode_s,decode_s,comm_s,exposed_s,wire_bytes");
  EXPECT_EQ(l[3].rfind("topk:k=0.1,0.5,4,2,", 0), 0u) << l[3];
}

TEST(AnalysesFormat, RecommendJsonAndCsvListSkippedWithReason) {
  const auto r = run_recommend(tiny_profile(), kBase, {"none", "fp16", "topk:k=0.1", "signsgd"}, model::Metric::Tta, 1);
  const json j = json::parse(recommend_json(r));
  common_fields(j, "recommend");
  ASSERT_EQ(j["rows"].size(), 4u);  // all candidates, whatever --top says
  EXPECT_EQ(j["best"], j["rows"][0]["scheme"]);
  EXPECT_EQ(j["rows"][0]["rank"], 1);
  int skipped = 0;
  for (const auto& row : j["rows"]) {
    if (row["rank"].is_null()) {
      ++skipped;
      EXPECT_TRUE(row["skipped"].is_string());
    } else {
      EXPECT_TRUE(row["skipped"].is_null());
      EXPECT_TRUE(row["tta"].is_object());
      EXPECT_TRUE(row["tta"].contains("batch_factor"));
    }
  }
  EXPECT_EQ(skipped, 1);  // signsgd: no cost fit in the tiny profile
  const auto l = lines(recommend_csv(r));
  ASSERT_EQ(l.size(), 5u);
  EXPECT_EQ(l[0], "rank,scheme,iteration_s,speedup_vs_fp16,tta_status,iterations,tta_s,tta_lo_s,tta_hi_s,tta_basis,skipped");
  EXPECT_EQ(l[4].rfind(",signsgd,", 0), 0u) << l[4];  // unranked, last
}

TEST(AnalysesFormat, CsvQuotesSpecsWithCommas) {
  auto j = test::tiny_profile_json();
  j["compressors"]["topkc:k=0.1,chunk=4"] = j["compressors"]["topk:k=0.1"];
  const auto p = model::profile_from_json(j);
  const auto r = run_ratio(p, kBase, {"topkc:k=0.1,chunk=4"}, 0.1);
  const auto l = lines(ratio_csv(r));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1].rfind("\"topkc:k=0.1,chunk=4\",0.1,", 0), 0u) << l[1];
}

TEST(AnalysesFormat, FormatDispatchAndParse) {
  const auto r = run_trade(tiny_profile(), kBase, "topk:k=0.1", {1}, 1);
  EXPECT_EQ(format_analysis(r, OutputFormat::Csv), trade_csv(r));
  EXPECT_EQ(format_analysis(r, OutputFormat::Json), trade_json(r));
  EXPECT_EQ(format_analysis(r, OutputFormat::Table), trade_text(r));
  EXPECT_EQ(parse_output_format("json"), OutputFormat::Json);
  EXPECT_THROW(parse_output_format("xml"), std::exception);
}

}  // namespace
}  // namespace gcu::simulate
