// `gcu profile from-trace` (cli/profile.cpp) end to end: a real trace python3-torch wrote
// here becomes a model part that `gcu simulate --system` reads; a report for scripts; and
// every bad input (truncated, not a trace, not a DDP job, no sizes, a TorchScript network,
// a network of another model) exits 2 naming the problem and writes nothing.
#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace {
using gcu::cli_test::gcu;
using gcu::cli_test::Result;
namespace tfs = std::filesystem;

bool trace_cli_has(const std::string& out, const std::string& part) { return out.find(part) != std::string::npos; }

const std::string kCliTraces = "tests/data/traces/";

struct TraceCliDir {
  tfs::path path;
  TraceCliDir() {
    path = tfs::temp_directory_path() / ("gcu-profile-cli-" + std::to_string(::getpid()));
    tfs::create_directories(path);
  }
  ~TraceCliDir() { tfs::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

void trace_cli_write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(ProfileCli, TraceBecomesAModelPartThatSimulateReads) {
  TraceCliDir d;
  const Result r = gcu("profile from-trace " + kCliTraces + "cpu-gloo-2rank-cnn.json --network tensors:" + kCliTraces +
                       "cpu-gloo-2rank-cnn.tensors.csv --batch 32 -o '" + (d / "cnn.json") + "' --report '" +
                       (d / "report.json") + "'");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"3 iterations traced, 3 used", "forward", "backward", "bucket", "PyTorch's defaults",
                        "12 tensors, 1295050 parameters"})
    EXPECT_TRUE(trace_cli_has(r.out, s)) << s << "\n" << r.out;
  const auto part = nlohmann::json::parse(gcu::cli_test::slurp(d / "cnn.json"));
  EXPECT_EQ(part["schema"], "gcu.model-part/1");
  EXPECT_EQ(part["model"]["compute"][0]["batch_size"], 32);
  const auto report = nlohmann::json::parse(gcu::cli_test::slurp(d / "report.json"));
  EXPECT_EQ(report["schema"], "gcu.trace-import/1");
  EXPECT_EQ(report["trace"]["iterations_used"], 3);
  EXPECT_EQ(report["buckets"].size(), 2u);
  // On a system part (here the shipped CPU profile stands in for one), every scheme is costed.
  const Result s = gcu("simulate -p '" + (d / "cnn.json") +
                       "' --system data/profiles/cpu-2rank-cnn.json --schemes none,fp16,powersgd:rank=4 --format json");
  ASSERT_EQ(s.rc, 0) << s.out;
  const auto sim = nlohmann::json::parse(s.out);
  ASSERT_EQ(sim["schemes"].size(), 3u) << s.out.substr(0, 400);
  EXPECT_EQ(sim["schemes"][2].get<std::string>().rfind("powersgd:rank=4", 0), 0u);
  // --json prints the report instead of the summary.
  const Result j = gcu("profile from-trace " + kCliTraces + "cpu-gloo-2rank-transformer.json --network tensors:" + kCliTraces +
                       "cpu-gloo-2rank-transformer.tensors.csv --batch 2 -o '" + (d / "tf.json") + "' --json");
  ASSERT_EQ(j.rc, 0) << j.out;
  EXPECT_EQ(nlohmann::json::parse(j.out)["buckets"][1]["tensors"], 10);
}

// Exit 2, the message naming `what`, and neither output written.
void expect_refused(const std::string& args, const std::string& what, const TraceCliDir& d) {
  const Result r = gcu("profile from-trace " + args + " -o '" + (d / "out.json") + "' --report '" + (d / "r.json") + "'");
  EXPECT_EQ(r.rc, 2) << args << "\n" << r.out;
  EXPECT_TRUE(trace_cli_has(r.out, what)) << what << "\n" << r.out;
  EXPECT_FALSE(tfs::exists(d / "out.json")) << args;
  EXPECT_FALSE(tfs::exists(d / "r.json")) << args;
}

TEST(ProfileCli, BadInputExitsTwoAndWritesNothing) {
  TraceCliDir d;
  const std::string good = gcu::cli_test::slurp(std::string(GCU_SOURCE_DIR) + "/" + kCliTraces + "cpu-gloo-2rank-cnn.json");
  trace_cli_write(d / "cut.json", good.substr(0, good.size() * 2 / 3));
  std::string no_ddp = good;
  for (size_t at = no_ddp.find("DistributedDataParallel.forward"); at != std::string::npos;
       at = no_ddp.find("DistributedDataParallel.forward", at))
    no_ddp.replace(at, 31, "Net.forward");
  trace_cli_write(d / "no-ddp.json", no_ddp);
  const std::string net = " --network tensors:" + kCliTraces + "cpu-gloo-2rank-cnn.tensors.csv --batch 32";
  expect_refused("'" + (d / "cut.json") + "'" + net, "truncated JSON at byte", d);
  expect_refused("data/profiles/v100-resnet50.json" + net, "not a Chrome trace", d);
  expect_refused("'" + (d / "no-ddp.json") + "'" + net, "not a DDP job", d);
  expect_refused("'" + (d / "missing.json") + "'" + net, "cannot read trace", d);
  expect_refused(kCliTraces + "cpu-gloo-2rank-cnn.json --batch 32", "--network", d);
  expect_refused(kCliTraces + "cpu-gloo-2rank-cnn.json --batch 32 --network resnet50", "12 gradients", d);
  expect_refused(kCliTraces + "cpu-gloo-2rank-cnn.json --batch 32 --network torchscript:model.pt", "cannot open 'model.pt'", d);
  const Result no_batch = gcu("profile from-trace " + kCliTraces + "cpu-gloo-2rank-cnn.json -o '" + (d / "x.json") + "'");
  EXPECT_EQ(no_batch.rc, 2) << no_batch.out;
  EXPECT_TRUE(trace_cli_has(no_batch.out, "--batch")) << no_batch.out;
}

}  // namespace
