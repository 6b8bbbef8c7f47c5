// `gcu simulate --model SPEC --gpu NAME ...`: a described model on a described system, end
// to end as a user runs it: every output says how its compute was obtained and that it
// ranks by iteration time; bad names list the known ones; the old meaning of --model
// points to --engine; rates take units.
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace {
namespace fs = std::filesystem;
using gcu::cli_test::gcu;
using gcu::cli_test::Result;
using gcu::cli_test::slurp;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bool any_line_contains(const nlohmann::json& lines, const std::string& part) {
  for (const auto& l : lines)
    if (contains(l.get<std::string>(), part)) return true;
  return false;
}

TEST(DescribedCli, GptOnH100sAsJson) {
  const Result r = gcu("simulate --model gpt2 --gpu h100-sxm --gpus 16 --nic ib-ndr --format json 2>&1");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["setup"]["gpus"], 16);
  EXPECT_EQ(j["setup"]["gpus_per_node"], 8);
  EXPECT_DOUBLE_EQ(j["setup"]["inter_bandwidth_gbps"].get<double>(), 400);
  EXPECT_EQ(j["profile"]["parameters"], 124439808);
  ASSERT_EQ(j["rows"].size(), 4u);  // none, fp16, powersgd:rank=4, topk:k=0.01
  for (const auto& row : j["rows"]) {
    EXPECT_GT(row["iteration_s"].get<double>(), 0);
    EXPECT_TRUE(row["tta"].is_null()) << "a described model has no convergence of its own";
  }
  EXPECT_TRUE(any_line_contains(j["notes"], "roofline estimate on h100-sxm"));
  EXPECT_EQ(j["convergence"]["source"], "none");
  EXPECT_TRUE(any_line_contains(j["assumptions"], "codec costs: estimated from each scheme's CUDA kernel work"));
}

TEST(DescribedCli, StepTimeReplacesTheRooflineLevel) {
  const Result a = gcu("simulate --model resnet50 --gpu a100-80gb --gpus 8 --schemes none --format json 2>&1");
  const Result b = gcu(
      "simulate --model resnet50 --gpu a100-80gb --gpus 8 --schemes none --step-time 500ms --format json 2>&1");
  ASSERT_EQ(a.rc, 0) << a.out;
  ASSERT_EQ(b.rc, 0) << b.out;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  const auto& bd = jb["rows"][0]["breakdown_s"];
  // One GPU node: the whole step is compute plus what the intra-node all-reduce exposes.
  EXPECT_NEAR(bd["forward"].get<double>() + bd["backward"].get<double>() + bd["optimizer"].get<double>(), 0.5, 1e-9);
  EXPECT_NE(ja["rows"][0]["iteration_s"], jb["rows"][0]["iteration_s"]);
  EXPECT_TRUE(any_line_contains(jb["notes"], "--step-time 500 ms"));
  EXPECT_FALSE(any_line_contains(jb["notes"], "no TTA for"));  // none was asked of a model without convergence
}

TEST(DescribedCli, RecommendAndCrossoverRankByIterationTime) {
  const Result r = gcu("simulate recommend --model bert-base --gpu a100-80gb --gpus 32 --bandwidth 25Gbps --top 3");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "convergence: none")) << r.out;
  EXPECT_TRUE(contains(r.out, "ranked by predicted iteration time (no convergence figures)")) << r.out;
  const Result c = gcu("simulate crossover --model llama-7b --gpu h100-sxm --nodes 16 --nic ib-ndr "
                       "--schemes powersgd:rank=4 --baseline fp16 --range 1Gbps:3.2Tbit/s --format json");
  ASSERT_EQ(c.rc, 0) << c.out;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["setup"]["gpus"], 128);
  // LLaMA-7B's model states do not fit an 80 GB GPU under plain DDP: said, not hidden.
  EXPECT_TRUE(any_line_contains(j["assumptions"], "plain DDP cannot train it"));
}

TEST(DescribedCli, WritesAProfileThatLoads) {
  const fs::path f = fs::temp_directory_path() / ("gcu_described_" + std::to_string(::getpid()) + ".json");
  const Result w = gcu("simulate --model resnet:depth=18 --gpu l40s --gpus 4 --schemes none --write-profile " +
                       f.string() + " --format csv");
  ASSERT_EQ(w.rc, 0) << w.out;
  const Result r = gcu("simulate -p " + f.string() + " --schemes none,fp16 --format json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["profile"]["parameters"], 11689512);
  fs::remove(f);
}

// The shipped V100 ResNet-50 profile moved to H100s: compute moved layer by layer, the
// profile's convergence kept (TTA is the same model's), the H100 system's links.
TEST(DescribedCli, MovedProfileKeepsItsConvergence) {
  const Result a = gcu("simulate -p data/profiles/v100-resnet50.json --schemes none,fp16 --format json");
  const Result b = gcu("simulate -p data/profiles/v100-resnet50.json --gpu h100-sxm --gpus 64 --nic eth-100g "
                       "--schemes none,fp16 --format json");
  ASSERT_EQ(a.rc, 0) << a.out;
  ASSERT_EQ(b.rc, 0) << b.out;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  const double bwd_v100 = ja["rows"][0]["breakdown_s"]["backward"].get<double>();
  const double bwd_h100 = jb["rows"][0]["breakdown_s"]["backward"].get<double>();
  EXPECT_GT(bwd_v100 / bwd_h100, 3.0);
  EXPECT_LT(bwd_v100 / bwd_h100, 4.3);
  EXPECT_EQ(jb["setup"]["gpus_per_node"], 8);
  EXPECT_DOUBLE_EQ(jb["setup"]["inter_bandwidth_gbps"].get<double>(), 100);
  EXPECT_EQ(jb["convergence"]["source"], "assumed");  // the profile's own, kept
  EXPECT_FALSE(jb["rows"][0]["tta"].is_null());
  EXPECT_TRUE(any_line_contains(jb["notes"], "moved to h100-sxm layer by layer"));
  EXPECT_TRUE(any_line_contains(jb["assumptions"], "measured on v100-sxm2 (its provenance.device)"));
  // TF32 on the H100 is faster still than FP32.
  const Result c = gcu("simulate -p data/profiles/v100-resnet50.json --gpu h100-sxm --gpus 64 --nic eth-100g "
                       "--schemes none --precision tf32 --format json");
  ASSERT_EQ(c.rc, 0) << c.out;
  EXPECT_LT(nlohmann::json::parse(c.out)["rows"][0]["breakdown_s"]["backward"].get<double>(), bwd_h100);
}

// Parts: the shipped V100 study's model and system parts give the shipped profile's
// prediction; a model part on an H100 system (written from the catalog's flags) moves its
// compute to the H100.
TEST(DescribedCli, PartsCombine) {
  const Result whole = gcu("simulate -p data/profiles/v100-bert-base.json --format csv");
  const Result parts = gcu("simulate -p data/parts/models/v100-bert-base.json --system "
                           "data/parts/systems/p3.8xlarge-v100.json --format csv");
  ASSERT_EQ(whole.rc, 0) << whole.out;
  EXPECT_EQ(parts.out, whole.out);
  const fs::path sys = fs::temp_directory_path() / ("gcu_h100_system_" + std::to_string(::getpid()) + ".json");
  ASSERT_EQ(gcu("simulate --model resnet50 --gpu h100-sxm --gpus 16 --nic ib-ndr --schemes none --write-profile " +
                sys.string() + " --format csv")
                .rc,
            0);
  const Result moved = gcu("simulate -p data/parts/models/v100-resnet50.json --system " + sys.string() +
                           " --schemes none,fp16 --format json");
  ASSERT_EQ(moved.rc, 0) << moved.out;
  const auto j = nlohmann::json::parse(moved.out);
  EXPECT_EQ(j["setup"]["gpus"], 16);
  EXPECT_TRUE(any_line_contains(j["notes"], "moved to the system's h100-sxm layer by layer"));
  EXPECT_FALSE(j["rows"][0]["tta"].is_null());  // the model part's convergence
  fs::remove(sys);
}

TEST(DescribedCli, BadInputNamesTheProblem) {
  struct Case {
    const char* args;
    const char* says;
  };
  const Case cases[] = {
      {"simulate --model closed -p data/profiles/v100-resnet50.json", "--engine closed"},
      {"simulate --model gpt2", "needs --gpu"},
      {"simulate --model gpt2 --gpu h300", "h100-sxm"},
      {"simulate --model gpt2 --gpu h100-sxm --nodes 2 --nic eth-1t", "eth-100g"},
      {"simulate --model transformer:layers=2,hidden=770,heads=12,vocab=100,seq=8 --gpu h100-sxm", "heads"},
      {"simulate --model transformer:layers=0,hidden=64,heads=2,vocab=100,seq=8 --gpu h100-sxm", "layers"},
      {"simulate --model gpt3 --gpu h100-sxm", "gpt2"},
      {"simulate --model gpt2 --gpu h100-sxm --gpus 12", "whole number of nodes"},
      {"simulate --model gpt2 --gpu h100-sxm --nodes 2", "--nic"},
      {"simulate --model gpt2 --gpu v100-sxm2 --precision bf16", "no bf16"},
      {"simulate --model gpt2 --gpu h100-sxm --step-time fast", "duration"},
      {"simulate -p data/profiles/v100-resnet50.json --nic eth-100g", "needs --gpu"},
      {"simulate -p data/profiles/v100-resnet50.json --model gpt2 --gpu h100-sxm", "describe the profile's own network"},
      {"simulate -p data/profiles/cpu-2rank-cnn.json --gpu h100-sxm", "--from-gpu"},
      {"simulate -p data/profiles/v100-resnet50.json --gpu h100-sxm --step-time 1s", "--step-time applies"},
      {"simulate -p data/profiles/v100-resnet50.json --bandwidth 25Xbps", "bandwidth '25Xbps'"},
      {"simulate", "-p PROFILE"},
      {"simulate -p data/parts/models/v100-resnet50.json", "a model part needs a system"},
      {"simulate -p data/parts/systems/p3.8xlarge-v100.json", "a system part needs a model"},
      {"simulate --system data/parts/systems/p3.8xlarge-v100.json", "-p MODEL"},
      {"simulate -p data/parts/systems/p3.8xlarge-v100.json --system data/parts/systems/p3.8xlarge-v100.json",
       "(model part): /schema"},
  };
  for (const Case& c : cases) {
    const Result r = gcu(std::string(c.args) + " 2>&1");
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, c.says)) << c.args << "\n" << r.out;
  }
}

TEST(DescribedCli, RatesTakeUnits) {
  const Result a = gcu("simulate -p data/profiles/v100-resnet50.json --schemes none --bandwidth 25 --format json");
  const Result b =
      gcu("simulate -p data/profiles/v100-resnet50.json --schemes none --bandwidth 3.125GB/s --format json");
  ASSERT_EQ(a.rc, 0) << a.out;
  ASSERT_EQ(b.rc, 0) << b.out;
  EXPECT_EQ(nlohmann::json::parse(a.out)["rows"], nlohmann::json::parse(b.out)["rows"]);
}

}  // namespace
