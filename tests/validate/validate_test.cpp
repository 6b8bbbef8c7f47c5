// Tests of validate/validate.h's command builders: what a cell's `gcu train` and
// --calibrate's `gcu calibrate` are asked, on the CPU and with --device cuda.
#include "validate/validate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gcu::validate {
namespace {

// True when `args` holds `flag` immediately followed by `value`.
bool has_pair(const std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag && args[i + 1] == value) return true;
  return false;
}
bool has(const std::vector<std::string>& args, const std::string& flag) {
  return std::find(args.begin(), args.end(), flag) != args.end();
}

Cell cell(int ranks) {
  GridSpec g;
  g.schemes = {"fp16"};
  g.modes = {"after"};
  g.ranks = {ranks};
  return expand_grid(g).front();
}

TEST(ValidateCommands, CpuCellsTrainWithGlooAndCalibrateWithIt) {
  ValidateOptions o;
  o.gcu = "gcu";
  o.profile = "p.json";
  const Cell c = cell(2);
  const auto t = train_command(o, c, "log.jsonl");
  EXPECT_FALSE(has(t, "--device"));
  EXPECT_TRUE(has(t, "--log-all-ranks"));  // 2 ranks: every rank's log (the slowest rank's components)
  EXPECT_TRUE(has_pair(t, "--scheme", c.scheme));
  const auto a = calibrate_args(o, {c});
  EXPECT_FALSE(has(a, "--backend"));
  EXPECT_TRUE(has_pair(a, "--schemes", c.scheme));
  EXPECT_TRUE(has_pair(a, "-o", "p.json"));
}

// --device cuda: the ranks train on their GPUs and the calibration uses NCCL, so a GPU
// grid is predicted from a GPU profile (the H100 run needed --train-arg for the first
// and could not get the second).
TEST(ValidateCommands, CudaCellsTrainOnTheGpuAndCalibrateWithNccl) {
  ValidateOptions o;
  o.gcu = "gcu";
  o.profile = "p.json";
  o.device = "cuda";
  o.train_args = {"--lr", "0.05"};
  const Cell c = cell(1);
  const auto t = train_command(o, c, "log.jsonl");
  EXPECT_TRUE(has_pair(t, "--device", "cuda"));
  EXPECT_FALSE(has(t, "--log-all-ranks"));  // one rank: its own log
  EXPECT_TRUE(has_pair(t, "--lr", "0.05"));  // extra arguments last, after --device
  EXPECT_TRUE(has_pair(calibrate_args(o, {c}), "--backend", "nccl"));
}

}  // namespace
}  // namespace gcu::validate
