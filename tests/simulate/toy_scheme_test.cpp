// Adding a scheme needs no edit in model/, simulate/ or calibrate/ (docs/adding-a-scheme.md):
// a toy scheme registered at run time, with a cost fit and convergence figures added to
// the test profile, is costed by the model (exact wire bytes, after-backward chain),
// swept by `gcu simulate`, ranked by `recommend` from its declared grid, and listed in
// calibrate's default grids. Its own binary: the registration must not leak into the
// tests that walk the whole registry.
#include "test_profile.h"

#include "compressors/registry.h"
#include "model/iteration.h"
#include "model/profile_json.h"
#include "simulate/whatif.h"
#include "simulate/analyses.h"
#include "simulate/run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gcu {
namespace {
using namespace gcu::compress;

// "toyq8": one f32 scale (max |x|) and one int8 code per element, round(x / scale * 127),
// all-gathered; decode: sum over ranks of code * scale / 127, divided by p. Biased
// (deterministic rounding), stateless.
class ToyQ8 final : public Compressor {
 public:
  std::string spec() const override { return "toyq8"; }
  SchemeTraits traits() const override { return {.biased = true}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int) const override {
    const int64_t n = layout.numel();
    if (n == 0) return {};
    return {{CollectiveKind::AllGather, WireType::F32, 1, "scale"},
            {CollectiveKind::AllGather, WireType::I8, n, "codes"}};
  }
  void step(GradBucket b, Communicator& comm) override {
    const int64_t n = b.numel();
    if (n == 0) return;
    const int p = comm.world_size();
    float scale = 0;
    std::vector<int8_t> codes(static_cast<size_t>(n));
    encode(b.data, n, &scale, codes.data());
    std::vector<float> scales(static_cast<size_t>(p));
    std::vector<int8_t> all(static_cast<size_t>(n) * p);
    comm.all_gather(&scale, scales.data(), 1, WireType::F32);
    comm.all_gather(codes.data(), all.data(), n, WireType::I8);
    std::fill(b.data, b.data + n, 0.0f);
    for (int r = 0; r < p; ++r)
      for (int64_t i = 0; i < n; ++i) b.data[i] += all[size_t(r * n + i)] * scales[size_t(r)] / 127.0f / float(p);
  }
  void roundtrip(int64_t, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    float scale = 0;
    std::vector<int8_t> codes(static_cast<size_t>(n));
    encode(in, n, &scale, codes.data());
    for (int64_t i = 0; i < n; ++i) out[i] = codes[size_t(i)] * scale / 127.0f;
  }

 private:
  static void encode(const float* x, int64_t n, float* scale, int8_t* codes) {
    float m = 0;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
    *scale = m;
    for (int64_t i = 0; i < n; ++i) codes[i] = int8_t(m > 0 ? std::lround(x[i] / m * 127.0f) : 0);
  }
};

// The one registration line a new scheme adds (here at run time instead of register_all).
void register_toy() {
  static const bool once = [] {
    Registry::instance().add({.name = "toyq8",
                              .params = "",
                              .summary = "toy: int8 codes of x / max|x|; all-gather of scale + codes",
                              .cpu = [](const SchemeArgs&) { return std::make_unique<ToyQ8>(); },
                              .facts = {.recommend_grid = {"toyq8"}, .convergence_specs = {"toyq8"}}});
    return true;
  }();
  (void)once;
}

// The test profile plus what calibrate would measure for the toy: a cost fit and figures.
model::Profile toy_profile() {
  model::Json j = test::tiny_profile_json();
  j["compressors"]["toyq8"] = {{"encode", {{"fixed_s", 2e-4}, {"per_element_s", 1e-7}}},
                               {"decode", {{"fixed_s", 1e-4}, {"per_element_s", 1e-8}, {"per_rank_element_s", 0}}}};
  j["convergence"]["schemes"]["toyq8"] = {{"relative_error", 0.1}};
  return model::profile_from_json(j);
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ToyScheme, RegistryListsItInEveryDefaultGrid) {
  register_toy();
  const Registry& r = Registry::instance();
  EXPECT_FALSE(r.facts("toyq8").lossless);
  EXPECT_TRUE(contains(model::default_candidates(), "toyq8"));  // recommend's grid
  EXPECT_TRUE(contains(r.convergence_specs(), "toyq8"));        // calibrate's pilot runs
  bool listed = false;                                           // calibrate times every listed scheme
  for (const auto& s : r.list()) listed = listed || s.name == "toyq8";
  EXPECT_TRUE(listed);
  EXPECT_EQ(r.baseline(Baseline::FP32).name, "none");  // the baselines are unchanged
}

TEST(ToyScheme, ModelCostsItAfterBackwardWithExactWireBytes) {
  register_toy();
  const model::Profile p = toy_profile();
  model::Setup s;
  s.scheme = "toyq8";
  EXPECT_EQ(model::Predictor(p, s).mode(), model::CompressionMode::Overlapped);  // auto: as gcu train runs it
  s.mode = model::CompressionMode::AfterBackward;
  const model::Predictor pred(p, s);
  // 160 floats in one bucket (first bucket 1 MiB): 4 bytes of scale + 160 codes per rank.
  ASSERT_EQ(pred.plan().buckets.size(), 1u);
  EXPECT_EQ(pred.plan().wire_bytes, 4.0 + 160.0);
  EXPECT_FALSE(pred.plan().allreduce_only);
  EXPECT_EQ(pred.mode(), model::CompressionMode::AfterBackward);
  const model::IterationResult r = pred.predict();
  EXPECT_DOUBLE_EQ(r.encode_s, 2e-4 + 1e-7 * 160);
  EXPECT_DOUBLE_EQ(r.decode_s, 1e-4 + 1e-8 * 160);
  // After backward, one chain: nothing hides the codec or the collectives.
  EXPECT_NEAR(r.total_s, r.data_s + r.forward_s + r.backward_s + r.encode_s + r.comm_s + r.decode_s + r.optimizer_s,
              1e-12);
  EXPECT_GT(r.comm_s, 0);
}

TEST(ToyScheme, SimulateSweepsItAgainstTheBaselines) {
  register_toy();
  const model::Profile p = toy_profile();
  simulate::RunRequest req;
  req.schemes = {"toyq8"};
  const simulate::ResultTable t = simulate::run_simulation(p, req);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].scheme, "toyq8");
  ASSERT_TRUE(t.rows[0].vs_fp32.has_value());  // FP32 DDP ran beside it, hidden
  ASSERT_TRUE(t.rows[0].vs_fp16.has_value());
  EXPECT_GT(*t.rows[0].vs_fp32, 0);
  ASSERT_TRUE(t.rows[0].tta.has_value());
  EXPECT_EQ(t.rows[0].tta->status, model::TtaStatus::Reaches);
}

TEST(ToyScheme, RecommendRanksItFromItsDeclaredGrid) {
  register_toy();
  const model::Profile p = toy_profile();
  const simulate::RecommendResult r = simulate::run_recommend(p, {}, {}, model::Metric::Tta, 0);
  const simulate::RecommendRow* toy = nullptr;
  for (const auto& row : r.rows)
    if (row.rec.scheme == "toyq8") toy = &row;
  ASSERT_NE(toy, nullptr);
  EXPECT_TRUE(toy->rec.skipped.empty()) << toy->rec.skipped;
  EXPECT_GT(toy->rank, 0);
  ASSERT_TRUE(toy->rec.tta && toy->rec.tta->tta_s);
  EXPECT_GT(*toy->rec.tta->tta_s, 0);
}

}  // namespace
}  // namespace gcu
