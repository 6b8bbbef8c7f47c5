// validate/compute_probe.h: the probes' median compute replacing the calibration's, their
// state files read strictly, and the probe's calibrate command.
#include "validate/compute_probe.h"

#include "calibrate/state.h"
#include "validate/validate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gcu::validate {

namespace {

model::Profile two_batch_profile() {
  model::Profile p;
  p.model.name = "cnn";
  model::ComputeEntry a;
  a.batch_size = 32;
  a.forward_s = 0.010;
  a.backward_s = 0.020;
  a.optimizer_s = 0.002;
  a.ready_s = {0.005, 0.010, 0.020};
  model::ComputeEntry b = a;
  b.batch_size = 64;
  b.forward_s = 0.030;
  p.model.compute = {a, b};
  return p;
}

ComputeProbe probe(int round, double forward_s, double backward_s, double optimizer_s, bool ok = true) {
  ComputeProbe p;
  p.round = round;
  p.ok = ok;
  p.entries = {{32, forward_s, backward_s, optimizer_s}};
  return p;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gcu_probe_test_" + name)).string();
}

}  // namespace

TEST(ComputeProbe, MedianOfTheProbesReplacesTheCalibrationsCompute) {
  ComputeProbes cp;
  // Three ok probes (the median is the middle one: 12, 24, 3 ms) and a failed one whose
  // figures must not count.
  cp.probes = {probe(0, 0.012, 0.030, 0.004), probe(1, 0.011, 0.024, 0.003), probe(2, 0.013, 0.022, 0.002),
               probe(3, 1.0, 1.0, 1.0, /*ok=*/false)};
  const model::Profile p = with_probed_compute(two_batch_profile(), cp);
  ASSERT_TRUE(cp.used);
  const auto& e = p.model.compute[0];
  EXPECT_DOUBLE_EQ(e.forward_s, 0.012);
  EXPECT_DOUBLE_EQ(e.backward_s, 0.024);
  EXPECT_DOUBLE_EQ(e.optimizer_s, 0.003);
  // The ready times scale with the backward (x1.2), their order kept.
  ASSERT_EQ(e.ready_s.size(), 3u);
  EXPECT_NEAR(e.ready_s[0], 0.006, 1e-12);
  EXPECT_NEAR(e.ready_s[2], 0.024, 1e-12);
  ASSERT_EQ(cp.batches.size(), 2u);
  const ProbedCompute& b = cp.batches[0];
  EXPECT_EQ(b.probes, 3);
  EXPECT_NEAR(b.forward_ratio, 1.2, 1e-12);
  EXPECT_NEAR(b.backward_ratio, 1.2, 1e-12);
  EXPECT_NEAR(b.optimizer_ratio, 1.5, 1e-12);
  EXPECT_NEAR(b.compute_ratio, (0.012 + 0.024 + 0.003) / 0.032, 1e-12);
  EXPECT_NEAR(b.backward_spread, (0.030 - 0.022) / 0.024, 1e-12);
  EXPECT_DOUBLE_EQ(b.calibrated.forward_s, 0.010);
  // Batch 64 was not probed: the calibration's compute, and the comparison says so.
  EXPECT_DOUBLE_EQ(p.model.compute[1].forward_s, 0.030);
  EXPECT_EQ(cp.batches[1].probes, 0);
  EXPECT_DOUBLE_EQ(cp.batches[1].compute_ratio, 1.0);
  EXPECT_NE(cp.note.find("3 of 4 probes"), std::string::npos) << cp.note;
}

TEST(ComputeProbe, EvenProbeCountTakesTheMiddlePairsMean) {
  ComputeProbes cp;
  cp.probes = {probe(0, 0.010, 0.020, 0.002), probe(1, 0.014, 0.028, 0.002)};
  const model::Profile p = with_probed_compute(two_batch_profile(), cp);
  EXPECT_DOUBLE_EQ(p.model.compute[0].forward_s, 0.012);
  EXPECT_DOUBLE_EQ(p.model.compute[0].backward_s, 0.024);
}

TEST(ComputeProbe, NoUsableProbeKeepsTheProfile) {
  ComputeProbes none;
  model::Profile p = with_probed_compute(two_batch_profile(), none);
  EXPECT_FALSE(none.used);
  EXPECT_DOUBLE_EQ(p.model.compute[0].backward_s, 0.020);
  EXPECT_NE(none.note.find("no probes"), std::string::npos);
  ComputeProbes failed;
  failed.probes = {probe(0, 0.5, 0.5, 0.5, false)};
  p = with_probed_compute(two_batch_profile(), failed);
  EXPECT_FALSE(failed.used);
  EXPECT_DOUBLE_EQ(p.model.compute[0].forward_s, 0.010);
  EXPECT_NE(failed.note.find("0 of 1 probes ok"), std::string::npos) << failed.note;
}

TEST(ComputeProbe, ReadsAStateFileStrictly) {
  calibrate::CalibrationState st;
  st.meta.model_spec = "cnn";
  calibrate::ComputeState c;
  c.model = "cnn";
  calibrate::ComputeEntryState e;
  e.batch_size = 32;
  e.forward_s = 0.011;
  e.backward_s = 0.021;
  e.optimizer_s = 0.0021;
  c.entries = {e};
  st.compute = c;
  const std::string good = temp_path("good.json");
  calibrate::write_state_file(good, st);
  ComputeProbe p;
  p.state_path = good;
  read_probe_state(p);
  ASSERT_TRUE(p.ok) << p.message;
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_DOUBLE_EQ(p.entries[0].backward_s, 0.021);

  // A non-positive backward is refused, naming the file and the batch.
  st.compute->entries[0].backward_s = 0;
  const std::string bad = temp_path("bad.json");
  calibrate::write_state_file(bad, st);
  p.state_path = bad;
  read_probe_state(p);
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(p.entries.empty());
  EXPECT_NE(p.message.find(bad), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("batch 32"), std::string::npos) << p.message;

  // No compute step, and a missing file.
  st.compute.reset();
  calibrate::write_state_file(bad, st);
  read_probe_state(p);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.message.find("no compute step"), std::string::npos) << p.message;
  p.state_path = temp_path("missing.json");
  std::remove(p.state_path.c_str());
  read_probe_state(p);
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(p.message.empty());
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

TEST(ComputeProbe, CommandTimesComputeAloneWithTheCalibrationsArguments) {
  ValidateOptions o;
  o.gcu = "gcu";
  o.grid.model = "resnet18:classes=10,image=32";
  o.grid.batches = {16, 32};
  o.threads = 1;
  o.data = "fashion-mnist";
  o.calibrate_args = {"--compute-loop", "barrier"};
  const std::vector<std::string> a = probe_args(o, "out/probes/round0.json");
  const auto after = [&](const std::string& flag) {
    const auto it = std::find(a.begin(), a.end(), flag);
    return it == a.end() || it + 1 == a.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(a[1], "calibrate");
  EXPECT_EQ(after("--model"), o.grid.model);
  EXPECT_EQ(after("--batch-sizes"), "16,32");
  EXPECT_EQ(after("--compute-data"), "fashion-mnist");
  EXPECT_EQ(after("-o"), "out/probes/round0.json");
  EXPECT_EQ(after("--compute-loop"), "barrier");
  const std::string skip = after("--skip");
  for (const char* step : {"gamma", "collectives", "codecs", "errors", "codec-gradients", "contention", "convergence"})
    EXPECT_NE(skip.find(step), std::string::npos) << step;
  EXPECT_EQ(skip.find("compute"), std::string::npos) << "the probe must not skip compute";
  EXPECT_EQ(std::find(a.begin(), a.end(), "--backend"), a.end());
  o.device = "cuda";
  const auto c = probe_args(o, "x.json");
  EXPECT_NE(std::find(c.begin(), c.end(), "nccl"), c.end());
}

}  // namespace gcu::validate
