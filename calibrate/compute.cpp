// Compute, gamma, overlap contention and gradient collection (see compute.h).
#include "calibrate/compute.h"

#include "calibrate/group_impl.h"
#include "compressors/registry.h"
#include "model/buckets.h"
#include "trainer/data/dataset.h"
#include "trainer/models/registry.h"
#include "trainer/runtime/gpu.h"
#include "trainer/runtime/pg_communicator.h"
#include "trainer/runtime/reducer.h"
#include "util/clock.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gcu::calibrate {
namespace {

using util::now_s;

void sync(const torch::Device& d) {
  if (d.is_cuda()) torch::cuda::synchronize();
}

// The batches compute is timed on (ComputeOptions::data), made as gcu train makes them.
std::unique_ptr<trainer::BatchSource> make_source(const ComputeOptions& o, const trainer::Net& net, int batch_size,
                                                  torch::Device dev, uint64_t seed, int rank, int world) {
  if (o.data == "synthetic") return std::make_unique<trainer::SyntheticSource>(net, batch_size, dev, seed, rank);
  if (o.data != "fashion-mnist")
    throw std::invalid_argument("compute: data '" + o.data + "' (expected synthetic or fashion-mnist)");
  const auto shape = net.input_shape(1);
  if (net.input_kind() != trainer::InputKind::kImage || shape.size() != 4 || shape[2] < 28 || shape[2] != shape[3] ||
      net.input_dtype() != torch::kFloat32 || net.num_classes() < 10)
    throw std::invalid_argument("compute: --compute-data fashion-mnist needs a model that takes square images of "
                                "28x28 or larger (float32, >= 10 classes); " + o.model_spec + " does not (use --compute-data synthetic)");
  trainer::LoaderOptions lo;
  lo.rank = rank;
  lo.world_size = world;
  lo.batch_size = batch_size;
  lo.seed = seed;
  lo.image = shape[2];
  lo.channels = shape[1];
  lo.device = dev;
  try {
    return trainer::make_fashion_mnist_loader(lo);
  } catch (const trainer::DataError& e) {
    throw std::runtime_error(std::string("compute: --compute-data fashion-mnist: ") + e.what());
  }
}

ComputeOptions synthetic(ComputeOptions o) {
  o.data = "synthetic";
  return o;
}

// A net, its optimizer, the batches it trains on and gradient-ready hooks.
struct Trainee {
  std::shared_ptr<trainer::Net> net;
  std::unique_ptr<torch::optim::SGD> opt;
  std::unique_ptr<trainer::BatchSource> source;  // as gcu train's --data (null: batch set by the caller)
  trainer::Batch batch;
  std::vector<torch::Tensor> params;  // registration order
  torch::Device device = torch::kCPU;
  double bwd_start = 0;
  std::vector<double> ready;          // per param (registration order), seconds from bwd start
  // Run inside the forward timing, before the forward: the trainer broadcasts rank 0's
  // batch-norm buffers there every iteration (DDP's broadcast_buffers), and its forward_s
  // includes it.
  std::function<void()> before_forward;
  // The trainer's loop (ComputeOptions::loop == "trainer"): its reducer over these
  // parameters, run between backward and optimizer (untimed), as gcu train does.
  std::unique_ptr<compress::Compressor> none;
  std::unique_ptr<trainer::Reducer> reducer;

  Trainee(const ComputeOptions& o, int batch_size, torch::Device dev, uint64_t seed, int rank = 0, int world = 1)
      : device(dev) {
    torch::manual_seed(seed);
    net = trainer::make_net(o.model_spec);
    net->to(dev);
    params = net->parameters();
    opt = std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(o.lr).momentum(0.9));
    source = make_source(o, *net, batch_size, dev, seed, rank, world);
    batch = source->next_batch();
    ready.assign(params.size(), 0.0);
    for (size_t i = 0; i < params.size(); ++i)
      params[i].register_hook([this, i](const torch::Tensor&) { ready[i] = now_s() - bwd_start; });
  }
  torch::Tensor forward() {
    return net->loss_on(batch);
  }
  // `ro`: the device hooks of the trainer's GPU path (thread_init, device_sync, marks),
  // empty on the CPU; the mode is set here.
  void use_trainer_loop(compress::Communicator& comm, trainer::ReducerOptions ro = {}) {
    none = compress::make_compressor("none", device.is_cuda() ? compress::Device::CUDA : compress::Device::CPU);
    ro.mode = trainer::ReduceMode::After;
    reducer = std::make_unique<trainer::Reducer>(params, *none, comm, ro);
  }
  // One iteration; returns {forward, backward, optimizer} seconds.
  std::array<double, 3> iteration() {
    if (source) batch = source->next_batch();  // untimed, as the trainer's data step
    if (!reducer) opt->zero_grad();
    sync(device);
    const double t0 = now_s();
    if (before_forward) before_forward();
    auto loss = forward();
    sync(device);
    const double t1 = now_s();
    bwd_start = t1;
    if (reducer) {
      // Zeroed between forward and backward and timed as backward, as the trainer does
      // (trainer/runtime/train_loop.cpp): the gradients stay bucket views, and zeroing
      // them is a memset of every parameter (ResNet-18: 45 MB, 2-4 ms on this machine).
      reducer->zero_grad();
      reducer->begin_iteration();
    }
    loss.backward();
    sync(device);
    const double t2 = now_s();
    if (reducer) reducer->finish_iteration();  // the bucket all-reduces: communication, not compute
    const double t_opt = reducer ? now_s() : t2;
    opt->step();
    sync(device);
    const double t3 = now_s();
    return {t1 - t0, t2 - t1, t3 - t_opt};
  }
  // Forward, then a timed backward with `during` running on another thread from the
  // backward's start (joined after the backward; `stop`, when given, is set as the
  // backward ends, for a `during` that loops until told). Returns backward seconds.
  double backward_with(const std::function<void()>& during, std::atomic<bool>* stop = nullptr) {
    if (source) batch = source->next_batch();
    opt->zero_grad();
    auto loss = forward();
    sync(device);
    std::thread th;
    const double t0 = now_s();
    bwd_start = t0;
    if (during) th = std::thread(during);
    loss.backward();
    sync(device);
    const double t1 = now_s();
    if (stop) *stop = true;
    if (th.joinable()) th.join();
    opt->step();
    return t1 - t0;
  }
};

// Synchronous data parallelism waits for the slowest rank at every collective: a step's
// time is the slowest rank's, not rank 0's (on the 2-core test machine rank 0 measured a
// 1.7 ms backward while rank 1 took 3.1 ms and the trainer 4 ms).
// Each statistic is the maximum over the ranks: the rank slowest on median, which the
// profile once took (each iteration waits for ITS slowest rank); now reported beside
// slowest_per_iteration's figures.
Summary slowest_rank(Group& g, Summary s) {
  if (g.world_size() == 1) return s;
  const auto m = g.allreduce_max({s.median, s.p10, s.p90, s.min, s.max, s.mean});
  s.median = m[0];
  s.p10 = m[1];
  s.p90 = m[2];
  s.min = m[3];
  s.max = m[4];
  s.mean = m[5];
  return s;
}

// Timed iterations: o.iters at least, and enough to last o.min_time_s at the warm-up's
// pace (the slowest rank's), at most kMaxComputeIters; agreed by all ranks.
int planned_iters(Group& g, const ComputeOptions& o, const std::vector<double>& fwd_s,
                  const std::vector<double>& bwd_s, const std::vector<double>& opt_s) {
  double one = 0;
  if (!fwd_s.empty()) {
    std::vector<double> it(fwd_s.size());
    for (size_t k = 0; k < it.size(); ++k) it[k] = fwd_s[k] + bwd_s[k] + opt_s[k];
    one = quantile(it, 0.5);
  }
  one = g.allreduce_max(one);
  const double want = one > 0 && o.min_time_s > 0 ? std::ceil(o.min_time_s / one) : 0;
  return static_cast<int>(std::clamp(want, static_cast<double>(o.iters), static_cast<double>(std::max(o.iters, kMaxComputeIters))));
}

// True (on every rank) when, on any rank, the medians of forward + backward over the first
// and the second half of the timed iterations so far differ by more than 20%.
bool halves_disagree(Group& g, int warmup, const std::vector<double>& fwd_s, const std::vector<double>& bwd_s) {
  std::vector<double> it;
  for (size_t k = static_cast<size_t>(warmup); k < fwd_s.size(); ++k) it.push_back(fwd_s[k] + bwd_s[k]);
  double ratio = 1;
  if (it.size() >= 4) {
    const size_t h = it.size() / 2;
    const double a = quantile({it.begin(), it.begin() + h}, 0.5), b = quantile({it.begin() + h, it.end()}, 0.5);
    if (a > 0 && b > 0) ratio = std::max(a, b) / std::min(a, b);
  }
  return g.allreduce_max(ratio) > 1.2;
}

// Per-iteration times of one batch size (warm-up first), and each iteration's ready times.
struct IterationTimes {
  std::vector<double> fwd_s, bwd_s, opt_s;
  std::vector<std::vector<double>> ready;
};

// Each iteration of synchronous data parallelism waits for ITS slowest rank; with more
// ranks than cores (or any per-iteration jitter) that is slower than the rank that is
// slowest on median (4 ranks on 2 cores: forward + backward 9.5-9.9 ms median and
// 10.4-11.5 ms mean, against 7.3-7.9 ms). The iterations are
// aligned (a barrier before each); per iteration the rank with the largest forward +
// backward + optimizer gives all three.
IterationTimes slowest_per_iteration(Group& g, const IterationTimes& it) {
  if (g.world_size() == 1) return it;
  const size_t n = it.fwd_s.size();
  std::vector<double> key(n);
  for (size_t k = 0; k < n; ++k) key[k] = it.fwd_s[k] + it.bwd_s[k] + it.opt_s[k];
  const std::vector<double> worst = g.allreduce_max(key);
  std::vector<double> mine(3 * n, 0.0);  // this rank's times where it was the slowest
  for (size_t k = 0; k < n; ++k)
    if (key[k] >= worst[k]) {
      mine[k] = it.fwd_s[k];
      mine[n + k] = it.bwd_s[k];
      mine[2 * n + k] = it.opt_s[k];
    }
  const std::vector<double> m = g.allreduce_max(mine);
  IterationTimes r;
  r.fwd_s.assign(m.begin(), m.begin() + n);
  r.bwd_s.assign(m.begin() + n, m.begin() + 2 * n);
  r.opt_s.assign(m.begin() + 2 * n, m.end());
  return r;
}

// Warm-up, then the planned timed iterations (all ranks at once, each after a barrier).
IterationTimes time_iterations(Group& g, const ComputeOptions& o, Trainee& t, int b, const Progress& progress) {
  IterationTimes r;
  int timed = o.iters;  // planned after the warm-up, the same on every rank
  bool extended = false;
  for (int i = 0; i < o.warmup + timed; ++i) {
    if (i == o.warmup) timed = planned_iters(g, o, r.fwd_s, r.bwd_s, r.opt_s);
    // A busy phase of the machine that covers one half of the timed iterations shows as
    // halves that disagree: then as many again, and the median of all of them.
    if (i == o.warmup + timed - 1 && !extended && timed >= 10 && halves_disagree(g, o.warmup, r.fwd_s, r.bwd_s)) {
      extended = true;
      timed *= 2;
      if (progress) progress("calibrate: compute batch " + std::to_string(b) +
                             ": the two halves of the timed iterations disagree by more than 20%; timing as many again");
    }
    if (!t.reducer || i == 0) g.barrier();  // the trainer's loop: aligned by its all-reduce
    const auto s = t.iteration();
    r.fwd_s.push_back(s[0]);
    r.bwd_s.push_back(s[1]);
    r.opt_s.push_back(s[2]);
    r.ready.push_back(t.ready);
  }
  return r;
}

}  // namespace

ComputeResult measure_compute(Group& g, const ComputeOptions& o, const Progress& progress) {
  if (o.batch_sizes.empty()) throw std::invalid_argument("compute: no batch sizes given");
  if (o.loop != "trainer" && o.loop != "barrier")
    throw std::invalid_argument("compute: loop '" + o.loop + "' (expected trainer or barrier)");
  ComputeResult res;
  std::vector<std::vector<double>> ready_by_batch;  // registration order
  const bool on_cuda = g.impl().device.is_cuda();
  // The trainer's loop as gcu train runs it: its bucket all-reduces on the Gloo group, or
  // on a GPU over gcu's NCCL communicator (made here as train_setup.cpp makes it, its
  // unique id sent over Gloo), with the trainer's device hooks (on one
  // H100 the barrier timing came out 1.16-1.22x short of the trainer's).
  const bool trainer_loop = o.loop == "trainer" && g.impl().ctx.gloo && (!on_cuda || trainer::gpu::built());
  if (o.loop == "trainer" && !trainer_loop && progress)
    progress(std::string("calibrate: compute: the trainer's loop needs ") +
             (on_cuda ? "the trainer's GPU path (this gcu was built without CUDA + NCCL)" : "a Gloo group") +
             "; timing each iteration after a barrier instead (--compute-loop barrier)");
  std::unique_ptr<trainer::PgCommunicator> comm;  // outlives every Trainee's reducer
  std::unique_ptr<compress::Communicator> nccl;
  std::unique_ptr<trainer::DeviceMarks> marks;
  trainer::ReducerOptions device_hooks;
  if (trainer_loop || (g.world_size() > 1 && g.impl().ctx.gloo)) {
    comm = std::make_unique<trainer::PgCommunicator>(g.impl().ctx);
    comm->set_context(trainer_loop ? "calibrate: compute in the trainer's loop" : "calibrate: buffer broadcast");
  }
  if (trainer_loop && on_cuda) {
    const int dev = g.impl().ctx.info.local_rank;
    nccl = trainer::gpu::make_nccl_communicator(*comm, dev, g.impl().ctx.timeout_s);
    marks = trainer::gpu::make_device_marks();
    device_hooks.thread_init = [dev] { trainer::gpu::set_device(dev); };
    device_hooks.device_sync = [c = nccl.get()] { trainer::gpu::synchronize(*c); };
    device_hooks.device_marks = marks.get();
  }
  for (int b : o.batch_sizes) {
    if (b < 1) throw std::invalid_argument("compute: batch size " + std::to_string(b) + " must be >= 1");
    Trainee t(o, b, g.impl().device, 1, g.rank(), g.world_size());
    // As the trainer does (trainer/runtime/train_loop.cpp): buffers from rank 0 over the
    // Gloo group, timed in forward; with the trainer's loop, its bucket all-reduces too.
    std::vector<torch::Tensor> buffers = t.net->buffers();
    if (comm && !buffers.empty() && g.world_size() > 1)
      t.before_forward = [&buffers, &comm] { trainer::broadcast_tensors(buffers, *comm, 0); };
    if (trainer_loop) t.use_trainer_loop(nccl ? *nccl : static_cast<compress::Communicator&>(*comm), device_hooks);
    if (res.model_name.empty()) {
      res.model_name = t.net->spec();
      res.parameters = t.net->num_parameters();
    }
    const IterationTimes it = time_iterations(g, o, t, b, progress);
    ComputeTimes ct;
    ct.batch_size = b;
    const double own_backward_s = summarize(it.bwd_s, o.warmup).median;
    const IterationTimes slow = slowest_per_iteration(g, it);
    ct.forward_s = summarize(slow.fwd_s, o.warmup);
    ct.backward_s = summarize(slow.bwd_s, o.warmup);
    ct.optimizer_s = summarize(slow.opt_s, o.warmup);
    const Summary rank_fwd = slowest_rank(g, summarize(it.fwd_s, o.warmup));
    const Summary rank_bwd = slowest_rank(g, summarize(it.bwd_s, o.warmup));
    // This rank's gradient-ready times, stretched to the slowest rank's backward.
    std::vector<double> ready_s = elementwise_median(it.ready, o.warmup);
    if (own_backward_s > 0)
      for (double& r : ready_s) r *= profile_value(ct.backward_s) / own_backward_s;
    ready_by_batch.push_back(std::move(ready_s));
    res.times.push_back(ct);
    if (progress)
      progress("calibrate: compute batch " + std::to_string(b) + (t.reducer ? " in the trainer's loop" : " after barriers") +
               " (slowest rank of each iteration, mean): forward " +
               std::to_string(profile_value(ct.forward_s) * 1e3) + " ms, backward " +
               std::to_string(profile_value(ct.backward_s) * 1e3) + " ms, optimizer " +
               std::to_string(profile_value(ct.optimizer_s) * 1e3) + " ms (medians " +
               std::to_string(ct.forward_s.median * 1e3) + ", " + std::to_string(ct.backward_s.median * 1e3) +
               " ms; the slowest rank's medians " + std::to_string(rank_fwd.median * 1e3) + ", " +
               std::to_string(rank_bwd.median * 1e3) + " ms)");
  }
  // Tensors in observed gradient-ready order (of the largest batch; ties: reverse
  // registration order, i.e. backward order), ready times made non-decreasing.
  Trainee t(synthetic(o), 1, torch::kCPU, 1);
  const auto plist = t.net->parameter_list();
  const size_t n = plist.size();
  const size_t ref = std::max_element(o.batch_sizes.begin(), o.batch_sizes.end()) - o.batch_sizes.begin();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ready_by_batch[ref][a] < ready_by_batch[ref][b];
  });
  for (size_t i : order) res.tensors.push_back({plist[i].name, plist[i].shape});
  for (size_t k = 0; k < res.times.size(); ++k) {
    double run = 0;
    for (size_t i : order) {
      run = std::max(run, ready_by_batch[k][i]);
      res.times[k].ready_s.push_back(std::min(run, profile_value(res.times[k].backward_s)));
    }
  }
  return res;
}

GammaResult measure_gamma(Group& g, const ComputeOptions& o, int batch_size, const Progress& progress) {
  Trainee t(o, batch_size, g.impl().device, 2);
  std::vector<model::TensorInfo> tensors;
  const auto plist = t.net->parameter_list();
  for (auto it = plist.rbegin(); it != plist.rend(); ++it) tensors.push_back({it->name, it->shape});
  const auto buckets = model::plan_buckets(tensors);
  GammaResult r;
  r.buckets = static_cast<int>(buckets.size());
  std::vector<torch::Tensor> bufs;
  for (const auto& b : buckets) {
    bufs.push_back(torch::ones({b.numel}, torch::TensorOptions().device(g.impl().device)));
    r.bucket_bytes += b.bytes;
    r.each_bucket_bytes.push_back(b.bytes);
  }
  auto& pg = *g.impl().pg_bg;
  // The thread starts with the backward; its own clock gives how long the all-reduces ran
  // beside it (the model slows backward only while a collective runs: state.h).
  double comm_start = 0, comm_end = 0;
  auto comm = [&]() {
    comm_start = now_s();
    for (auto& b : bufs) {
      std::vector<at::Tensor> v{b};
      pg.allreduce(v)->wait();
    }
    comm_end = now_s();
  };
  std::vector<double> alone, over, comm_times, comm_alone;
  for (int i = 0; i < o.warmup + o.iters; ++i) {
    g.barrier();
    alone.push_back(t.backward_with({}));
    g.barrier();
    over.push_back(t.backward_with(g.world_size() > 1 ? std::function<void()>(comm) : std::function<void()>()));
    comm_times.push_back(g.world_size() > 1 ? comm_end - comm_start : 0.0);  // joined by backward_with
    if (g.world_size() > 1) {  // the same all-reduces with nothing beside them (comm_contention)
      g.barrier();
      comm();
      comm_alone.push_back(comm_end - comm_start);
    } else {
      comm_alone.push_back(0.0);
    }
  }
  r.alone_s = summarize(alone, o.warmup);
  r.overlapped_s = summarize(over, o.warmup);
  r.comm_s = summarize(comm_times, o.warmup);
  r.comm_alone_s = summarize(comm_alone, o.warmup);
  r.gamma = r.overlapped_s.median / r.alone_s.median;
  if (progress)
    progress("calibrate: gamma " + std::to_string(r.gamma) + " (backward " +
             std::to_string(r.alone_s.median * 1e3) + " ms alone, " +
             std::to_string(r.overlapped_s.median * 1e3) + " ms with " + std::to_string(r.buckets) +
             " bucket all-reduces, which ran " + std::to_string(r.comm_s.median * 1e3) + " ms of it; " +
             std::to_string(r.comm_alone_s.median * 1e3) + " ms alone)");
  return r;
}

ContentionResult measure_contention(Group& g, const ComputeOptions& o, int batch_size,
                                    const std::string& scheme, const Progress& progress) {
  Trainee t(o, batch_size, g.impl().device, 3);
  auto c = compress::make_compressor(scheme);
  ContentionResult r;
  r.scheme = c->spec();
  // A bucket-sized gradient: the model's largest DDP bucket.
  std::vector<model::TensorInfo> tensors;
  const auto plist = t.net->parameter_list();
  for (auto it = plist.rbegin(); it != plist.rend(); ++it) tensors.push_back({it->name, it->shape});
  const auto buckets = model::plan_buckets(tensors);
  const auto& big = *std::max_element(buckets.begin(), buckets.end(),
                                      [](const auto& a, const auto& b) { return a.numel < b.numel; });
  std::vector<float> x(big.numel), y(big.numel);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * i) * 1e-3f;
  // The codec runs on its own thread in both cases, with as many OpenMP threads as torch
  // has per rank (two OpenMP teams spinning on a shared core would measure the runtime's
  // spin-waiting, not the contention).
  const int omp_threads = torch::get_num_threads();
  auto set_omp = [omp_threads]() {
#ifdef _OPENMP
    omp_set_num_threads(omp_threads);
#else
    (void)omp_threads;
#endif
  };
  // The codec loops on its own thread until `stop`, timing each call.
  auto codec_loop = [&](std::atomic<bool>& stop, std::vector<double>& calls) {
    set_omp();
    do {
      const double t0 = now_s();
      c->roundtrip(0, x.data(), y.data(), big.layout);
      calls.push_back(now_s() - t0);
    } while (!stop.load());
  };
  std::vector<double> alone, over, bwd_ratio, codec_ratio, alone_calls_all, over_calls_all;
  for (int i = 0; i < o.warmup + o.iters; ++i) {
    g.barrier();
    const double bwd_alone = t.backward_with({});
    g.barrier();
    // The codec alone for as long as the backward took, every rank at once (as beside the
    // backward below): the figure the overlapped calls are compared with sees the same
    // neighbours, not whatever the other ranks happened to be doing.
    std::vector<double> alone_calls, over_calls;
    {
      std::atomic<bool> stop{false};
      std::thread th([&]() { codec_loop(stop, alone_calls); });
      std::this_thread::sleep_for(std::chrono::duration<double>(bwd_alone));
      stop = true;
      th.join();
    }
    g.barrier();
    std::atomic<bool> stop{false};
    const double bwd_over = t.backward_with([&]() { codec_loop(stop, over_calls); }, &stop);
    if (i < o.warmup) continue;
    alone.push_back(bwd_alone);
    over.push_back(bwd_over);
    bwd_ratio.push_back(bwd_over / bwd_alone);
    codec_ratio.push_back(median(over_calls) / median(alone_calls));
    alone_calls_all.insert(alone_calls_all.end(), alone_calls.begin(), alone_calls.end());
    over_calls_all.insert(over_calls_all.end(), over_calls.begin(), over_calls.end());
  }
  r.backward_alone_s = summarize(alone, 0);
  r.backward_overlapped_s = summarize(over, 0);
  r.codec_alone_s = median(alone_calls_all);
  r.codec_overlapped_s = median(over_calls_all);
  const double own_b = median(bwd_ratio), own_c = median(codec_ratio);
  const int world = g.world_size(), rank = g.rank();
  std::vector<double> mine(2 * size_t(world), 0.0);
  mine[2 * size_t(rank)] = own_b;
  mine[2 * size_t(rank) + 1] = own_c;
  const std::vector<double> all = world > 1 ? g.allreduce_sum(mine) : mine;
  for (int k = 0; k < world; ++k) {
    r.rank_backward_slowdown.push_back(all[2 * size_t(k)]);
    r.rank_codec_slowdown.push_back(all[2 * size_t(k) + 1]);
  }
  r.backward_slowdown = median(r.rank_backward_slowdown);
  r.codec_slowdown = median(r.rank_codec_slowdown);
  r.factor = std::sqrt(r.backward_slowdown * r.codec_slowdown);
  if (progress)
    progress("calibrate: contention with " + r.scheme + ": " + std::to_string(r.factor) +
             " (medians over the ranks: backward x" + std::to_string(r.backward_slowdown) + ", codec x" +
             std::to_string(r.codec_slowdown) + "; this rank's backward x" + std::to_string(own_b) +
             ", codec x" + std::to_string(own_c) + ", " + std::to_string(bwd_ratio.size()) + " paired iterations)");
  return r;
}

GradientSet collect_gradients(const ComputeOptions& o, int batch_size, int snapshots, int skip,
                              const Progress& progress) {
  Trainee t(synthetic(o), batch_size, torch::kCPU, 4);  // its batches are set below
  std::unique_ptr<trainer::BatchSource> data;
  const auto shape = t.net->input_shape(1);
  std::string source = "synthetic batches";
  if (o.real_data && shape.size() == 4 && shape[1] == 1 && shape[2] == 28 && shape[3] == 28) {
    try {
      trainer::LoaderOptions lo;
      lo.batch_size = batch_size;
      lo.seed = 4;
      data = trainer::make_fashion_mnist_loader(lo);
      source = "Fashion-MNIST";
    } catch (const std::exception& e) {
      if (progress) progress(std::string("calibrate: no Fashion-MNIST (") + e.what() + "): synthetic gradients");
    }
  }
  GradientSet gs;
  const auto plist = t.net->parameter_list();
  for (auto it = plist.rbegin(); it != plist.rend(); ++it) gs.tensors.push_back({it->name, it->shape});
  t.source.reset();  // batches set here, one per snapshot
  for (int i = 0; i < skip + snapshots; ++i) {
    t.batch = data ? data->next_batch() : t.net->make_synthetic_batch(batch_size, torch::kCPU, 100 + i);
    t.iteration();
    if (i < skip) continue;
    std::vector<float> flat;
    for (auto it = t.params.rbegin(); it != t.params.rend(); ++it) {
      auto gr = it->grad().detach().to(torch::kCPU).contiguous().view({-1});
      flat.insert(flat.end(), gr.data_ptr<float>(), gr.data_ptr<float>() + gr.numel());
    }
    gs.snapshots.push_back(std::move(flat));
  }
  if (progress)
    progress("calibrate: collected " + std::to_string(snapshots) + " gradients (" + source + ")");
  return gs;
}

}  // namespace gcu::calibrate
