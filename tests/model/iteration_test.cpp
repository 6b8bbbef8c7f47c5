// Iteration model (model/iteration.h): fixed numbers on tiny inputs, the event model
// against the published closed form under its assumptions, modes, monotonicity.
#include "model/iteration.h"

#include "fixtures.h"

#include "compressors/registry.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::model {
namespace {

using testing::tiny_profile;

// 4 tensors of 8e6 FP32 elements (32e6 B, each >= 25 MiB: one bucket each), one node of
// 4 GPUs, intra 100 Gbps (beta 8e-11), alpha 5e-6, ring only. Per bucket:
//   c = 2*3*5e-6 + 2*3/4 * 32e6 * 8e-11 = 3e-5 + 3.84e-3 = 3.87e-3.
// Backward 0.020 s, ready times spread by parameter count: buckets ready at 5, 10, 15, 20 ms.
constexpr double kC = 3.87e-3;
Profile four_buckets() { return tiny_profile(4, 8000000, 1, 4); }

model::Setup with(const std::string& scheme, IterationModel m, CompressionMode mode = CompressionMode::Auto) {
  model::Setup s;
  s.scheme = scheme;
  s.model = m;
  s.mode = mode;
  return s;
}

TEST(Iteration, ClosedFormFormula) {
  // max(1.07*0.1, 3*0.02) + 0.03 = 0.137; comm-bound: max(0.107, 9*0.02) + 0.03 = 0.21.
  EXPECT_NEAR(closed_form_s(0.1, 1.07, 4, 0.02, 0.03), 0.137, 1e-15);
  EXPECT_NEAR(closed_form_s(0.1, 1.07, 10, 0.02, 0.03), 0.21, 1e-15);
  EXPECT_DOUBLE_EQ(after_backward_s(0.1, 0.05), 0.15);
}

TEST(Iteration, ReadyFractionsProportionalToParameters) {
  Model m;
  m.tensors = {{"a", {1}}, {"b", {3}}, {"c", {4}}};
  auto f = tensor_ready_fractions(m, ComputeEntry{});
  EXPECT_EQ(f, (std::vector<double>{0.125, 0.5, 1.0}));
  ComputeEntry c{1, 0, 0.02, 0, 0, {0.005, 0.01, 0.02}};
  EXPECT_EQ(tensor_ready_fractions(m, c), (std::vector<double>{0.25, 0.5, 1.0}));
  c.ready_s.pop_back();
  EXPECT_THROW(tensor_ready_fractions(m, c), ModelError);
}

TEST(Iteration, FixedNumbersComputeBound) {
  // Each bucket's all-reduce (3.87 ms) finishes before the next is ready (5 ms apart):
  // only the last one is exposed. Total = forward 0.010 + (0.020 + c) + optimizer 0.002.
  const Profile p = four_buckets();
  for (auto m : {IterationModel::Event, IterationModel::ClosedForm}) {
    Predictor pred(p, with("none", m));
    ASSERT_EQ(pred.buckets().size(), 4u);
    auto r = pred.predict();
    EXPECT_EQ(r.model, m);
    EXPECT_EQ(r.mode, CompressionMode::Overlapped);
    EXPECT_NEAR(r.backward_comm_s, 0.020 + kC, 1e-12) << model_name(m);
    EXPECT_NEAR(r.total_s, 0.032 + kC, 1e-12);
    EXPECT_NEAR(r.comm_s, 4 * kC, 1e-12);
    EXPECT_NEAR(r.exposed_s, kC, 1e-12);
    EXPECT_DOUBLE_EQ(r.wire_bytes, 128e6);
    EXPECT_NEAR(pred.iteration_s(), r.total_s, 1e-15);
  }
}

TEST(Iteration, EventEqualsClosedFormWhenStreamNeverStarves) {
  // Comm-bound (intra at 10 Gbps: c = 3e-5 + 1.5*32e6*8e-10 = 0.03843) with gamma 1.07 and
  // the first three buckets ready at once: the stream is busy all through backward, so
  // backward is stretched by gamma throughout, exactly the closed form's assumptions:
  // max(1.07*0.02, 3c) + c = 4c = 0.15372.
  Profile p = four_buckets();
  p.cluster.gamma = p.cluster.gamma_stretch = 1.07;
  p.model.compute[0].ready_s = {0, 0, 0, 0.020};
  Conditions c;
  c.intra_bandwidth_gbps = 10;
  const double ev = Predictor(p, with("none", IterationModel::Event)).predict(c).backward_comm_s;
  const double cf = Predictor(p, with("none", IterationModel::ClosedForm)).predict(c).backward_comm_s;
  EXPECT_NEAR(cf, 4 * 0.03843, 1e-12);
  EXPECT_NEAR(ev, cf, 1e-12);
}

TEST(Iteration, EventAddsFirstReadyTimeWhenCommBound) {
  // Same, ready times spread uniformly: the stream cannot start before the first bucket
  // is ready (5 ms), which the closed form ignores: event = closed form + 5 ms.
  Profile p = four_buckets();
  p.cluster.gamma = p.cluster.gamma_stretch = 1.07;
  Conditions c;
  c.intra_bandwidth_gbps = 10;
  const double ev = Predictor(p, with("none", IterationModel::Event)).predict(c).backward_comm_s;
  const double cf = Predictor(p, with("none", IterationModel::ClosedForm)).predict(c).backward_comm_s;
  EXPECT_NEAR(ev, cf + 0.005, 1e-12);
}

TEST(Iteration, EventStretchesBackwardOnlyWhileCommunicating) {
  // Compute-bound with gamma 1.07: the closed form stretches all of backward; the event
  // model only the 3 x c of overlapped communication: T + 3c*(1 - 1/gamma)... bounded by
  // T + c (gamma 1) below and the closed form above.
  Profile p = four_buckets();
  p.cluster.gamma = p.cluster.gamma_stretch = 1.07;
  const double ev = Predictor(p, with("none", IterationModel::Event)).predict().backward_comm_s;
  const double cf = Predictor(p, with("none", IterationModel::ClosedForm)).predict().backward_comm_s;
  EXPECT_NEAR(cf, 1.07 * 0.020 + kC, 1e-12);
  EXPECT_GT(ev, 0.020 + kC);
  EXPECT_LT(ev, cf);
  // Backward work during the three overlapped collectives proceeds at 1/gamma: each costs
  // c*(1-1/gamma) of extra wall time.
  EXPECT_NEAR(ev, 0.020 + kC + 3 * kC * (1 - 1 / 1.07), 1e-12);
}

TEST(Iteration, TimelineIsConsistent) {
  Predictor pred(four_buckets(), with("none", IterationModel::Event));
  auto r = pred.predict({}, true);
  int comm = 0;
  double end = 0, prev_comm_end = 0;
  for (const auto& e : r.timeline) {
    EXPECT_GE(e.start_s, 0.0);
    EXPECT_GE(e.duration_s, 0.0);
    end = std::max(end, e.start_s + e.duration_s);
    if (e.lane == Lane::Comm) {
      ++comm;
      EXPECT_GE(e.start_s + 1e-15, prev_comm_end);  // one stream: no overlap
      prev_comm_end = e.start_s + e.duration_s;
      EXPECT_NE(e.name.find("all-reduce"), std::string::npos);
    }
  }
  EXPECT_EQ(comm, 4);
  EXPECT_NEAR(end, r.total_s, 1e-12);
  EXPECT_TRUE(pred.predict().timeline.empty());
}

using testing::scheme_registered;

TEST(Iteration, AfterBackwardAndOverlappedFp16) {
  if (!scheme_registered("fp16")) GTEST_SKIP() << "fp16 not registered yet";
  // fp16 fit: encode = decode = 1e-4 + 1e-10 n; n = 8e6: 9e-4 each. All-reduce of 16e6 B:
  // 3e-5 + 1.5*16e6*8e-11 = 1.95e-3. Chain = 9e-4 + 1.95e-3 + 9e-4 = 3.75e-3.
  Profile p = four_buckets();
  p.compressors["fp16"] = {{1e-4, 1e-10}, {1e-4, 1e-10, 0}, 0};
  auto after = Predictor(p, with("fp16", IterationModel::Event, CompressionMode::AfterBackward)).predict();
  EXPECT_EQ(after.mode, CompressionMode::AfterBackward);
  EXPECT_NEAR(after.backward_comm_s, 0.020 + 4 * 3.75e-3, 1e-12);
  EXPECT_NEAR(after.encode_s, 4 * 9e-4, 1e-12);
  // Auto = overlapped for fp16; with contention 1 each chain fits in the 5 ms gaps.
  auto over = Predictor(p, with("fp16", IterationModel::Event)).predict();
  EXPECT_EQ(over.mode, CompressionMode::Overlapped);
  EXPECT_NEAR(over.backward_comm_s, 0.020 + 3.75e-3, 1e-12);
  // Contention makes overlapped encode/decode (and backward) slower.
  p.cluster.overlap_contention = 2.0;
  auto slow = Predictor(p, with("fp16", IterationModel::Event)).predict();
  EXPECT_GT(slow.backward_comm_s, over.backward_comm_s + 1e-4);
}

// A low-precision all-reduce's CPU floor (profile.h CollectiveFloor): each call costs
// max(link time + per-element extra, floor). Above the link's time the floor sets the
// call; a slow enough link hides the floor but not the per-element extra.
TEST(Iteration, CollectiveFloorIsMaxOfLinkAndFloor) {
  if (!scheme_registered("fp16")) GTEST_SKIP() << "fp16 not registered yet";
  Profile p = four_buckets();
  p.compressors["fp16"] = {{1e-4, 1e-10}, {1e-4, 1e-10, 0}, 0};
  const auto plain = Predictor(p, with("fp16", IterationModel::Event, CompressionMode::AfterBackward)).predict();
  EXPECT_NEAR(plain.comm_s, 4 * 1.95e-3, 1e-12);  // the link alone (AfterBackwardAndOverlappedFp16)
  // Floor 5 ms per 8e6-element bucket: above the link's 1.95 ms.
  p.compressors["fp16"].allreduce_floor = CollectiveFloor{4, {8000000}, {5e-3}};
  const Predictor pred(p, with("fp16", IterationModel::Event, CompressionMode::AfterBackward));
  const auto fast = pred.predict();
  EXPECT_NEAR(fast.comm_s, 4 * 5e-3, 1e-12);
  EXPECT_NEAR(fast.total_s - plain.total_s, 4 * (5e-3 - 1.95e-3), 1e-12);
  EXPECT_NEAR(fast.decode_s, plain.decode_s, 1e-15);  // the codec is not charged for it
  // 10x slower link: 3e-5 + 1.5*16e6*8e-10 = 19.23 ms per call, above the floor.
  Conditions slow;
  slow.intra_bandwidth_gbps = 10;
  EXPECT_NEAR(pred.predict(slow).comm_s, 4 * (3e-5 + 1.5 * 16e6 * 8e-10), 1e-9);
  EXPECT_NEAR(pred.iteration_s(slow), pred.predict(slow).total_s, 1e-12);
  EXPECT_NEAR(pred.iteration_s(), fast.total_s, 1e-12);
  // A per-element extra of 0.25 ns: 2 ms per 8e6-element call, added to the link's time
  // (1.95 + 2 < 5: the floor still sets the fast link; 19.23 + 2 on the slow one).
  p.compressors["fp16"].allreduce_floor->per_element_s = 0.25e-9;
  const Predictor with_extra(p, with("fp16", IterationModel::Event, CompressionMode::AfterBackward));
  EXPECT_NEAR(with_extra.predict().comm_s, 4 * 5e-3, 1e-12);
  EXPECT_NEAR(with_extra.predict(slow).comm_s, 4 * (3e-5 + 1.5 * 16e6 * 8e-10 + 2e-3), 1e-9);
}

TEST(Iteration, ClosedFormContentionFormula) {
  // No encode/decode in the first chains: the published form, whatever the contention.
  EXPECT_DOUBLE_EQ(closed_form_contention_s(0.1, 1.07, 3.0, 0.06, 0.0, 0.03), closed_form_s(0.1, 1.07, 4, 0.02, 0.03));
  // gamma = contention = 1: nothing slows down: max(W, C + X) + last.
  EXPECT_NEAR(closed_form_contention_s(0.1, 1.0, 1.0, 0.03, 0.02, 0.01), 0.11, 1e-15);
  EXPECT_NEAR(closed_form_contention_s(0.04, 1.0, 1.0, 0.03, 0.02, 0.01), 0.06, 1e-15);
  // Compute-bound, gamma 1, contention 2, C = 0.03, X = 0.02: the stream covers 0.05 of
  // W = 0.1 of backward; only that part is slowed: 2*0.02 + 0.03, then the other 0.05 of
  // backward alone, + 0.01 = 0.13.
  EXPECT_NEAR(closed_form_contention_s(0.1, 1.0, 2.0, 0.03, 0.02, 0.01), 0.13, 1e-15);
  // The two forms meet where the stream covers backward exactly (W = 0.05): 0.07 + 0.01.
  EXPECT_NEAR(closed_form_contention_s(0.05, 1.0, 2.0, 0.03, 0.02, 0.01), 0.08, 1e-15);
  EXPECT_NEAR(closed_form_contention_s(0.05 + 1e-9, 1.0, 2.0, 0.03, 0.02, 0.01), 0.08, 1e-8);
  // Less communication (more bandwidth) is never slower, whatever the contention.
  double prev = 1e9;
  for (double c = 0.2; c > 1e-4; c *= 0.8) {
    const double t = closed_form_contention_s(0.1, 1.07, 1.3, c, 0.02, 0.01);
    EXPECT_LE(t, prev + 1e-15) << c;
    prev = t;
  }
  // Comm-bound: W = 0.025 covers half the stream (f = 0.5): 0.05 + 1*0.02*0.5 + 0.01 = 0.07.
  EXPECT_NEAR(closed_form_contention_s(0.025, 1.0, 2.0, 0.03, 0.02, 0.01), 0.07, 1e-15);
}

TEST(Iteration, EventEqualsContentionClosedFormWhenStreamNeverStarves) {
  if (!scheme_registered("fp16")) GTEST_SKIP() << "fp16 not registered yet";
  // fp16 overlapped: per chain encode + decode x = 2 * 9e-4, all-reduce c = 1.95e-3 (see
  // AfterBackwardAndOverlappedFp16). The first three buckets are ready at once and backward
  // ends exactly at a chain boundary (W = m (x + c/gamma)): the event model then meets the
  // closed form's assumptions (stream busy throughout backward, evenly mixed work), and
  // both give m (cont x + c) + (3 - m)(x + c) + (x + c).
  const double x = 1.8e-3, c = 1.95e-3, gamma = 1.07, cont = 1.5;
  for (int m : {2, 3}) {
    Profile p = four_buckets();
    p.compressors["fp16"] = {{1e-4, 1e-10}, {1e-4, 1e-10, 0}, 0};
    p.cluster.gamma = p.cluster.gamma_stretch = gamma;
    p.cluster.overlap_contention = cont;
    const double W = m * (x + c / gamma);
    p.model.compute[0].backward_s = W;
    p.model.compute[0].ready_s = {0, 0, 0, W};
    const auto ev = Predictor(p, with("fp16", IterationModel::Event)).predict();
    const auto cf = Predictor(p, with("fp16", IterationModel::ClosedForm)).predict();
    ASSERT_EQ(ev.mode, CompressionMode::Overlapped);
    const double expect = m * (cont * x + c) + (3 - m) * (x + c) + (x + c);
    EXPECT_NEAR(cf.backward_comm_s, expect, 1e-12) << "m = " << m;
    EXPECT_NEAR(ev.backward_comm_s, cf.backward_comm_s, 1e-12) << "m = " << m;
    // The timeline ends where the prediction does.
    const auto tl = Predictor(p, with("fp16", IterationModel::ClosedForm)).predict({}, true);
    double end = 0;
    for (const auto& e : tl.timeline) end = std::max(end, e.start_s + e.duration_s);
    EXPECT_NEAR(end, tl.total_s, 1e-12);
    // Contention is what makes the difference: without it both lose m (cont - 1) x.
    p.cluster.overlap_contention = 1.0;
    const auto cf1 = Predictor(p, with("fp16", IterationModel::ClosedForm)).predict();
    EXPECT_NEAR(cf.backward_comm_s - cf1.backward_comm_s, m * (cont - 1) * x, 1e-12) << "m = " << m;
  }
}

// comm_contention (profile.h Cluster): the CPU side of a collective, its cost above an
// empty message's (here 2(p-1) alpha = 3e-5 s per bucket), runs that much slower while
// backward runs, and at full speed after it.
TEST(Iteration, CommContentionStretchesCollectivesOnlyBesideBackward) {
  Profile p = four_buckets();
  const double fixed = 3e-5, cpu = kC - fixed;
  const double plain = Predictor(p, with("none", IterationModel::Event)).predict().backward_comm_s;
  p.cluster.comm_contention = 2;
  const IterationResult r = Predictor(p, with("none", IterationModel::Event)).predict();
  // Bucket 0 (ready at 5 ms) runs wholly beside backward: fixed + 2 cpu. Bucket 1 starts
  // at its end, advances at kC / (fixed + 2 cpu) until backward ends at 20 ms, then at 1;
  // buckets 2 and 3 run after backward.
  const double contended = fixed + 2 * cpu, t1 = 0.005 + contended;
  const double left = kC - (0.020 - t1) * kC / contended;
  EXPECT_NEAR(r.backward_comm_s, 0.020 + left + 2 * kC, 1e-12);
  EXPECT_GT(r.backward_comm_s, plain);
  // comm_s is what the collectives took, stretched: not 4 kC.
  EXPECT_NEAR(r.comm_s, contended + (0.020 - t1) + left + 2 * kC, 1e-12);
  // The same through Conditions, and 1 there restores the plain model.
  Profile q = four_buckets();
  Conditions c;
  c.comm_contention = 2;
  EXPECT_NEAR(Predictor(q, with("none", IterationModel::Event)).predict(c).backward_comm_s, r.backward_comm_s, 1e-15);
  c.comm_contention = 1;
  EXPECT_EQ(Predictor(p, with("none", IterationModel::Event)).predict(c).backward_comm_s, plain);
  c.comm_contention = 0.5;
  EXPECT_THROW(Predictor(p, with("none", IterationModel::Event)).predict(c), ModelError);
  // After backward nothing overlaps: unchanged.
  const auto after = with("none", IterationModel::Event, CompressionMode::AfterBackward);
  EXPECT_EQ(Predictor(p, after).predict().total_s, Predictor(four_buckets(), after).predict().total_s);
  // The published closed form has no such term.
  EXPECT_EQ(Predictor(p, with("none", IterationModel::ClosedForm)).predict().total_s,
            Predictor(four_buckets(), with("none", IterationModel::ClosedForm)).predict().total_s);
  p.cluster.comm_contention = 0.9;
  EXPECT_THROW(Predictor(p, with("none", IterationModel::Event)), ModelError);
}

// On a link whose wire time exceeds the contended CPU side, the wire hides it: the CPU side
// is the reference link's (the calibration's own), not the slow link's.
TEST(Iteration, CommContentionIsHiddenByASlowLink) {
  Profile p = tiny_profile(4, 8000000, 4, 1);  // 4 nodes x 1 GPU: the inter level (10 Gbps)
  const Profile plain = p;
  p.cluster.comm_contention = 2;
  const auto ev = with("none", IterationModel::Event);
  // No reference: the inter level itself is the CPU side, so the stretch applies.
  EXPECT_GT(Predictor(p, ev).predict().backward_comm_s, Predictor(plain, ev).predict().backward_comm_s);
  // A 100 Gbps reference (CPU side 3.84e-3 + ...): 2x it is below the 10 Gbps wire's 38.7 ms.
  p.cluster.comm_contention_reference = LinkLevel{100.0, 5e-6, {}};
  EXPECT_EQ(Predictor(p, ev).predict().backward_comm_s, Predictor(plain, ev).predict().backward_comm_s);
  // A what-if bandwidth below the reference leaves it hidden too; one above it stretches
  // the call's own (smaller) CPU side, never the reference's.
  p.cluster.comm_contention_reference.reset();
  Conditions slow;
  slow.inter_bandwidth_gbps = 1;
  EXPECT_EQ(Predictor(p, ev).predict(slow).backward_comm_s, Predictor(plain, ev).predict(slow).backward_comm_s);
  Conditions fast;
  fast.inter_bandwidth_gbps = 100;
  const double stretched = Predictor(p, ev).predict(fast).backward_comm_s;
  EXPECT_GT(stretched, Predictor(plain, ev).predict(fast).backward_comm_s);
  Profile twice = plain;  // every call 2x its own CPU side: an upper bound
  twice.cluster.gamma = 1;
  Conditions fast2 = fast;
  fast2.inter_bandwidth_gbps = 50;
  EXPECT_LE(stretched, Predictor(twice, ev).predict(fast2).backward_comm_s + 1e-12);
}

TEST(Iteration, SpeedupsAndWireScale) {
  const Profile p = four_buckets();
  Predictor pred(p, with("none", IterationModel::Event));
  Conditions c;
  c.compute_speedup = 2;  // backward 10 ms, ready every 2.5 ms < c: now comm-bound
  auto r = pred.predict(c);
  EXPECT_NEAR(r.forward_s, 0.005, 1e-15);
  EXPECT_NEAR(r.backward_comm_s, 0.0025 + 4 * kC, 1e-12);
  Conditions w;
  w.wire_scale = 0.5;  // half the bytes: c = 3e-5 + 1.92e-3
  EXPECT_NEAR(pred.predict(w).backward_comm_s, 0.020 + 3e-5 + 1.92e-3, 1e-12);
  Conditions bad;
  bad.compute_speedup = 0;
  EXPECT_THROW(pred.predict(bad), ModelError);
}

TEST(Iteration, SetupOverridesAndErrors) {
  Profile p = four_buckets();
  model::Setup s;
  s.nodes = 3;
  s.gpus_per_node = 2;
  s.batch_size = 64;
  Predictor pred(p, s);
  EXPECT_EQ(pred.world(), 6);
  auto r = pred.predict();
  EXPECT_FALSE(r.compute_exact);
  EXPECT_EQ(r.batch_size, 64);
  EXPECT_NEAR(r.backward_s, 0.040, 1e-15);
  s.scheme = "nosuchscheme";
  EXPECT_THROW(Predictor(p, s), ModelError);
  p.model.tensors.clear();
  EXPECT_THROW(Predictor(p, model::Setup{}), ModelError);
  EXPECT_THROW(parse_mode("sideways"), ModelError);
  EXPECT_EQ(parse_model("closed-form"), IterationModel::ClosedForm);
}

TEST(Iteration, PowerSgdRunsDependentCollectivesInOrder) {
  if (!scheme_registered("powersgd:rank=4")) GTEST_SKIP() << "powersgd not registered yet";
  Profile p = testing::tiny_profile(2, 1, 1, 4);
  p.model.tensors = {{"w", {1024, 512}}, {"b", {1024}}};
  p.compressors["powersgd:rank=4"] = {{1e-4, 0}, {1e-4, 0, 0}, 0};
  // auto runs it per bucket during backward, as gcu train does
  EXPECT_EQ(Predictor(p, with("powersgd:rank=4", IterationModel::Event)).predict().mode, CompressionMode::Overlapped);
  Predictor pred(p, with("powersgd:rank=4", IterationModel::Event, CompressionMode::AfterBackward));
  auto r = pred.predict({}, true);
  EXPECT_EQ(r.mode, CompressionMode::AfterBackward);
  std::vector<std::string> comm;
  double sum = 0;
  for (const auto& e : r.timeline)
    if (e.lane == Lane::Comm) {
      comm.push_back(e.name);
      sum += e.duration_s;
    }
  ASSERT_GE(comm.size(), 2u);
  EXPECT_NEAR(sum, r.comm_s, 1e-15);
  // Per bucket, P's all-reduce comes before Q's.
  auto pos = [&](const std::string& label) {
    for (size_t i = 0; i < comm.size(); ++i)
      if (comm[i].find(" " + label + " ") != std::string::npos) return int(i);
    return -1;
  };
  ASSERT_GE(pos("P"), 0) << comm[0];
  EXPECT_LT(pos("P"), pos("Q"));
  // Rank 4 of a 1024 x 512 matrix: (1024 + 512) * 4 floats, far fewer than 1024 * 512.
  EXPECT_LT(r.wire_bytes, r.raw_bytes / 10);
  EXPECT_NE(Predictor(p, with("none", IterationModel::Event)).predict().note.find("parameter count"),
            std::string::npos);
}

TEST(Iteration, EveryRegisteredSchemePredictsInBothModes) {
  Profile p = testing::tiny_profile(6, 300000, 2, 4);
  for (const auto& info : compress::Registry::instance().list()) {
    std::string spec;
    try {
      spec = compress::make_compressor(info.name)->spec();
    } catch (const compress::CompressorError&) {
      continue;
    }
    p.compressors[spec] = {{1e-4, 1e-10}, {1e-4, 1e-10, 1e-12}, 0};
    for (auto mode : {CompressionMode::AfterBackward, CompressionMode::Overlapped})
      for (auto m : {IterationModel::Event, IterationModel::ClosedForm}) {
        auto r = Predictor(p, with(info.name, m, mode)).predict({}, true);
        EXPECT_EQ(r.mode, mode);
        EXPECT_TRUE(std::isfinite(r.total_s)) << spec;
        // Never faster than the same iteration with free communication and codecs.
        EXPECT_GE(r.total_s, 0.032 - 1e-12) << spec << " " << mode_name(mode);
        EXPECT_GE(r.backward_comm_s + 1e-12, r.backward_s) << spec;
        EXPECT_FALSE(r.timeline.empty()) << spec;
      }
  }
}

TEST(Iteration, MoreBandwidthIsNeverSlowerOnBert) {
  Profile p = testing::bert_base_profile();
  std::vector<std::string> schemes = {"none"};
  for (const char* s : {"fp16", "topk:k=0.01", "signsgd", "powersgd:rank=4"})
    if (scheme_registered(s)) {
      schemes.push_back(s);
      p.compressors[s] = {{1e-3, 1e-10}, {1e-3, 1e-10, 1e-12}, 0};
    }
  for (const auto& scheme : schemes)
    for (auto m : {IterationModel::Event, IterationModel::ClosedForm}) {
      Predictor pred(p, with(scheme, m));
      double prev = kInf;
      for (double g = 0.5; g <= 200; g *= 1.3) {
        Conditions c;
        c.inter_bandwidth_gbps = g;
        const double t = pred.iteration_s(c);
        EXPECT_LE(t, prev + 1e-15) << scheme << " " << model_name(m) << " at " << g << " Gbps";
        prev = t;
      }
    }
}

}  // namespace
}  // namespace gcu::model

namespace gcu::model {
namespace {

// Collective fits calibrated at one world size and used at another are said so (the
// algorithm formulas carry them across rank counts); at the calibrated size, or with no
// per-collective fits at all, nothing is said.
TEST(Iteration, CollectiveFitsUsedAtAnotherWorldSizeAreAnAssumption) {
  Profile p = tiny_profile(4, 8000000, 1, 4);  // one node of 4
  auto says = [](const IterationResult& r) {
    for (const auto& a : r.cost_assumptions)
      if (a.find("the collective fits were measured at 4 ranks; the algorithm formulas extrapolate them to 8") !=
          std::string::npos)
        return true;
    return false;
  };
  model::Setup at8;
  at8.nodes = 2;
  at8.gpus_per_node = 4;
  EXPECT_FALSE(says(Predictor(p, at8).predict()));  // no per-collective fits: nothing fitted
  p.cluster.intra.collectives["allreduce"] = {{0, kInf, 5e-6, 8e-11}};
  p.cluster.inter = p.cluster.intra;
  EXPECT_TRUE(says(Predictor(p, at8).predict()));
  EXPECT_FALSE(says(Predictor(p, model::Setup{}).predict()));  // the calibrated 4 ranks
}

}  // namespace
}  // namespace gcu::model
