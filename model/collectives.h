// Collective cost models (alpha-beta). p ranks, n bytes, alpha = per-step latency (s),
// beta = link time per byte (s/byte). Derivations: docs/model.md §1.
//
// Tiny pure formulas first, then LinkCost (one link level with optional per-size-range
// fits) and ClusterCost (two levels, candidate algorithms, cheapest per message).
// Everything here is allocation-free after construction: the sweeps call it ~10^7 times.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include <array>
#include <string>
#include <vector>

namespace gcu::model {

using compress::CollectiveKind;

struct AlphaBeta {
  Seconds alpha_s = 0;
  double beta_s_per_byte = 0;
};

// ---- formulas (n = bytes of the vector each rank holds, unless said otherwise) --------
// Ring all-reduce = reduce-scatter + all-gather, each p-1 steps of n/p bytes:
//   2(p-1) a + 2(p-1)/p n b
Seconds ring_allreduce_s(int p, Bytes n, AlphaBeta ab);
// Binary-tree reduce then broadcast, log2(p) levels each moving the whole vector:
//   2 log2(p) a + 2 log2(p) n b
Seconds tree_allreduce_s(int p, Bytes n, AlphaBeta ab);
// Parameter server on one node's link: every worker pushes n and pulls n, the server's
// link carries 2(p-1) n: 2a + 2(p-1) n b
Seconds ps_allreduce_s(int p, Bytes n, AlphaBeta ab);
// Ring all-gather, n bytes PER RANK in (p n out): p-1 steps of n: (p-1) a + (p-1) n b
Seconds ring_allgather_s(int p, Bytes n_per_rank, AlphaBeta ab);
// Ring reduce-scatter, n bytes in per rank (n/p out): (p-1) a + (p-1)/p n b
Seconds ring_reduce_scatter_s(int p, Bytes n, AlphaBeta ab);
// Pipelined ring (chain) broadcast of n bytes: (p-1) a + n b
Seconds ring_broadcast_s(int p, Bytes n, AlphaBeta ab);
// Binary-tree broadcast: log2(p) (a + n b)
Seconds tree_broadcast_s(int p, Bytes n, AlphaBeta ab);

// ---- nccl-tests bandwidth conventions (doc/PERFORMANCE.md of nccl-tests) --------------
// algbw = n / t (n = bytes per rank for all-reduce/broadcast/reduce-scatter input,
// for all-gather the OUTPUT size p * n_per_rank, as nccl-tests counts it);
// busbw = algbw * factor, the factor making busbw comparable to the link speed.
double busbw_factor(CollectiveKind k, int p);  // AR 2(p-1)/p; AG, RS (p-1)/p; BC 1
double algbw_gbps(Bytes n, Seconds t);         // n*8/t/1e9
double busbw_gbps(CollectiveKind k, int p, Bytes n, Seconds t);

// ---- algorithms ------------------------------------------------------------------------
enum class Algorithm { Ring, Tree, ParameterServer };
const char* algorithm_name(Algorithm a);       // "ring", "tree", "ps"
Algorithm parse_algorithm(const std::string& s);  // throws ModelError listing the known ones

// Cost of one collective on a single flat level with one algorithm (formulas above;
// all-gather and reduce-scatter use the ring formula whatever the algorithm; broadcast
// has ring and tree, ParameterServer broadcast = ring).
Seconds flat_collective_s(CollectiveKind k, Algorithm a, int p, Bytes n, AlphaBeta ab);

// One link level: default (alpha, beta) and optional fits per collective and size range.
class LinkCost {
 public:
  LinkCost() = default;
  // beta from bandwidth_gbps. bandwidth_gbps == 0 without fits = an absent level
  // (present() false; ClusterCost throws if the cluster shape needs it); negative, or 0
  // with fits, throws ModelError naming cluster.levels.<level_name>.bandwidth_gbps.
  LinkCost(const LinkLevel& level, const std::string& level_name);
  bool present() const { return present_; }
  const std::string& name() const { return name_; }
  // The (alpha, beta) to use for a message of n bytes of collective k. A positive
  // beta_override is a what-if link: it replaces the level's own per-byte wire time and
  // keeps latencies and, inside a size range, the range's per-byte time beyond that wire
  // (beta = max(override, range beta + override - level beta)). For a curve
  // (LinkLevel::curves) alpha is its one latency and beta the mean per-byte time over the
  // first n bytes, B(n) / n, so that the formulas' steps x alpha + factor x n x beta are
  // the integrated curve.
  AlphaBeta at(CollectiveKind k, Bytes n, double beta_override = 0) const;
  // What-if: replace the bandwidth (every range's beta too), keep latencies.
  void set_bandwidth_gbps(Gbps g);
  // What-if: scale every beta by f (f < 1 = faster link).
  void scale_beta(double f);

 private:
  AlphaBeta base_;
  std::array<std::vector<SizeRangeFit>, 4> fits_;  // indexed by CollectiveKind
  std::array<bool, 4> curve_{};                    // LinkLevel::curves
  bool present_ = true;
  std::string name_ = "?";
};

// The result of costing one collective: time and the algorithm that won.
struct CollectiveCost {
  Seconds time_s = 0;
  Algorithm algorithm = Algorithm::Ring;
  bool hierarchical = false;  // intra reduce-scatter / inter / intra all-gather
};
// "ring", "hier-tree", ... (static strings; no allocation)
const char* cost_label(const CollectiveCost& c);

// What-if link speeds for one evaluation (0 = keep the profile's).
struct LinkOverride {
  double intra_beta_s_per_byte = 0;
  double inter_beta_s_per_byte = 0;
};

// Two levels and candidate algorithms. p = nodes * gpus_per_node.
//  - nodes == 1: flat on the intra level.
//  - gpus_per_node == 1: flat on the inter level.
//  - otherwise: flat over all p ranks bottlenecked by the inter level (the ring crosses
//    each node's NIC), or hierarchical: intra reduce-scatter, inter collective among the
//    nodes carrying the node's whole share through its NIC, intra all-gather.
// The cheapest candidate wins. See docs/model.md §1.3.
class ClusterCost {
 public:
  ClusterCost(const Cluster& c);
  ClusterCost(int nodes, int gpus_per_node, LinkCost intra, LinkCost inter,
              std::vector<Algorithm> algorithms);
  int world() const { return nodes_ * gpn_; }
  int nodes() const { return nodes_; }
  int gpus_per_node() const { return gpn_; }
  // n = bytes each rank contributes (for all-gather: per rank; result is p*n).
  CollectiveCost cost(CollectiveKind k, Bytes n, const LinkOverride& o = {}) const;
  LinkCost& intra() { return intra_; }
  LinkCost& inter() { return inter_; }
  const std::vector<Algorithm>& algorithms() const { return algs_; }

 private:
  Seconds hierarchical_s(CollectiveKind k, Algorithm a, Bytes n, const LinkOverride& o) const;
  int nodes_ = 1, gpn_ = 1;
  LinkCost intra_, inter_;
  std::vector<Algorithm> algs_;
};

}  // namespace gcu::model
