// The collective sweep over c10d (see collectives.h).
#include "calibrate/collectives.h"

#include "calibrate/group_impl.h"
#include "calibrate/stats.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

namespace gcu::calibrate {

using compress::CollectiveKind;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

void run_once(c10d::ProcessGroup& pg, CollectiveKind k, Buffers& b) {
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
  if (opt.min_bytes < 1 || opt.max_bytes < opt.min_bytes || !(opt.factor > 1))
    throw std::invalid_argument("collective sweep: need 1 <= min_bytes <= max_bytes and factor > 1 (got " +
                                std::to_string(opt.min_bytes) + ", " + std::to_string(opt.max_bytes) +
                                ", " + std::to_string(opt.factor) + ")");
  const int64_t unit = 4LL * world;
  std::vector<int64_t> out;
  for (double x = static_cast<double>(opt.min_bytes); x <= opt.max_bytes * 1.0000001; x *= opt.factor) {
    int64_t b = std::max<int64_t>(unit, static_cast<int64_t>(std::llround(x / unit)) * unit);
    if (out.empty() || b != out.back()) out.push_back(b);
  }
  return out;
}

std::vector<CollectiveSweep> sweep_collectives(Group& g, const SweepOptions& opt,
                                               const Progress& progress) {
  auto& pg = *g.impl().pg;
  const int world = g.world_size();
  const auto sizes = sweep_sizes(opt, world);
  std::vector<CollectiveSweep> out;
  const double t_start = now_s();
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
    // Probe support with the smallest size (Gloo in 1.13 throws for reduce-scatter);
    // every rank throws alike, so no rank is left waiting.
    try {
      auto b = make_buffers(kind, sizes.front(), world, g.impl().device);
      run_once(pg, kind, b);
    } catch (const std::exception& e) {
      s.supported = false;
      std::string what = e.what();
      s.note = g.backend() + " does not support " + compress::collective_name(kind) + ": " +
               what.substr(0, what.find('\n'));
      if (progress) progress("calibrate: collectives: " + s.note);
      g.barrier();
      out.push_back(s);
      continue;
    }
    for (int64_t bytes : sizes) {
      if (opt.budget_s > 0 && g.allreduce_max(now_s() - t_start) > opt.budget_s) {
        s.note = "sweep stopped at " + std::to_string(s.rows.empty() ? 0 : s.rows.back().bytes) +
                 " bytes by the time budget";
        break;
      }
      auto b = make_buffers(kind, bytes, world, g.impl().device);
      std::vector<double> warm;
      for (int i = 0; i < opt.warmup; ++i) {
        g.barrier();
        const double t0 = now_s();
        run_once(pg, kind, b);
        warm.push_back(now_s() - t0);
      }
      const double one = g.allreduce_max(warm.empty() ? 1e-3 : median(warm));
      const int iters = std::clamp(static_cast<int>(opt.target_s_per_size / std::max(one, 1e-7)),
                                   opt.min_iters, opt.max_iters);
      std::vector<double> t(iters);
      for (int i = 0; i < iters; ++i) {
        g.barrier();
        const double t0 = now_s();
        run_once(pg, kind, b);
        t[i] = now_s() - t0;
      }
      t = g.allreduce_max(t);  // a call takes as long as its slowest rank
      SweepRow row;
      row.bytes = bytes;
      row.count = bytes / 4;
      row.time_s = summarize(t, 0);
      row.time_s.discarded = opt.warmup;
      s.rows.push_back(row);
      if (progress && bytes >= (1 << 20))
        progress("calibrate: " + std::string(compress::collective_name(kind)) + " " +
                 std::to_string(bytes >> 20) + " MiB: " + std::to_string(row.time_s.median * 1e3) + " ms");
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace gcu::calibrate
