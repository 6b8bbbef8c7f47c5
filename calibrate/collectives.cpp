// The collective sweep over c10d (see collectives.h).
#include "calibrate/collectives.h"

#include "calibrate/group_impl.h"
#include "calibrate/stats.h"
#include "util/clock.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include <sys/resource.h>

namespace gcu::calibrate {

using compress::CollectiveKind;

namespace {

using util::now_s;

// Buffers for one collective call of nccl-tests size `bytes` (float elements).
struct Buffers {
  std::vector<at::Tensor> inputs;                 // one tensor (this rank's)
  std::vector<std::vector<at::Tensor>> lists;     // all-gather outputs / reduce-scatter inputs
  std::vector<at::Tensor> outputs;                // reduce-scatter output
};

Buffers make_buffers(CollectiveKind k, int64_t bytes, int world, torch::Device dev) {
  const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(dev);
  const int64_t count = bytes / 4;
  Buffers b;
  switch (k) {
    case CollectiveKind::AllReduce:
    case CollectiveKind::Broadcast:
      b.inputs = {torch::ones({count}, opts)};
      break;
    case CollectiveKind::AllGather: {
      const int64_t per = count / world;
      b.inputs = {torch::ones({per}, opts)};
      b.lists.resize(1);
      for (int r = 0; r < world; ++r) b.lists[0].push_back(torch::empty({per}, opts));
      break;
    }
    case CollectiveKind::ReduceScatter: {
      const int64_t per = count / world;
      b.outputs = {torch::empty({per}, opts)};
      b.lists.resize(1);
      for (int r = 0; r < world; ++r) b.lists[0].push_back(torch::ones({per}, opts));
      break;
    }
  }
  return b;
}

void idle(const SweepOptions& opt) { spend_gap(opt.idle_gap_s, opt.busy_gap); }

void run_once(Backend& pg, CollectiveKind k, Buffers& b) {
  switch (k) {
    case CollectiveKind::AllReduce: pg.allreduce(b.inputs)->wait(); break;
    case CollectiveKind::AllGather: pg.allgather(b.lists, b.inputs)->wait(); break;
    case CollectiveKind::ReduceScatter: pg.reduce_scatter(b.outputs, b.lists)->wait(); break;
    case CollectiveKind::Broadcast: pg.broadcast(b.inputs)->wait(); break;
  }
  if (b.inputs.empty() ? false : b.inputs[0].is_cuda()) torch::cuda::synchronize();
}

}  // namespace

std::vector<int64_t> sweep_sizes(const SweepOptions& opt, int world) {
  if (opt.min_bytes < 1 || opt.max_bytes < opt.min_bytes || !(opt.factor > 1) || !(opt.fine_factor > 1))
    throw std::invalid_argument("collective sweep: need 1 <= min_bytes <= max_bytes and factors > 1 (got " +
                                std::to_string(opt.min_bytes) + ", " + std::to_string(opt.max_bytes) +
                                ", " + std::to_string(opt.factor) + ", " + std::to_string(opt.fine_factor) + ")");
  const int64_t unit = 4LL * world;
  std::vector<int64_t> out;
  for (double x = static_cast<double>(opt.min_bytes); x <= opt.max_bytes * 1.0000001;) {
    int64_t b = std::max<int64_t>(unit, static_cast<int64_t>(std::llround(x / unit)) * unit);
    if (out.empty() || b > out.back()) out.push_back(b);
    const double next = x * (x >= opt.fine_from_bytes * 0.9999999 ? opt.fine_factor : opt.factor);
    // Land exactly on fine_from_bytes when stepping over it (keeps the powers of two).
    x = x < opt.fine_from_bytes * 0.9999999 && next > opt.fine_from_bytes * 1.0000001
            ? static_cast<double>(opt.fine_from_bytes)
            : next;
  }
  return out;
}

namespace {

// Involuntary context switches of this process (all threads): preemptions.
long preemptions() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_nivcsw;
}

struct SizeRun {
  int64_t bytes = 0;
  Buffers b;
  int target = 0;            // timed calls wanted
  std::vector<double> t;     // this rank's times
  std::vector<double> hit;   // 1 when this rank was preempted during the call
};

// Probes support with the smallest size (Gloo in 1.13 throws for reduce-scatter); every
// rank throws alike, so no rank is left waiting. False (with s's note) when unsupported.
bool probe_support(Group& g, Backend& pg, CollectiveKind kind, int64_t bytes, CollectiveSweep& s,
                   const Progress& progress) {
  try {
    auto b = make_buffers(kind, bytes, g.world_size(), g.impl().device);
    run_once(pg, kind, b);
  } catch (const std::exception& e) {
    s.supported = false;
    std::string what = e.what();
    s.note = g.backend() + " does not support " + compress::collective_name(kind) + ": " +
             what.substr(0, what.find('\n'));
    if (progress) progress("calibrate: collectives: " + s.note);
    g.barrier();
    return false;
  }
  return true;
}

// The time budget of one collective: its share (0: none) and when it started.
struct KindBudget {
  double share_s = 0;
  double start_s = 0;
};

// Warm-up, ascending; sizes whose warm-up no longer fits the budget are dropped. Each
// size's timed calls are planned from its warm-up; then, when the plan does not fit what
// is left of the share, fewer calls everywhere.
std::vector<SizeRun> warm_up(Group& g, Backend& pg, CollectiveKind kind, const std::vector<int64_t>& sizes,
                             const SweepOptions& opt, const KindBudget& budget, CollectiveSweep& s) {
  const double kind_budget_s = budget.share_s, kind_start = budget.start_s;
  std::vector<SizeRun> runs;
  double planned_s = 0;
  for (int64_t bytes : sizes) {
    if (kind_budget_s > 0 && g.allreduce_max(now_s() - kind_start) > 0.4 * kind_budget_s) {
      s.note = "sweep stopped at " + std::to_string(runs.empty() ? 0 : runs.back().bytes) +
               " bytes by the time budget";
      break;
    }
    SizeRun r;
    r.bytes = bytes;
    r.b = make_buffers(kind, bytes, g.world_size(), g.impl().device);
    std::vector<double> warm;
    for (int i = 0; i < std::max(1, opt.warmup); ++i) {
      g.barrier();
      idle(opt);
      const double t0 = now_s();
      run_once(pg, kind, r.b);
      warm.push_back(now_s() - t0);
    }
    const double one = std::max(g.allreduce_max(median(warm)), 1e-7);
    const bool large = bytes >= opt.fine_from_bytes;
    const int lo = large ? std::max(opt.min_iters, opt.min_iters_large) : opt.min_iters;
    const double target_s = large ? std::max(opt.target_s_per_size, opt.target_s_per_large_size) : opt.target_s_per_size;
    r.target = std::clamp(static_cast<int>(target_s / one), lo, std::max(lo, opt.max_iters));
    planned_s += r.target * (one + 1e-4 + opt.idle_gap_s);  // + a barrier and the gap
    runs.push_back(std::move(r));
  }
  // Fewer calls everywhere when the plan does not fit what is left of the share.
  if (kind_budget_s > 0) {
    const double avail_s = kind_budget_s - g.allreduce_max(now_s() - kind_start);
    if (planned_s > avail_s) {
      const double scale = std::max(0.0, avail_s) / planned_s;
      for (auto& r : runs) r.target = std::max(opt.min_iters, static_cast<int>(r.target * scale));
    }
  }
  // Every rank must make the same calls: agree on the counts (a rank's clock and budget
  // differ from another's by a little, and a count differing by one call desyncs them).
  std::vector<double> targets;
  for (const auto& r : runs) targets.push_back(r.target);
  targets = g.allreduce_max(targets);
  for (size_t i = 0; i < runs.size(); ++i) runs[i].target = static_cast<int>(targets[i]);
  return runs;
}

// Interleaved rounds in a random order (the same on every rank) until every size has its
// timed calls, or, over budget, its minimum.
void timed_rounds(Group& g, Backend& pg, CollectiveKind kind, const SweepOptions& opt, const KindBudget& budget,
                  std::vector<SizeRun>& runs) {
  std::mt19937_64 rng(opt.seed * 1000003 + static_cast<uint64_t>(kind));
  // Free-running gaps: this rank's own stream (the size order above stays shared).
  std::mt19937_64 gap_rng(opt.seed * 7919 + static_cast<uint64_t>(g.rank()) * 104729 + static_cast<uint64_t>(kind));
  std::uniform_real_distribution<double> jitter(0.5, 1.5);
  std::vector<size_t> order(runs.size());
  for (int round = 0;; ++round) {
    order.clear();
    for (size_t i = 0; i < runs.size(); ++i)
      if (static_cast<int>(runs[i].t.size()) < runs[i].target) order.push_back(i);
    if (order.empty()) break;
    // Over budget: stop once every size has its minimum (decided together).
    if (budget.share_s > 0 && round >= opt.min_iters && g.allreduce_max(now_s() - budget.start_s) > budget.share_s)
      break;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) {
      auto& r = runs[i];
      if (opt.free_running) {
        spend_gap(opt.idle_gap_s * jitter(gap_rng), true);
      } else {
        g.barrier();
        idle(opt);
      }
      const long p0 = preemptions();
      const double t0 = now_s();
      run_once(pg, kind, r.b);
      const double dt = now_s() - t0;
      r.t.push_back(dt);
      r.hit.push_back(preemptions() != p0 ? 1.0 : 0.0);
    }
  }
}

// One size's row: an aligned call takes as long as its slowest rank, a free-running one as
// long as its last arriving rank (the smallest time); it is disturbed if any rank was
// preempted.
SweepRow size_row(Group& g, const SweepOptions& opt, const SizeRun& r) {
  std::vector<double> t;
  t = opt.free_running ? g.allreduce_min(r.t) : g.allreduce_max(r.t);
  const auto hit = g.allreduce_max(r.hit);
  std::vector<double> clean;
  for (size_t i = 0; i < t.size(); ++i)
    if (hit[i] == 0) clean.push_back(t[i]);
  SweepRow row;
  row.bytes = r.bytes;
  row.count = r.bytes / 4;
  row.calls = static_cast<int64_t>(t.size());
  row.disturbed = row.calls - static_cast<int64_t>(clean.size());
  const size_t enough = std::max<size_t>(3, t.size() / 5);
  row.time_s = summarize(clean.size() >= enough ? clean : t, 0);
  row.time_s.discarded = opt.warmup;
  return row;
}

}  // namespace

std::vector<CollectiveSweep> sweep_collectives(Group& g, const SweepOptions& options,
                                               const Progress& progress) {
  // The budget agreed by all ranks (each computed its own from its clock); the call counts
  // follow from it. A gap that differs between ranks changes timing only.
  SweepOptions opt = options;
  opt.budget_s = -g.allreduce_max(-opt.budget_s);
  auto& pg = *g.impl().pg;
  const int world = g.world_size();
  const auto sizes = sweep_sizes(opt, world);
  std::vector<CollectiveSweep> out;
  const double t_start = now_s();
  const double n_kinds = static_cast<double>(opt.kinds.size());
  int kinds_done = 0;
  for (auto kind : opt.kinds) {
    CollectiveSweep s;
    s.kind = kind;
    s.world = world;
    if (world < 2) {
      s.supported = false;
      s.note = "one rank: nothing to communicate (launch >= 2 ranks)";
      out.push_back(s);
      continue;
    }
    if (!probe_support(g, pg, kind, sizes.front(), s, progress)) {
      out.push_back(s);
      continue;
    }
    // This collective's share of what is left of the budget (unsupported ones take none).
    KindBudget budget;
    // Agreed by all ranks (their budgets may differ by their clocks): the decisions below
    // that use it must come out the same everywhere.
    budget.share_s =
        opt.budget_s > 0 ? (opt.budget_s - g.allreduce_max(now_s() - t_start)) / std::max(1.0, n_kinds - kinds_done)
                         : 0;
    budget.share_s = -g.allreduce_max(-budget.share_s);
    ++kinds_done;
    budget.start_s = now_s();
    std::vector<SizeRun> runs = warm_up(g, pg, kind, sizes, opt, budget, s);
    timed_rounds(g, pg, kind, opt, budget, runs);
    for (auto& r : runs) {
      const SweepRow row = size_row(g, opt, r);
      s.rows.push_back(row);
      if (progress && r.bytes >= (1 << 20))
        progress("calibrate: " + std::string(compress::collective_name(kind)) + " " +
                 std::to_string(r.bytes >> 10) + " KiB: " + std::to_string(row.time_s.median * 1e3) + " ms (" +
                 std::to_string(row.calls) + " calls, " + std::to_string(row.disturbed) + " disturbed)");
    }
    out.push_back(s);
  }
  return out;
}

// The gap that precedes a call in training (SweepOptions::idle_gap_s): asleep, or busy
// touching a 16 MiB buffer (SweepOptions::busy_gap).
void spend_gap(double gap_s, bool busy) {
  if (!(gap_s > 0)) return;
  if (!busy) {
    std::this_thread::sleep_for(std::chrono::duration<double>(gap_s));
    return;
  }
  static std::vector<float> buf(size_t(4) << 20, 1.0f);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(gap_s);
  size_t i = 0;
  volatile float sink = 0;
  while (std::chrono::steady_clock::now() < end) {
    float acc = 0;
    for (size_t j = 0; j < 4096; ++j, i = (i + 16) % buf.size()) acc += buf[i], buf[i] = acc * 0.5f;
    sink = sink + acc;
  }
}

}  // namespace gcu::calibrate
