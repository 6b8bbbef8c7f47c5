// simulate/format: structure of the table, CSV and JSON outputs (not golden numbers).
#include "simulate/format.h"

#include "model/profile_json.h"
#include "test_profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace gcu::simulate {
namespace {

ResultTable table(const char* sweep) {
  RunRequest r;
  r.schemes = {"none", "fp16", "topk:k=0.1"};
  if (sweep) r.sweep = parse_sweep(sweep);
  return run_simulation(model::profile_from_json(test::tiny_profile_json()), r);
}

std::vector<std::string> format_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// CSV fields, honouring double quotes.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

TEST(Format, TableHasColumnsAndEveryScheme) {
  const std::string s = format_table(table(nullptr), "tiny.json");
  for (const char* h : {"scheme", "iter (ms)", "vs FP32", "vs FP16", "TTA", "model", "mode", "tiny.json"})
    EXPECT_NE(s.find(h), std::string::npos) << h << "\n" << s;
  for (const char* sch : {"none", "fp16", "topk:k=0.1"}) EXPECT_NE(s.find(sch), std::string::npos) << s;
  EXPECT_NE(s.find("event"), std::string::npos);
  EXPECT_NE(s.find("1.00x"), std::string::npos);  // a baseline against itself
}

TEST(Format, TableColumnsAreAligned) {
  const auto ls = format_lines(align_columns({{"a", "1"}, {"long name", "12345"}}));
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[0].size(), ls[1].size());
  EXPECT_EQ(ls[0], "a              1");
}

TEST(Format, CsvHeaderAndOneRowPerPointAndScheme) {
  const auto t = table("bandwidth_gbps=1:10:5");
  const auto ls = format_lines(format_csv(t));
  ASSERT_EQ(ls.size(), 1 + 5 * 3u);
  const auto header = fields(ls[0]);
  EXPECT_EQ(header, csv_header());
  for (size_t i = 1; i < ls.size(); ++i) {
    const auto f = fields(ls[i]);
    ASSERT_EQ(f.size(), header.size()) << ls[i];
    EXPECT_EQ(f[0], "bandwidth_gbps");
    EXPECT_GT(std::stod(f[8]), 0) << "iteration_s";
  }
}

TEST(Format, JsonIsVersionedAndComplete) {
  const auto t = table("gpus=2,4");
  const auto j = nlohmann::json::parse(format_json(t, "tiny.json"));
  EXPECT_EQ(j["schema"], kSimulateSchema);
  EXPECT_EQ(j["sweep"]["axis"], "gpus");
  EXPECT_EQ(j["schemes"].size(), 3u);
  ASSERT_EQ(j["rows"].size(), 6u);
  for (const auto& r : j["rows"]) {
    EXPECT_TRUE(r.contains("iteration_s"));
    EXPECT_TRUE(r.contains("speedup_vs_fp16"));
    EXPECT_TRUE(r["breakdown_s"].contains("exposed"));
    EXPECT_TRUE(r.contains("tta"));
  }
  const auto one = nlohmann::json::parse(format_json(table(nullptr), "tiny.json"));
  EXPECT_TRUE(one["sweep"].is_null());
}

TEST(Format, Helpers) {
  EXPECT_EQ(fmt_ms(0.2294), "229.4");
  EXPECT_EQ(fmt_ms(0.01234), "12.34");
  EXPECT_EQ(fmt_ratio(1.0), "1.00x");
  EXPECT_EQ(fmt_duration(7200), "2.00 h");
  EXPECT_EQ(fmt_duration(90), "1.5 min");
  EXPECT_EQ(fmt_number(0.1), "0.1");
}

}  // namespace
}  // namespace gcu::simulate

TEST(ShortLabel, KeepsTheFirstParameterAndWhatDiffersFromTheDefaults) {
  using gcu::simulate::short_label;
  EXPECT_EQ(short_label("powersgd:rank=4,warm_start=true,min_rate=2"), "powersgd:rank=4");
  EXPECT_EQ(short_label("powersgd:rank=4,warm_start=false,min_rate=2"), "powersgd:rank=4,warm_start=false");
  EXPECT_EQ(short_label("randomk:k=0.01,seed=0,unbiased=false"), "randomk:k=0.01");
  EXPECT_EQ(short_label("ef(topkc:k=0.01,chunk=256)"), "ef(topkc:k=0.01)");
  EXPECT_EQ(short_label("topk:k=0.01"), "topk:k=0.01");
  EXPECT_EQ(short_label("none"), "none");
  EXPECT_EQ(short_label("nosuchscheme:a=1,b=2"), "nosuchscheme:a=1,b=2");  // unknown: as given
}
