// A scheme's all-gathers entered free-running (allgather_floor.h).
#include "calibrate/allgather_floor.h"

#include "calibrate/collectives.h"
#include "calibrate/group_impl.h"
#include "calibrate/stats.h"
#include "compressors/registry.h"
#include "trainer/runtime/pg_communicator.h"
#include "util/clock.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

namespace gcu::calibrate {

namespace {
using util::now_s;

struct Bucket {
  int64_t elements = 0;
  std::vector<compress::CollectiveCall> calls;  // the bucket's all-gathers, in plan order
  std::vector<std::vector<uint8_t>> send, recv;
  std::vector<double> t;                        // this rank's time per timed round
};

void gather_all(trainer::PgCommunicator& comm, Bucket& b) {
  for (size_t i = 0; i < b.calls.size(); ++i)
    comm.all_gather(b.send[i].data(), b.recv[i].data(), b.calls[i].count, b.calls[i].type);
}
}  // namespace

AllGatherFloor measure_allgather_floor(Group& g, const std::string& spec, const std::vector<int64_t>& sizes,
                                       double gap_s, int reps, uint64_t seed) {
  AllGatherFloor out;
  const int p = g.world_size();
  if (p < 2 || g.backend() != "gloo" || sizes.empty()) return out;
  const auto comp = compress::make_compressor(spec);
  std::vector<Bucket> buckets;
  for (int64_t n : sizes) {
    Bucket b;
    b.elements = n;
    for (const auto& c : comp->plan(compress::BucketLayout::flat(n), p))
      if (c.kind == compress::CollectiveKind::AllGather && c.bytes_per_rank() > 0) {
        b.calls.push_back(c);
        // Bytes, not values: an all-gather moves them as they are (no reduction).
        b.send.emplace_back(size_t(c.bytes_per_rank()), uint8_t(0x5A));
        b.recv.emplace_back(size_t(c.bytes_per_rank() * p), uint8_t(0));
      }
    if (b.calls.empty()) return out;  // no all-gather in this scheme
    buckets.push_back(std::move(b));
  }
  trainer::PgCommunicator comm(g.impl().ctx);
  comm.set_context("calibrate: free-running all-gather");
  for (auto& b : buckets) {  // warm-up, aligned
    g.barrier();
    gather_all(comm, b);
  }
  std::mt19937_64 order_rng(seed * 1000003 + 17);                                   // shared
  std::mt19937_64 gap_rng(seed * 7919 + uint64_t(g.rank()) * 104729 + 17);          // this rank's
  std::uniform_real_distribution<double> jitter(0.5, 1.5);
  std::vector<size_t> order(buckets.size());
  std::iota(order.begin(), order.end(), size_t(0));
  g.barrier();
  for (int r = 0; r < reps; ++r) {
    std::shuffle(order.begin(), order.end(), order_rng);
    for (size_t i : order) {
      spend_gap(gap_s * jitter(gap_rng), true);
      const double t0 = now_s();
      gather_all(comm, buckets[i]);
      buckets[i].t.push_back(now_s() - t0);
    }
  }
  model::CollectiveFloor f;
  f.world = p;
  for (auto& b : buckets) {
    const auto t = g.allreduce_min(b.t);  // the last arriving rank's: the others waited for it
    f.elements.push_back(b.elements);
    f.seconds.push_back(std::max(0.0, std::accumulate(t.begin(), t.end(), 0.0) / double(t.size())));
    f.se_s.push_back(standard_error_of_mean(t));
  }
  out.note = "all-gather floor, free-running (" + std::to_string(p) + " ranks, ~" + ms_text(gap_s) +
             " busy before each bucket): " + ms_text(f.seconds.front()) + " at " + std::to_string(f.elements.front()) +
             (f.elements.size() > 1 ? " ... " + ms_text(f.seconds.back()) + " at " + std::to_string(f.elements.back()) : "") +
             " elements, mean of " + std::to_string(reps) + " rounds";
  out.floor = std::move(f);
  return out;
}

}  // namespace gcu::calibrate
