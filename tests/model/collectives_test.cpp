// Collective cost formulas, nccl-tests factors, size-range fits, cheapest algorithm and
// the two-level model (model/collectives.h), against hand computation.
#include "model/collectives.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

using K = CollectiveKind;
constexpr AlphaBeta kAB{1e-5, 1e-9};  // 10 us per step, 1 ns per byte (8 Gbps)

// p = 4, a = 1e-5, b = 1e-9, n = 1e6 bytes, by hand:
//   ring AR   2*3*1e-5 + 2*3/4*1e6*1e-9 = 6e-5 + 1.5e-3  = 1.56e-3
//   tree AR   2*2*1e-5 + 2*1e6*1e-9     = 4e-5 + 2e-3    = 2.04e-3  (pipelined)
//   PS AR     2*1e-5   + 2*3*1e6*1e-9   = 2e-5 + 6e-3    = 6.02e-3
//   ring AG   3*1e-5   + 3*1e6*1e-9     = 3e-5 + 3e-3    = 3.03e-3
//   ring RS   3*1e-5   + 3/4*1e6*1e-9   = 3e-5 + 7.5e-4  = 7.8e-4
//   ring BC   3*1e-5   + 1e6*1e-9       = 3e-5 + 1e-3    = 1.03e-3
//   tree BC   2*1e-5   + 1e6*1e-9       = 2e-5 + 1e-3    = 1.02e-3  (pipelined)
TEST(Collectives, FormulasMatchHandComputation) {
  EXPECT_NEAR(ring_allreduce_s(4, 1e6, kAB), 1.56e-3, 1e-12);
  EXPECT_NEAR(tree_allreduce_s(4, 1e6, kAB), 2.04e-3, 1e-12);
  EXPECT_NEAR(ps_allreduce_s(4, 1e6, kAB), 6.02e-3, 1e-12);
  EXPECT_NEAR(ring_allgather_s(4, 1e6, kAB), 3.03e-3, 1e-12);
  EXPECT_NEAR(ring_reduce_scatter_s(4, 1e6, kAB), 7.8e-4, 1e-12);
  EXPECT_NEAR(ring_broadcast_s(4, 1e6, kAB), 1.03e-3, 1e-12);
  EXPECT_NEAR(tree_broadcast_s(4, 1e6, kAB), 1.02e-3, 1e-12);
}

TEST(Collectives, OneRankCostsNothing) {
  EXPECT_EQ(ring_allreduce_s(1, 1e6, kAB), 0.0);
  EXPECT_EQ(ring_allgather_s(1, 1e6, kAB), 0.0);
  EXPECT_EQ(tree_broadcast_s(1, 1e6, kAB), 0.0);
}

TEST(Collectives, NcclTestsBusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(busbw_factor(K::AllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_factor(K::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(K::ReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(K::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 1.0), 8.0);          // 1 GB in 1 s = 8 Gbps
  EXPECT_DOUBLE_EQ(busbw_gbps(K::AllReduce, 4, 1e9, 1.0), 12.0);
  // A ring all-reduce with alpha = 0 achieves busbw == link speed.
  const double t = ring_allreduce_s(8, 1e8, {0, beta_s_per_byte_from_gbps(25)});
  EXPECT_NEAR(busbw_gbps(K::AllReduce, 8, 1e8, t), 25.0, 1e-9);
}

TEST(Collectives, UnitConversions) {
  EXPECT_DOUBLE_EQ(beta_s_per_byte_from_gbps(8), 1e-9);
  EXPECT_DOUBLE_EQ(gbps_from_beta(1e-9), 8);
}

TEST(Collectives, CheapestAlgorithmPerMessage) {
  // p = 64 on one level. n = 1000 B: ring 126e-5 + 2*63/64*1e-6 = 1.26197e-3;
  // tree 12e-5 + 2e-6 = 1.22e-4 -> tree. n = 1e8 B: ring 1.26e-3 + 0.196875 = 0.198135;
  // tree 1.2e-4 + 0.2 = 0.20012 -> ring (a pipelined tree moves 2n, a ring 2(p-1)/p n).
  LinkLevel l{8.0, 1e-5, {}};
  ClusterCost c(1, 64, LinkCost(l, "intra"), LinkCost(l, "inter"),
                {Algorithm::Ring, Algorithm::Tree, Algorithm::ParameterServer});
  auto small = c.cost(K::AllReduce, 1000);
  EXPECT_EQ(small.algorithm, Algorithm::Tree);
  EXPECT_NEAR(small.time_s, 1.22e-4, 1e-12);
  auto big = c.cost(K::AllReduce, 1e8);
  EXPECT_EQ(big.algorithm, Algorithm::Ring);
  EXPECT_NEAR(big.time_s, 0.198135, 1e-9);
  EXPECT_STREQ(cost_label(big), "ring");
}

TEST(Collectives, TwoLevelHierarchicalBeatsFlatRing) {
  // 2 nodes x 4 GPUs; intra 80 Gbps (b = 1e-10), a = 1e-6; inter 8 Gbps (1e-9), a = 1e-5.
  // n = 1e6 B all-reduce:
  //   flat ring over 8 (inter-bound): 14e-5 + 2*7/8*1e-3 = 1.89e-3
  //   hierarchical: RS(4, 1e6) intra 3e-6 + 7.5e-5 = 7.8e-5
  //               + AR(2, 1e6) inter 2e-5 + 1e-3   = 1.02e-3
  //               + AG(4, 2.5e5) intra 3e-6 + 7.5e-5 = 7.8e-5   -> 1.176e-3
  ClusterCost c(2, 4, LinkCost({80.0, 1e-6, {}}, "intra"), LinkCost({8.0, 1e-5, {}}, "inter"),
                {Algorithm::Ring});
  auto r = c.cost(K::AllReduce, 1e6);
  EXPECT_TRUE(r.hierarchical);
  EXPECT_NEAR(r.time_s, 1.176e-3, 1e-12);
  EXPECT_STREQ(cost_label(r), "hier-ring");
  // All-gather of 1e6 B per rank: flat 7e-5 + 7e-3 = 7.07e-3; hierarchical: inter AG(2, 4e6)
  // 1e-5 + 4e-3 + intra AG(4, 2e6) 3e-6 + 6e-4 = 4.613e-3.
  auto g = c.cost(K::AllGather, 1e6);
  EXPECT_TRUE(g.hierarchical);
  EXPECT_NEAR(g.time_s, 4.613e-3, 1e-12);
}

TEST(Collectives, SingleNodeUsesIntraLevelOnly) {
  ClusterCost c(1, 4, LinkCost({8.0, 1e-5, {}}, "intra"), LinkCost({0.001, 1.0, {}}, "inter"),
                {Algorithm::Ring});
  EXPECT_NEAR(c.cost(K::AllReduce, 1e6).time_s, 1.56e-3, 1e-12);
}

TEST(Collectives, SizeRangeFitsOverrideDefaults) {
  LinkLevel l{8.0, 1e-5, {}};
  l.collectives["allreduce"] = {{0, 65536, 2e-5, 5e-9}};
  LinkCost lc(l, "inter");
  AlphaBeta small = lc.at(K::AllReduce, 1000);
  EXPECT_DOUBLE_EQ(small.alpha_s, 2e-5);
  EXPECT_DOUBLE_EQ(small.beta_s_per_byte, 5e-9);
  AlphaBeta big = lc.at(K::AllReduce, 65536);  // max is exclusive
  EXPECT_DOUBLE_EQ(big.alpha_s, 1e-5);
  EXPECT_DOUBLE_EQ(big.beta_s_per_byte, 1e-9);
  EXPECT_DOUBLE_EQ(lc.at(K::AllGather, 1000).alpha_s, 1e-5);  // other collectives unaffected
  // A what-if link of 2e-9 s/B replaces the level's wire (1e-9) inside the range's 5e-9:
  // 5e-9 + 2e-9 - 1e-9; outside a range the level's beta is the wire alone.
  EXPECT_DOUBLE_EQ(lc.at(K::AllReduce, 1000, 2e-9).beta_s_per_byte, 6e-9);
  EXPECT_DOUBLE_EQ(lc.at(K::AllReduce, 65536, 2e-9).beta_s_per_byte, 2e-9);
  // Never below the what-if wire: a range flatter than the level's link (1e-10 here).
  LinkLevel flat{8.0, 1e-5, {}};
  flat.collectives["allreduce"] = {{0, 65536, 2e-5, 1e-10}};
  EXPECT_DOUBLE_EQ(LinkCost(flat, "inter").at(K::AllReduce, 1000, 2e-9).beta_s_per_byte, 2e-9);
  lc.set_bandwidth_gbps(80);
  EXPECT_DOUBLE_EQ(lc.at(K::AllReduce, 1000).beta_s_per_byte, 1e-10);
  EXPECT_DOUBLE_EQ(lc.at(K::AllReduce, 1000).alpha_s, 2e-5);
}

TEST(Collectives, WhatIfBandwidthIsContinuousAtRangeEdges) {
  // Two ranges fitted continuous at 1e6 B on an 8 Gbps link (beta 1e-9), p = 2 (ring:
  // T = 2 a + n b): below, a 1e-4, b 3e-9 -> 3.2e-3 s at the edge; above, b 1e-9 and
  // a 1.1e-3 -> 3.2e-3 s. At a what-if 2 Gbps (4e-9) both sides move by n x 3e-9: 6.2e-3 s.
  // (Keeping each range's alpha with the what-if beta alone gave 4.2e-3 below the edge
  // and 6.2e-3 above it.)
  LinkLevel l{8.0, 1e-4, {}};
  l.collectives["allreduce"] = {{0, 1000000, 1e-4, 3e-9}, {1000000, kInf, 1.1e-3, 1e-9}};
  LinkCost lc(l, "inter");
  const double below = ring_allreduce_s(2, 999999.999, lc.at(K::AllReduce, 999999.999, 4e-9));
  const double at = ring_allreduce_s(2, 1e6, lc.at(K::AllReduce, 1e6, 4e-9));
  EXPECT_NEAR(below, 6.2e-3, 1e-9);
  EXPECT_NEAR(at, 6.2e-3, 1e-12);
  // Without a what-if link, the fits as measured.
  EXPECT_NEAR(ring_allreduce_s(2, 1e6, lc.at(K::AllReduce, 1e6)), 3.2e-3, 1e-12);
}

TEST(Collectives, BadInputsNameTheField) {
  try {
    LinkCost(LinkLevel{-1.0, 1e-5, {}}, "inter");
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.levels.inter.bandwidth_gbps"), std::string::npos);
  }
  // An absent level (bandwidth 0) is fine on one node, an error across nodes.
  LinkCost absent(LinkLevel{0.0, 0.0, {}}, "inter");
  EXPECT_FALSE(absent.present());
  EXPECT_NO_THROW(ClusterCost(1, 4, LinkCost({8.0, 1e-5, {}}, "intra"), absent, {Algorithm::Ring}));
  try {
    ClusterCost(2, 4, LinkCost({8.0, 1e-5, {}}, "intra"), absent, {Algorithm::Ring});
    FAIL() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.levels.inter.bandwidth_gbps"), std::string::npos);
  }
  LinkLevel l{8.0, 1e-5, {}};
  l.collectives["alltoall"] = {};
  EXPECT_THROW(LinkCost(l, "intra"), ModelError);
  EXPECT_THROW(parse_algorithm("butterfly"), ModelError);
}

TEST(Collectives, MoreBandwidthIsNeverSlower) {
  ClusterCost c(4, 4, LinkCost({100.0, 5e-6, {}}, "intra"), LinkCost({10.0, 5e-5, {}}, "inter"),
                {Algorithm::Ring, Algorithm::Tree});
  for (K k : {K::AllReduce, K::AllGather, K::ReduceScatter, K::Broadcast})
    for (double n : {1e2, 1e4, 1e6, 1e8}) {
      double prev = kInf;
      for (double g : {1.0, 2.0, 5.0, 10.0, 25.0, 40.0, 100.0}) {
        LinkOverride o{0, beta_s_per_byte_from_gbps(g)};
        const double t = c.cost(k, n, o).time_s;
        EXPECT_LE(t, prev) << collective_key(k) << " n=" << n << " g=" << g;
        prev = t;
      }
    }
}


// A curve (LinkLevel::curves): one latency, the per-byte time integrated over the ranges,
// so the cost has no jump at a range edge at any rank count, and a what-if bandwidth moves
// each range's wire share.
TEST(Collectives, CurveIsContinuousAtEveryRankCount) {
  LinkLevel l{8.0, 20e-6, {}};
  l.collectives["allreduce"] = {{0, 65536, 20e-6, 2e-9}, {65536, kInf, 20e-6, 1e-9}};
  l.curves.insert("allreduce");
  const LinkCost c(l, "inter");
  // Below the edge: alpha and the first beta; above it: B(n) / n.
  EXPECT_NEAR(c.at(CollectiveKind::AllReduce, 1000).beta_s_per_byte, 2e-9, 1e-18);
  const double n = 1e6;
  EXPECT_NEAR(c.at(CollectiveKind::AllReduce, n).beta_s_per_byte, (65536 * 2e-9 + (n - 65536) * 1e-9) / n, 1e-18);
  EXPECT_EQ(c.at(CollectiveKind::AllReduce, n).alpha_s, 20e-6);
  for (int p : {2, 3, 4, 16}) {
    const double below = ring_allreduce_s(p, 65536 - 1e-3, c.at(CollectiveKind::AllReduce, 65536 - 1e-3));
    const double above = ring_allreduce_s(p, 65536, c.at(CollectiveKind::AllReduce, 65536));
    EXPECT_NEAR(below, above, 1e-10) << p;
  }
  // A what-if link: each range's per-byte time moves by (new wire - old wire), never below the new wire.
  const double wire = beta_s_per_byte_from_gbps(8.0), slow = beta_s_per_byte_from_gbps(1.0);
  EXPECT_NEAR(c.at(CollectiveKind::AllReduce, n, slow).beta_s_per_byte,
              (65536 * (2e-9 + slow - wire) + (n - 65536) * std::max(slow, 1e-9 + slow - wire)) / n, 1e-18);
  // The same ranges as separate lines jump at the edge at 4 ranks.
  l.curves.clear();
  const LinkCost lines(l, "inter");
  EXPECT_GT(std::abs(ring_allreduce_s(4, 65536 - 1e-3, lines.at(CollectiveKind::AllReduce, 65536 - 1e-3)) -
                     ring_allreduce_s(4, 65536, lines.at(CollectiveKind::AllReduce, 65536))),
            1e-6);
}

}  // namespace
}  // namespace gcu::model
