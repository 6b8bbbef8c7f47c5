// The profiles shipped in data/profiles: valid, the real architectures' parameter counts
// (data/README.md), canonical scheme keys, cost fits and convergence figures for every default
// candidate scheme, predictions that behave (more bandwidth is never slower) and a stated
// global-batch law for TTA (fewer iterations but never fewer samples when scaling out).
#include "compressors/registry.h"
#include "simulate/whatif.h"
#include "simulate/profile_file.h"
#include "simulate/run.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::simulate {
namespace {

struct Shipped {
  const char* file;
  int64_t parameters;
};

class ShippedProfile : public ::testing::TestWithParam<Shipped> {
 protected:
  LoadedProfile load() const { return load_profile_file(std::string(GCU_SOURCE_DIR) + "/data/profiles/" + GetParam().file); }
};

TEST_P(ShippedProfile, RealArchitecture) {
  const auto l = load();
  EXPECT_EQ(l.profile.model.parameters, GetParam().parameters);
  EXPECT_EQ(l.profile.model.numel(), GetParam().parameters);
  EXPECT_GT(l.profile.model.tensors.size(), 100u);
  EXPECT_FALSE(l.profile.provenance.assumptions.empty());
  for (const auto& c : l.profile.model.compute) EXPECT_EQ(c.ready_s.size(), l.profile.model.tensors.size());
}

TEST_P(ShippedProfile, KeysAreCanonicalSpecs) {
  const auto l = load();
  for (const auto& [k, fit] : l.profile.compressors) EXPECT_EQ(compress::make_compressor(k)->spec(), k);
  for (const auto& [k, f] : l.profile.convergence.schemes) EXPECT_EQ(compress::make_compressor(k)->spec(), k);
}

TEST_P(ShippedProfile, EveryDefaultCandidateIsCosted) {
  const auto l = load();
  for (const auto& s : model::default_candidates()) {
    const std::string c = compress::make_compressor(s)->spec();
    if (c != "none") EXPECT_TRUE(l.profile.compressors.count(c)) << "no cost fit for " << c;
    if (c != "none" && c != "fp16" && c != "bf16")
      EXPECT_TRUE(l.profile.convergence.schemes.count(c)) << "no convergence figures for " << c;
  }
}

TEST_P(ShippedProfile, MoreBandwidthIsNeverSlower) {
  const auto l = load();
  RunRequest r;
  r.schemes = {"none", "fp16", "powersgd:rank=4", "topk:k=0.01"};
  r.sweep = parse_sweep("bandwidth_gbps=1:40:8");
  for (auto m : {model::IterationModel::Event, model::IterationModel::ClosedForm}) {
    r.base.model = m;
    const auto t = run_simulation(l.profile, r);
    ASSERT_EQ(t.rows.size(), 8 * 4u);
    for (size_t i = 4; i < t.rows.size(); ++i) {
      EXPECT_TRUE(std::isfinite(t.rows[i].iteration.total_s));
      EXPECT_LE(t.rows[i].iteration.total_s, t.rows[i - 4].iteration.total_s * (1 + 1e-9)) << t.rows[i].scheme;
    }
  }
}

TEST_P(ShippedProfile, GlobalBatchLawIsStatedAndConsistent) {
  const auto l = load();
  const auto& p = l.profile;
  // The reference batch is the profile's own setup, written out; B_crit is given and not
  // below it, and the assumption behind it is in the provenance.
  EXPECT_DOUBLE_EQ(p.convergence.baseline_global_batch,
                   double(p.cluster.world()) * p.model.compute.front().batch_size);
  ASSERT_TRUE(p.convergence.critical_batch_size.has_value());
  EXPECT_GE(*p.convergence.critical_batch_size, p.convergence.baseline_global_batch);
  bool stated = false;
  for (const auto& a : p.provenance.assumptions) stated = stated || a.find("critical global batch") != std::string::npos;
  EXPECT_TRUE(stated);
  // Scaling out never needs more iterations, and never fewer samples.
  RunRequest r;
  r.schemes = {"none"};
  r.sweep = parse_sweep("gpus=32,64,128");
  const auto t = run_simulation(p, r);
  ASSERT_EQ(t.rows.size(), 3u);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_LT(*t.rows[i].tta->iterations, *t.rows[i - 1].tta->iterations);
    EXPECT_GT(*t.rows[i].tta->iterations * t.rows[i].x, *t.rows[i - 1].tta->iterations * t.rows[i - 1].x);
  }
}

INSTANTIATE_TEST_SUITE_P(Data, ShippedProfile,
                         ::testing::Values(Shipped{"v100-resnet50.json", 25'557'032},
                                           Shipped{"v100-resnet101.json", 44'549'160},
                                           Shipped{"v100-bert-base.json", 109'483'778}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace gcu::simulate
