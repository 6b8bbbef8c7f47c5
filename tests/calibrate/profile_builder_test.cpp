// Tests of calibrate/profile_builder.h and collective_fit.h: a calibration state with
// known costs becomes a profile that validates, round trips through the profile reader
// (model/profile_json.h, what `gcu simulate` reads) unchanged, and whose predictions
// reproduce the measured collective times. The state's JSON form: state_test.cpp.
#include "calibrate/profile_builder.h"

#include "model/collectives.h"
#include "model/iteration.h"
#include "model/profile_json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::calibrate {
namespace {

using compress::CollectiveKind;

// Synthetic sweep of a collective with T = A + B n (n per-rank bytes), 2 ranks.
CollectiveSweep synthetic_sweep(CollectiveKind k, int p, double A, double B) {
  CollectiveSweep s;
  s.kind = k;
  s.world = p;
  for (int64_t bytes = 64; bytes <= (64 << 20); bytes *= 4) {
    SweepRow r;
    r.bytes = bytes;
    r.count = bytes / 4;
    const double n = k == CollectiveKind::AllGather ? double(bytes) / p : double(bytes);
    r.time_s.median = r.time_s.mean = r.time_s.mean_w95 = r.time_s.p10 = r.time_s.p90 = r.time_s.min = r.time_s.max = A + B * n;
    r.time_s.n = 5;
    s.rows.push_back(r);
  }
  return s;
}

CalibrationState synthetic_state() {
  CalibrationState st;
  st.meta.world = 2;
  st.meta.local_world = 2;
  st.skipped = {"convergence: --skip"};
  ComputeEntryState e;
  e.batch_size = 8;
  e.forward_s = 0.001;
  e.backward_s = 0.002;
  e.optimizer_s = 0.0001;
  e.ready_s = {0.0005, 0.0019};
  st.compute = ComputeState{"tiny", 30, {{"fc.bias", {10}}, {"fc.weight", {10, 2}}}, {e}};
  st.gamma = GammaState{1.08, 0.002, 0.00216, 0, 0, 1, 120};
  st.contention = ContentionState{"none", 0.97, 1, 1, 0, 0};
  CollectivesState cs;
  cs.world = 2;
  cs.sweeps = {synthetic_sweep(CollectiveKind::AllReduce, 2, 100e-6, 1e-9),
               synthetic_sweep(CollectiveKind::AllGather, 2, 60e-6, 0.8e-9)};
  CollectiveSweep rs;
  rs.kind = CollectiveKind::ReduceScatter;
  rs.world = 2;
  rs.supported = false;
  rs.note = "gloo does not support reduce_scatter";
  cs.sweeps.push_back(rs);
  st.collectives = cs;
  CodecState none;
  none.fit.encode.fixed_s = 1e-6;
  none.fit.decode.fixed_s = 1e-6;
  none.fit.measured_n = 1024;
  st.codecs = BySpec<CodecState>{{"none", none}};
  st.errors = BySpec<ErrorState>{{"none", ErrorState{}}};
  return st;
}

TEST(CollectiveFit, RingConversionReproducesTheMeasuredLine) {
  for (int p : {2, 4, 8})
    for (auto k : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                   CollectiveKind::Broadcast}) {
      auto s = synthetic_sweep(k, p, 80e-6, 2e-9);
      fit_sweep(s);
      ASSERT_EQ(s.fit.segments.size(), 1u);
      EXPECT_LT(s.quality.max_rel, 1e-6);
      const auto ranges = to_size_range_fits(s);
      const double n = 8 << 20;
      const model::AlphaBeta ab{ranges[0].alpha_s, ranges[0].beta_s_per_byte};
      const double t = model::flat_collective_s(k, model::Algorithm::Ring, p, n, ab);
      EXPECT_NEAR(t / (80e-6 + 2e-9 * n), 1.0, 1e-6) << compress::collective_name(k) << " p=" << p;
    }
}

TEST(ProfileBuilder, RoundTripsThroughTheProfileReader) {
  const BuildInfo info{"CPU: test", "2026-01-01T00:00:00Z", "gcu calibrate -o x.json", {{"libtorch", "1.13.1"}}};
  const BuiltProfile b = build_profile(synthetic_state(), info);
  ASSERT_NO_THROW(model::validate_profile(b.profile));
  const std::string text = model::profile_to_json(b.profile).dump(2);
  const model::Profile back = model::profile_from_string(text);
  EXPECT_EQ(model::profile_to_json(back).dump(2), text);
  EXPECT_EQ(back.provenance.source, "gcu calibrate");
  EXPECT_EQ(back.provenance.command, "gcu calibrate -o x.json");
  EXPECT_DOUBLE_EQ(back.cluster.gamma, 1.08);  // no all-reduce duration in the state: the stretch
  EXPECT_DOUBLE_EQ(back.cluster.overlap_contention, 1.0);  // 0.97 measured: clamped
  EXPECT_EQ(back.cluster.world(), 2);
  ASSERT_EQ(back.cluster.intra.collectives.count("allreduce"), 1u);
  EXPECT_EQ(back.cluster.intra.collectives.count("reducescatter"), 0u);
  // Link bandwidth from the all-reduce beta: B = 2(p-1)/p b = b for p = 2, b = 1 ns/B.
  EXPECT_NEAR(back.cluster.intra.bandwidth_gbps, 8.0, 1e-6);
  // Assumptions say what was skipped and what was not measured.
  bool skip_noted = false, rs_noted = false;
  for (const auto& a : back.provenance.assumptions) {
    if (a.find("convergence: --skip") != std::string::npos) skip_noted = true;
    if (a.find("reduce-scatter not measured") != std::string::npos || a.find("reduce_scatter") != std::string::npos)
      rs_noted = true;
  }
  EXPECT_TRUE(skip_noted);
  EXPECT_TRUE(rs_noted);
  EXPECT_NE(b.report.find("busbw"), std::string::npos);
}

// The measured ready times go into the profile only when asked (BuildInfo): by default
// the model spreads backward by parameter count, and the state keeps the measured ones.
TEST(ProfileBuilder, MeasuredReadyTimesOnlyWhenAsked) {
  BuildInfo info{"CPU: test", "2026-01-01T00:00:00Z", "gcu calibrate -o x.json", {}};
  const CalibrationState st = synthetic_state();
  ASSERT_FALSE(st.compute->entries[0].ready_s.empty());
  const BuiltProfile spread = build_profile(st, info);
  EXPECT_TRUE(spread.profile.model.compute[0].ready_s.empty());
  bool noted = false;
  for (const auto& a : spread.profile.provenance.assumptions) noted |= a.find("ready_s left out") != std::string::npos;
  EXPECT_TRUE(noted);
  info.measured_ready_times = true;
  EXPECT_EQ(build_profile(st, info).profile.model.compute[0].ready_s, st.compute->entries[0].ready_s);
}

TEST(ProfileBuilder, ConvergenceKeepsTheGlobalBatchOfItsRuns) {
  CalibrationState st = synthetic_state();
  st.skipped.clear();
  ConvergenceState c;
  c.target = "held-out loss 0.5";
  c.baseline_iterations = 120;
  c.global_batch = 64;
  c.schemes = {{"topk:k=0.01", {true, 180.0}}, {"signsgd", {false, std::nullopt}}};
  c.constants = {{"biased_scale", 0.5}};
  c.validation.validated = 2;
  c.validation.median_abs_rel_error = 0.125;
  c.validation.max_abs_rel_error = 0.2;
  st.convergence = c;
  const model::Profile back =
      model::profile_from_string(model::profile_to_json(build_profile(st, {}).profile).dump());
  EXPECT_DOUBLE_EQ(back.convergence.baseline_iterations, 120.0);
  EXPECT_DOUBLE_EQ(back.convergence.baseline_global_batch, 64.0);
  EXPECT_DOUBLE_EQ(back.convergence.constants.biased_scale, 0.5);
  // The held-out validation summary reaches the profile's assumptions.
  bool validation_noted = false;
  for (const auto& a : back.provenance.assumptions)
    if (a.find("held-out") != std::string::npos && a.find("median |error|") != std::string::npos &&
        a.find("12.5%") != std::string::npos)
      validation_noted = true;
  EXPECT_TRUE(validation_noted);
  ASSERT_TRUE(back.convergence.schemes.at("topk:k=0.01").iterations.has_value());
  EXPECT_DOUBLE_EQ(*back.convergence.schemes.at("topk:k=0.01").iterations, 180.0);
  EXPECT_EQ(back.convergence.schemes.at("signsgd").reaches_target, false);
  st.convergence->constants = {{"ef_scael", 1.0}};
  EXPECT_THROW(build_profile(st, {}), FitError);
}

TEST(ProfileBuilder, ModelPredictsTheMeasuredAllReduce) {
  const BuiltProfile b = build_profile(synthetic_state(), {});
  const model::Profile prof = model::profile_from_string(model::profile_to_json(b.profile).dump());
  model::ClusterCost cost(prof.cluster);
  const double n = 16 << 20;
  const auto c = cost.cost(CollectiveKind::AllReduce, n);
  EXPECT_NEAR(c.time_s / (100e-6 + 1e-9 * n), 1.0, 1e-3);
  // And a whole-iteration prediction runs on the calibrated profile.
  model::Predictor pred(prof, model::Setup{});
  const auto r = pred.predict();
  EXPECT_GT(r.total_s, 0.0031);  // forward + backward + optimizer at least
  EXPECT_EQ(r.world, 2);
}

// On Gloo the trainer's communicator widens bf16/i16 all-reduces: the profile says so and
// a bf16 bucket then costs what a float32 one does (same link bytes); on NCCL it does not.
TEST(ProfileBuilder, GlooWidenedAllReducesAreCostedByTheirLinkBytes) {
  CalibrationState st = synthetic_state();
  const BuiltProfile gloo = build_profile(st, {});
  EXPECT_EQ(gloo.profile.cluster.allreduce_element_bytes.at("bf16"), 4);
  EXPECT_EQ(gloo.profile.cluster.allreduce_element_bytes.at("i16"), 4);
  EXPECT_EQ(gloo.profile.cluster.allreduce_element_bytes.count("f16"), 0u);
  model::Profile prof = gloo.profile;
  prof.compressors["bf16"] = {{0, 0}, {0, 0, 0}, 0};  // no codec time: links alone
  model::Setup s;
  s.model = model::IterationModel::Event;
  s.mode = model::CompressionMode::AfterBackward;
  const auto comm = [&](const std::string& scheme) {
    s.scheme = scheme;
    return model::Predictor(prof, s).predict().comm_s;
  };
  EXPECT_NEAR(comm("bf16"), comm("none"), 1e-12);
  prof.cluster.allreduce_element_bytes.clear();
  EXPECT_LT(comm("bf16"), comm("none"));  // half the bytes (this model is latency-bound)
  st.meta.backend = "nccl";
  EXPECT_TRUE(build_profile(st, {}).profile.cluster.allreduce_element_bytes.empty());
}

TEST(ProfileBuilder, NeedsTheComputeStep) {
  CalibrationState st = synthetic_state();
  st.compute.reset();
  EXPECT_THROW(build_profile(st, {}), FitError);
}

}  // namespace
}  // namespace gcu::calibrate

namespace gcu::calibrate {
namespace {

// Bimodal timings (an oversubscribed machine): the median of every other size carries a
// 3 ms scheduler quantum, the p10 is the clean line. Fitting the p10 recovers the line.
TEST(ProfileBuilder, FitStatisticP10IgnoresDescheduledCalls) {
  auto s = synthetic_sweep(CollectiveKind::AllReduce, 2, 100e-6, 1e-9);
  for (size_t i = 0; i < s.rows.size(); ++i)
    if (i % 2) s.rows[i].time_s.median += 3e-3;
  auto m = s;
  fit_sweep(m, {}, "median");
  fit_sweep(s, {}, "p10");
  EXPECT_LT(s.quality.max_rel, 1e-6);
  EXPECT_GT(m.quality.max_rel, 0.1);
  EXPECT_THROW(fit_sweep(s, {}, "mode"), FitError);
}

// The codec-gradients step's factors scale the codec's fit in the profile, and the profile
// says so; without the step the fit is the sweep's and the profile says that.
TEST(ProfileBuilder, CodecFitsScaledByTheirCostOnTheModelsGradients) {
  const BuildInfo info{"CPU: test", "2026-01-01T00:00:00Z", "gcu calibrate -o x.json", {}};
  CalibrationState st = synthetic_state();
  const auto has_note = [](const model::Profile& p, const std::string& text) {
    for (const auto& a : p.provenance.assumptions)
      if (a.find(text) != std::string::npos) return true;
    return false;
  };
  const BuiltProfile plain = build_profile(st, info);
  EXPECT_DOUBLE_EQ(plain.profile.compressors.at("none").encode.fixed_s, 1e-6);
  EXPECT_TRUE(has_note(plain.profile, "not timed on the model's gradients"));
  CodecGradientState g;
  g.encode_factor = 3;
  st.codec_gradients = BySpec<CodecGradientState>{{"none", g}};
  const BuiltProfile scaled = build_profile(st, info);
  EXPECT_DOUBLE_EQ(scaled.profile.compressors.at("none").encode.fixed_s, 3e-6);
  EXPECT_DOUBLE_EQ(scaled.profile.compressors.at("none").decode.fixed_s, 1e-6);
  EXPECT_TRUE(has_note(scaled.profile, "1 fit(s) scaled"));
  EXPECT_NE(scaled.report.find("on the model's gradients"), std::string::npos);
  ASSERT_NO_THROW(model::validate_profile(scaled.profile));
}

}  // namespace
}  // namespace gcu::calibrate

namespace gcu::calibrate {
namespace {
bool noted(const model::Profile& p, const std::string& what) {
  for (const auto& a : p.provenance.assumptions)
    if (a.find(what) != std::string::npos) return true;
  return false;
}

// The gamma step's two ends fitted jointly through the Predictor (model/interference.h):
// the profile's factors reproduce the step, its stretch is the closed form's gamma, and
// the fit and its residuals are kept in the profile and said in the report.
TEST(ProfileBuilder, InterferenceFittedThroughTheModelOnTheGammaStep) {
  const BuildInfo info{"CPU: test", "2026-01-01T00:00:00Z", "gcu calibrate -o x.json", {}};
  CalibrationState st = synthetic_state();  // all-reduce 100 us + 1 ns per byte
  st.gamma = GammaState{1.25, 0.010, 0.0125, 0, 0, 1, 4e6, 6.1e-3, 4.3e-3, {4e6}};
  const BuiltProfile b = build_profile(st, info);
  const model::Cluster& c = b.profile.cluster;
  EXPECT_DOUBLE_EQ(c.gamma_stretch, 1.25);
  ASSERT_TRUE(c.interference_fit.has_value());
  EXPECT_EQ(c.interference_fit->step, "gamma");
  // The factors make the model's step end when the measured one did.
  model::BesideStep step;
  step.backward_alone_s = 0.010;
  step.bucket_bytes = {4e6};
  model::BesideCosting costing;
  costing.nodes = c.world();
  costing.gpus_per_node = 1;
  const model::BesideTimes t = model::beside_times(b.profile, step, costing, c.gamma, c.comm_contention);
  EXPECT_NEAR(t.backward_end_s, 0.0125, 1e-6);
  EXPECT_NEAR(t.comm_end_s, 6.1e-3, 1e-6);
  EXPECT_NEAR(c.interference_fit->backward_beside_model_s, 0.0125, 1e-6);
  EXPECT_GT(c.comm_contention, 1);
  EXPECT_GT(c.gamma, 1.25);  // the delay falls inside the 6.1 ms the all-reduces ran
  EXPECT_TRUE(noted(b.profile, "fitted jointly through the event model"));
  EXPECT_NE(b.report.find("4.3 ms measured alone"), std::string::npos) << b.report;
  // Written and read back: the fit survives.
  const model::Profile back = model::profile_from_json(model::profile_to_json(b.profile));
  ASSERT_TRUE(back.cluster.interference_fit.has_value());
  EXPECT_DOUBLE_EQ(back.cluster.comm_contention, c.comm_contention);
  EXPECT_DOUBLE_EQ(back.cluster.gamma, c.gamma);
  EXPECT_FALSE(back.cluster.gamma_from_stretch);
}

TEST(ProfileBuilder, InterferenceMisfitsAndOlderStatesAreSaid) {
  const BuildInfo info{"CPU: test", "2026-01-01T00:00:00Z", "gcu calibrate -o x.json", {}};
  CalibrationState st = synthetic_state();
  st.gamma = GammaState{1.25, 0.010, 0.0125, 0, 0, 1, 4e6, 6.1e-3, 4.3e-3, {4e6}};
  st.gamma->comm_s = 0;  // an older state: how long the all-reduces ran is not known
  const BuiltProfile old = build_profile(st, info);
  EXPECT_DOUBLE_EQ(old.profile.cluster.gamma, 1.25);
  EXPECT_EQ(old.profile.cluster.comm_contention, 1.0);
  EXPECT_FALSE(old.profile.cluster.interference_fit.has_value());
  EXPECT_TRUE(noted(old.profile, "the whole-backward stretch"));
  st.gamma->comm_s = 6.1e-3;  // sizes not kept: the model's buckets are planned again
  st.gamma->bucket_bytes.clear();
  EXPECT_TRUE(noted(build_profile(st, info).profile, "re-planned"));
  // All-reduces faster beside the backward than the fits cost them alone: 1, and the misfit said.
  st.gamma->bucket_bytes = {4e6};
  st.gamma->comm_s = 2.1e-3;
  const BuiltProfile fast = build_profile(st, info);
  EXPECT_EQ(fast.profile.cluster.comm_contention, 1.0);
  EXPECT_TRUE(noted(fast.profile, "ran faster beside the backward")) << fast.report;
  // More delay than the all-reduces' time: the rate runs to its end, said with the residual.
  st.gamma->comm_s = 4.2e-3;
  st.gamma->overlapped_s = 0.030;
  const BuiltProfile slow = build_profile(st, info);
  EXPECT_EQ(slow.profile.cluster.gamma, model::kGammaMax);
  EXPECT_TRUE(slow.profile.cluster.interference_fit->gamma_at_bound);
  EXPECT_TRUE(noted(slow.profile, "backward_by_collective ran to its end"));
}
}  // namespace
}  // namespace gcu::calibrate
