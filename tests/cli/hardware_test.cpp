// `gcu hardware` (cli/hardware.cpp): lists the shipped catalog as tables with units, JSON
// that parses back into the catalog's fields, one entry by name or alias with its sources;
// an unknown name is a usage error (exit code 2) naming the known entries.
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {
using gcu::cli_test::Result;
using gcu::cli_test::gcu;

bool has(const std::string& out, const std::string& part) { return out.find(part) != std::string::npos; }

TEST(HardwareCli, ListsTheCatalogWithUnits) {
  const Result r = gcu("hardware");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"h100-sxm", "nvlink4", "ib-ndr", "TFLOP/s", "GB/s", "GiB", "Gbit/s", "latency us"})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
  const Result nics = gcu("hardware nics");
  ASSERT_EQ(nics.rc, 0) << nics.out;
  EXPECT_TRUE(has(nics.out, "eth-100g"));
  EXPECT_FALSE(has(nics.out, "h100-sxm"));
}

TEST(HardwareCli, JsonAndCsvForScripts) {
  const Result r = gcu("hardware --format json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "gcu.hardware/1");
  bool found = false;
  for (const auto& g : j["gpus"]) found = found || (g["name"] == "h100-sxm" && g["bf16_flops"] == 989.5e12);
  EXPECT_TRUE(found) << r.out;
  EXPECT_FALSE(j["intra_links"].empty());
  EXPECT_FALSE(j["nics"].empty());
  const auto links = nlohmann::json::parse(gcu("hardware --kind links --format json").out);
  EXPECT_FALSE(links.contains("gpus"));
  const Result csv = gcu("hardware gpus --format csv");
  ASSERT_EQ(csv.rc, 0) << csv.out;
  EXPECT_EQ(csv.out.rfind("name,vendor_name,fp32_flops,", 0), 0u) << csv.out;
}

TEST(HardwareCli, OneEntryByNameOrAliasWithSources) {
  const Result r = gcu("hardware H100");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(has(r.out, "h100-sxm: NVIDIA H100")) << r.out;
  EXPECT_TRUE(has(r.out, "sources:")) << r.out;
  EXPECT_TRUE(has(r.out, "https://")) << r.out;
  const auto j = nlohmann::json::parse(gcu("hardware --show ib-ndr --format json").out);
  EXPECT_EQ(j["kind"], "nic");
  EXPECT_EQ(j["bandwidth_gbps"], 400);
}

TEST(HardwareCli, UnknownNameIsAUsageErrorNamingTheKnownOnes) {
  const Result r = gcu("hardware h300");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(has(r.out, "h300")) << r.out;
  EXPECT_TRUE(has(r.out, "h100-sxm")) << r.out;
  EXPECT_TRUE(has(r.out, "did you mean 'h200'?")) << r.out;
  for (const char* args : {"hardware --kind gpus --show nvlink4", "hardware --format xml", "hardware --catalog /nonexistent",
                           "hardware gpus --kind nics"}) {
    const Result bad = gcu(args);
    EXPECT_EQ(bad.rc, 2) << args << ": " << bad.out;
    EXPECT_FALSE(bad.out.empty()) << args;
  }
}

}  // namespace
