// `gcu schemes` (cli/schemes.cpp): ResNet-50's tensors by default, so that PowerSGD shows
// a real ratio; a profile's tensors with -p; one flat bucket with -n; JSON with --format;
// conflicting or bad inputs are usage errors (exit code 2).
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {
using gcu::cli_test::Result;
using gcu::cli_test::gcu;

double ratio_of(const nlohmann::json& j, const std::string& prefix) {
  for (const auto& s : j["schemes"])
    if (s["spec"].get<std::string>().rfind(prefix, 0) == 0) return s["ratio"].get<double>();
  return -1;
}

TEST(SchemesCli, DefaultIsResnet50sTensorsSoPowerSgdCompresses) {
  const Result r = gcu("schemes --format json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["numel"], 25557032);
  EXPECT_EQ(j["world_size"], 8);
  EXPECT_GT(ratio_of(j, "powersgd:rank=4"), 20.0);  // matrices, not one 1-D tensor
  const Result t = gcu("schemes");
  EXPECT_NE(t.out.find("ResNet-50's 161 tensors"), std::string::npos) << t.out;
}

TEST(SchemesCli, FlatBucketProfileAndWorld) {
  const auto flat = nlohmann::json::parse(gcu("schemes -n 1000000 --world 4 --format json").out);
  EXPECT_EQ(flat["numel"], 1000000);
  EXPECT_EQ(flat["world_size"], 4);
  EXPECT_DOUBLE_EQ(ratio_of(flat, "powersgd:rank=4"), 1.0);  // a 1-D tensor goes uncompressed
  const Result p = gcu("schemes -p data/profiles/v100-bert-base.json --spec fp16 --format json");
  ASSERT_EQ(p.rc, 0) << p.out;
  EXPECT_EQ(nlohmann::json::parse(p.out)["numel"], 109483778);
}

TEST(SchemesCli, BadInputIsAUsageError) {
  for (const char* args : {"schemes -n 10 --layout 4x4", "schemes --world 0", "schemes --format xml",
                           "schemes -p /nonexistent/profile.json", "schemes --layout 4xq"}) {
    const Result r = gcu(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.out;
    EXPECT_FALSE(r.out.empty()) << args;
  }
}

}  // namespace
