// Collective cost formulas and the two-level, cheapest-algorithm cost (collectives.h).
// Derivations: docs/model.md §1.
#include "model/collectives.h"

#include <algorithm>
#include <cmath>

namespace gcu::model {

namespace {
double log2p(int p) { return p > 1 ? std::log2(double(p)) : 0.0; }
}  // namespace

// Ring all-reduce: reduce-scatter (p-1 steps, each sends n/p) then all-gather (p-1 steps
// of n/p): 2(p-1) steps of latency a and 2(p-1)/p n bytes through each link.
Seconds ring_allreduce_s(int p, Bytes n, AlphaBeta ab) {
  if (p <= 1) return 0;
  return 2.0 * (p - 1) * ab.alpha_s + 2.0 * (p - 1) / p * n * ab.beta_s_per_byte;
}
// Tree, pipelined in small chunks as NCCL runs it: reduce up log2(p) levels and broadcast
// down log2(p) levels, each level a latency to fill; once full, the vector streams through
// each rank's link once up and once down (2 n bytes), whatever the depth.
Seconds tree_allreduce_s(int p, Bytes n, AlphaBeta ab) {
  if (p <= 1) return 0;
  return 2.0 * log2p(p) * ab.alpha_s + 2.0 * n * ab.beta_s_per_byte;
}
// Parameter server: one push round and one pull round (2a); the server's link carries
// (p-1) n in and (p-1) n out.
Seconds ps_allreduce_s(int p, Bytes n, AlphaBeta ab) {
  if (p <= 1) return 0;
  return 2.0 * ab.alpha_s + 2.0 * (p - 1) * n * ab.beta_s_per_byte;
}
// Ring all-gather: p-1 steps, each forwards one rank's n bytes.
Seconds ring_allgather_s(int p, Bytes n_per_rank, AlphaBeta ab) {
  if (p <= 1) return 0;
  return (p - 1) * ab.alpha_s + (p - 1) * n_per_rank * ab.beta_s_per_byte;
}
// Ring reduce-scatter: p-1 steps of n/p bytes.
Seconds ring_reduce_scatter_s(int p, Bytes n, AlphaBeta ab) {
  if (p <= 1) return 0;
  return (p - 1) * ab.alpha_s + double(p - 1) / p * n * ab.beta_s_per_byte;
}
// Chain broadcast, pipelined in small chunks: fill the chain (p-1 latencies), then the
// whole vector streams once through every link.
Seconds ring_broadcast_s(int p, Bytes n, AlphaBeta ab) {
  if (p <= 1) return 0;
  return (p - 1) * ab.alpha_s + n * ab.beta_s_per_byte;
}
// Binary tree broadcast, pipelined: log2(p) levels to fill, then the vector streams once.
Seconds tree_broadcast_s(int p, Bytes n, AlphaBeta ab) {
  if (p <= 1) return 0;
  return log2p(p) * ab.alpha_s + n * ab.beta_s_per_byte;
}

double busbw_factor(CollectiveKind k, int p) {
  if (p <= 1) return 1.0;
  switch (k) {
    case CollectiveKind::AllReduce: return 2.0 * (p - 1) / p;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter: return double(p - 1) / p;
    case CollectiveKind::Broadcast: return 1.0;
  }
  return 1.0;
}
double algbw_gbps(Bytes n, Seconds t) { return t > 0 ? n * 8.0 / t / 1e9 : kInf; }
double busbw_gbps(CollectiveKind k, int p, Bytes n, Seconds t) {
  return algbw_gbps(n, t) * busbw_factor(k, p);
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Ring: return "ring";
    case Algorithm::Tree: return "tree";
    case Algorithm::ParameterServer: return "ps";
  }
  return "?";
}

Algorithm parse_algorithm(const std::string& s) {
  if (s == "ring") return Algorithm::Ring;
  if (s == "tree") return Algorithm::Tree;
  if (s == "ps" || s == "parameter_server") return Algorithm::ParameterServer;
  throw ModelError("unknown collective algorithm '" + s + "' (known: ring, tree, ps)");
}

Seconds flat_collective_s(CollectiveKind k, Algorithm a, int p, Bytes n, AlphaBeta ab) {
  switch (k) {
    case CollectiveKind::AllReduce:
      if (a == Algorithm::Tree) return tree_allreduce_s(p, n, ab);
      if (a == Algorithm::ParameterServer) return ps_allreduce_s(p, n, ab);
      return ring_allreduce_s(p, n, ab);
    case CollectiveKind::AllGather: return ring_allgather_s(p, n, ab);
    case CollectiveKind::ReduceScatter: return ring_reduce_scatter_s(p, n, ab);
    case CollectiveKind::Broadcast:
      return a == Algorithm::Tree ? tree_broadcast_s(p, n, ab) : ring_broadcast_s(p, n, ab);
  }
  return 0;
}

// ---- LinkCost --------------------------------------------------------------------------
LinkCost::LinkCost(const LinkLevel& level, const std::string& level_name) {
  base_.alpha_s = level.alpha_s;
  base_.beta_s_per_byte = level.bandwidth_gbps > 0 ? beta_s_per_byte_from_gbps(level.bandwidth_gbps) : 0;
  if (level.alpha_s < 0)
    throw ModelError("cluster.levels." + level_name + ".alpha_s = " + std::to_string(level.alpha_s) +
                     " is negative");
  for (const auto& [key, fits] : level.collectives) {
    int idx = -1;
    for (int i = 0; i < 4; ++i)
      if (key == collective_key(CollectiveKind(i))) idx = i;
    if (idx < 0)
      throw ModelError("cluster.levels." + level_name + ".collectives: unknown collective '" + key +
                       "' (known: allreduce, allgather, reducescatter, broadcast)");
    fits_[idx] = fits;
    std::sort(fits_[idx].begin(), fits_[idx].end(),
              [](const SizeRangeFit& a, const SizeRangeFit& b) { return a.min_bytes < b.min_bytes; });
    curve_[idx] = level.curves.count(key) > 0 && !fits.empty();
  }
  if (!(level.bandwidth_gbps > 0)) {
    if (level.bandwidth_gbps < 0 || !level.collectives.empty())
      throw ModelError("cluster.levels." + level_name + ".bandwidth_gbps = " +
                       std::to_string(level.bandwidth_gbps) + " must be > 0");
    present_ = false;  // a level the cluster may not need (e.g. inter on one node)
  }
  name_ = level_name;
}

AlphaBeta LinkCost::at(CollectiveKind k, Bytes n, double beta_override) const {
  const auto what_if = [&](double beta) {  // a range's per-byte time on the what-if link (below)
    return beta_override > 0 && base_.beta_s_per_byte > 0
               ? std::max(beta_override, beta + beta_override - base_.beta_s_per_byte)
               : (beta_override > 0 ? beta_override : beta);
  };
  if (curve_[int(k)]) {
    const auto& r = fits_[int(k)];
    double bytes_s = 0;  // B(n): the per-byte time integrated over the first n bytes
    for (const auto& f : r) {
      const double in = std::min(n, f.max_bytes) - f.min_bytes;
      if (in <= 0) break;
      bytes_s += in * what_if(f.beta_s_per_byte);
    }
    return {r.front().alpha_s, n > 0 ? bytes_s / n : what_if(r.front().beta_s_per_byte)};
  }
  AlphaBeta ab = base_;
  bool ranged = false;
  for (const auto& f : fits_[int(k)])
    if (n >= f.min_bytes && n < f.max_bytes) {
      ab = {f.alpha_s, f.beta_s_per_byte};
      ranged = true;
      break;
    }
  if (beta_override > 0) {
    // A what-if link changes the wire's share of a range's per-byte time (the level's own
    // link, base_) and keeps what the range measured beyond it (the collective's work per
    // byte on the hosts): the cost moves by n x (new wire - old wire) wherever the fits
    // are, so it has no jumps at range edges that the fits do not have, and it is never
    // below the what-if link's own wire time.
    ab.beta_s_per_byte = ranged && base_.beta_s_per_byte > 0
                             ? std::max(beta_override, ab.beta_s_per_byte + beta_override - base_.beta_s_per_byte)
                             : beta_override;
  }
  return ab;
}

void LinkCost::set_bandwidth_gbps(Gbps g) {
  if (!(g > 0)) throw ModelError("bandwidth " + std::to_string(g) + " Gbps must be > 0");
  const double b = beta_s_per_byte_from_gbps(g);
  base_.beta_s_per_byte = b;
  present_ = true;
  for (auto& v : fits_)
    for (auto& f : v) f.beta_s_per_byte = b;
}

void LinkCost::scale_beta(double f) {
  base_.beta_s_per_byte *= f;
  for (auto& v : fits_)
    for (auto& x : v) x.beta_s_per_byte *= f;
}

// ---- ClusterCost -----------------------------------------------------------------------
const char* cost_label(const CollectiveCost& c) {
  if (!c.hierarchical) return algorithm_name(c.algorithm);
  switch (c.algorithm) {
    case Algorithm::Ring: return "hier-ring";
    case Algorithm::Tree: return "hier-tree";
    case Algorithm::ParameterServer: return "hier-ps";
  }
  return "?";
}

ClusterCost::ClusterCost(const Cluster& c)
    : ClusterCost(c.nodes, c.gpus_per_node, LinkCost(c.intra, "intra"), LinkCost(c.inter, "inter"),
                  [&] {
                    std::vector<Algorithm> a;
                    for (const auto& s : c.algorithms) a.push_back(parse_algorithm(s));
                    return a;
                  }()) {}

ClusterCost::ClusterCost(int nodes, int gpus_per_node, LinkCost intra, LinkCost inter,
                         std::vector<Algorithm> algorithms)
    : nodes_(nodes), gpn_(gpus_per_node), intra_(std::move(intra)), inter_(std::move(inter)),
      algs_(std::move(algorithms)) {
  // A level used by this cluster shape must have a bandwidth.
  if (gpus_per_node > 1 && !intra_.present())
    throw ModelError("cluster.levels." + intra_.name() + ".bandwidth_gbps must be > 0 with " +
                     std::to_string(gpus_per_node) + " GPUs per node");
  if (nodes > 1 && !inter_.present())
    throw ModelError("cluster.levels." + inter_.name() + ".bandwidth_gbps must be > 0 with " +
                     std::to_string(nodes) + " nodes");
  if (nodes_ < 1) throw ModelError("cluster.nodes = " + std::to_string(nodes_) + " must be >= 1");
  if (gpn_ < 1)
    throw ModelError("cluster.gpus_per_node = " + std::to_string(gpn_) + " must be >= 1");
  if (algs_.empty()) throw ModelError("cluster.algorithms is empty: give at least one of ring, tree, ps");
}

// Hierarchical (2D) collective on nodes x g ranks (docs/model.md §1.3):
//  all-reduce:     intra reduce-scatter(g, n) + inter all-reduce(nodes, n) + intra all-gather(g, n/g)
//                  (the g GPUs of a node each all-reduce n/g across nodes at the same
//                  time, so the node's NIC carries the same bytes as one n-byte all-reduce);
//  all-gather:     inter all-gather(nodes, g n) + intra all-gather(g, nodes n);
//  reduce-scatter: intra reduce-scatter(g, n) + inter reduce-scatter(nodes, n);
//  broadcast:      inter broadcast(nodes, n) + intra broadcast(g, n).
Seconds ClusterCost::hierarchical_s(CollectiveKind k, Algorithm a, Bytes n, const LinkOverride& o) const {
  const int g = gpn_, m = nodes_;
  auto in = [&](CollectiveKind kk, Bytes b) { return intra_.at(kk, b, o.intra_beta_s_per_byte); };
  auto ex = [&](CollectiveKind kk, Bytes b) { return inter_.at(kk, b, o.inter_beta_s_per_byte); };
  using K = CollectiveKind;
  switch (k) {
    case K::AllReduce:
      return ring_reduce_scatter_s(g, n, in(K::ReduceScatter, n)) +
             flat_collective_s(K::AllReduce, a, m, n, ex(K::AllReduce, n)) +
             ring_allgather_s(g, n / g, in(K::AllGather, n / g));
    case K::AllGather:
      return flat_collective_s(K::AllGather, a, m, g * n, ex(K::AllGather, g * n)) +
             ring_allgather_s(g, m * n, in(K::AllGather, m * n));
    case K::ReduceScatter:
      return ring_reduce_scatter_s(g, n, in(K::ReduceScatter, n)) +
             flat_collective_s(K::ReduceScatter, a, m, n, ex(K::ReduceScatter, n));
    case K::Broadcast:
      return flat_collective_s(K::Broadcast, a, m, n, ex(K::Broadcast, n)) +
             flat_collective_s(K::Broadcast, a, g, n, in(K::Broadcast, n));
  }
  return 0;
}

CollectiveCost ClusterCost::cost(CollectiveKind k, Bytes n, const LinkOverride& o) const {
  CollectiveCost best{kInf, algs_.front(), false};
  const int p = world();
  if (p <= 1) return {0, algs_.front(), false};
  // Flat over all ranks: on one level when the cluster has one; across nodes the slowest
  // (inter) link bounds every synchronised step.
  const bool one_node = nodes_ == 1;
  for (Algorithm a : algs_) {
    const AlphaBeta ab = one_node ? intra_.at(k, n, o.intra_beta_s_per_byte)
                                  : inter_.at(k, n, o.inter_beta_s_per_byte);
    const Seconds t = flat_collective_s(k, a, p, n, ab);
    if (t < best.time_s) best = {t, a, false};
  }
  if (nodes_ > 1 && gpn_ > 1)
    for (Algorithm a : algs_) {
      const Seconds t = hierarchical_s(k, a, n, o);
      if (t < best.time_s) best = {t, a, true};
    }
  return best;
}

}  // namespace gcu::model
