// One rank of a compressed data-parallel training job: run_train() (train_options.h).
// Set-up order: options and scheme are checked before the rendezvous (bad arguments fail
// fast on every rank), then the process group, the model (same seed everywhere, then
// rank 0's weights broadcast), data, optimizer, reducer, optional resume; then the loop
// (data, forward, backward with overlapped reduction, exposed communication, optimizer),
// periodic evaluation, checkpoints and the JSON-lines log.
//
// --device cuda (GPU path, gpu.h): the model, data and gradient buckets live on GPU
// LOCAL_RANK; buckets are reduced by the CUDA compressors over NCCL (gpu::make_nccl_
// communicator); Gloo still carries the set-up broadcasts, batch-norm buffers (staged
// through the host) and evaluation counts. Phase boundaries synchronize the device, so
// the breakdown is in device time.
#include "trainer/data/dataset.h"
#include "trainer/models/registry.h"
#include "trainer/runtime/checkpoint.h"
#include "trainer/runtime/gpu.h"
#include "trainer/runtime/optim.h"
#include "trainer/runtime/pg_communicator.h"
#include "trainer/runtime/process_group.h"
#include "trainer/runtime/reducer.h"
#include "trainer/runtime/train_options.h"
#include "trainer/runtime/trainlog.h"
#include "trainer/runtime/watchdog.h"

#include "compressors/registry.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

namespace gcu::trainer {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void check_options(const TrainOptions& o) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw TrainError(what);
  };
  need(o.batch >= 1, "--batch must be >= 1, got " + std::to_string(o.batch));
  need(o.iters >= 1, "--iters must be >= 1, got " + std::to_string(o.iters));
  need(o.warmup >= 0, "--warmup must be >= 0, got " + std::to_string(o.warmup));
  need(o.eval_every >= 0, "--eval-every must be >= 0, got " + std::to_string(o.eval_every));
  need(o.target_acc >= 0 && o.target_acc <= 1,
       "--target-acc must be in [0, 1], got " + std::to_string(o.target_acc));
  need(o.data == "fashion-mnist" || o.data == "synthetic",
       "unknown --data '" + o.data + "' (expected fashion-mnist or synthetic)");
  need(o.device == "cpu" || o.device == "cuda",
       "unknown --device '" + o.device + "' (expected cpu or cuda)");
  need(o.backend == "auto" || o.backend == "gloo" || o.backend == "nccl",
       "unknown --backend '" + o.backend + "' (expected auto, gloo or nccl)");
  need(!(o.device == "cpu" && o.backend == "nccl"), "--backend nccl needs --device cuda");
  need(!(o.device == "cuda" && o.backend == "gloo"),
       "--device cuda reduces gradients with NCCL: use --backend auto or nccl, not gloo");
  need(o.timeout_s > 0, "--timeout must be > 0 s, got " + std::to_string(o.timeout_s));
  need(o.first_bucket_mib > 0 && o.bucket_cap_mib > 0, "bucket sizes must be > 0 MiB");
  need((o.target_acc == 0 && o.eval_every == 0) || o.data == "fashion-mnist",
       "evaluation (--eval-every / --target-acc) needs --data fashion-mnist");
  need(!o.resume || !o.checkpoint.empty(), "--resume needs --checkpoint <prefix>");
}

struct Evaluator {
  std::unique_ptr<EvalIterator> it;
  // Test accuracy over all ranks' slices (each rank evaluates its own slice).
  double accuracy(Net& net, PgCommunicator& comm) {
    torch::NoGradGuard ng;
    net.eval();
    it->reset();
    Batch b;
    int64_t counts[2] = {0, 0};
    while (it->next(b)) {
      auto pred = net.forward(b.input).argmax(1);
      counts[0] += pred.eq(b.target).sum().item<int64_t>();
      counts[1] += b.target.size(0);
    }
    net.train();
    comm.set_context("evaluation");
    comm.all_reduce(counts, 2, compress::WireType::U64, compress::ReduceOp::Sum);
    return counts[1] ? static_cast<double>(counts[0]) / static_cast<double>(counts[1]) : 0.0;
  }
};

void dump_params(const std::string& path, Net& net) {
  torch::NoGradGuard ng;
  std::vector<torch::Tensor> flat;
  for (auto& p : net.parameters()) flat.push_back(p.detach().reshape({-1}).cpu());
  auto all = torch::cat(flat).contiguous();
  try {
    util::write_file_atomic(path, std::string_view(static_cast<const char*>(all.data_ptr()),
                                                   static_cast<size_t>(all.numel()) * 4));
  } catch (const util::FileError& e) {
    throw TrainError(e.what());
  }
}
}  // namespace

// --device cuda: checks, before any rendezvous, that this binary and LibTorch can run on
// GPU LOCAL_RANK, and makes it current. Returns the torch device.
torch::Device select_device(const TrainOptions& o, const RankInfo& info) {
  if (o.device != "cuda") return torch::kCPU;
  if (!gpu::built()) gpu::set_device(0);  // throws the "built without the GPU path" error
  if (!torch::cuda::is_available())
    throw TrainError("--device cuda: LibTorch " TORCH_VERSION " has no CUDA at run time (a "
                     "CPU-only LibTorch, or no GPU visible); use --device cpu, or build gcu "
                     "against a CUDA LibTorch (docs/trainer.md, GPU path)");
  const int64_t n = static_cast<int64_t>(torch::cuda::device_count());
  if (info.local_rank < 0 || info.local_rank >= n)
    throw TrainError("--device cuda: LOCAL_RANK " + std::to_string(info.local_rank) + " but " +
                     std::to_string(n) + " GPU(s) visible (one rank per GPU; check "
                     "CUDA_VISIBLE_DEVICES and the ranks per node)");
  gpu::set_device(info.local_rank);
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(info.local_rank));
}

int run_train(const TrainOptions& o) {
  check_options(o);
  if (o.threads > 0) {
    torch::set_num_threads(o.threads);
  }
  const RankInfo info = rank_info_from_env();
  const torch::Device device = select_device(o, info);
  const bool on_gpu = device.is_cuda();
  auto sync = [on_gpu] {
    if (on_gpu) gpu::synchronize();
  };
  std::unique_ptr<compress::Compressor> compressor;
  try {
    compressor = compress::make_compressor(o.scheme, on_gpu ? compress::Device::CUDA
                                                            : compress::Device::CPU);
  } catch (const compress::CompressorError& e) {
    throw TrainError(std::string("--scheme: ") + e.what());
  }
  const auto mode = parse_reduce_mode(o.mode);
  OptimizerConfig oc{o.optimizer, o.lr,       o.momentum,   o.weight_decay, o.schedule,
                     o.warmup_iters, o.step_every, o.step_gamma, o.iters};
  validate(oc);

  torch::manual_seed(o.seed);
  std::shared_ptr<Net> net;
  try {
    net = make_net(o.model);
  } catch (const ModelError& e) {
    throw TrainError(std::string("--model: ") + e.what());
  }
  if (on_gpu) net->to(device);
  const auto shape = net->input_shape(1);
  const int64_t image = shape.size() == 4 ? shape[2] : 28;
  std::unique_ptr<BatchSource> source;
  Evaluator evaluator;
  const bool evaluating = o.eval_every > 0 || o.target_acc > 0;
  try {
    if (o.data == "synthetic") {
      source = std::make_unique<SyntheticSource>(*net, o.batch, device, o.seed, info.rank);
    } else {
      const auto dir = o.data_dir.empty() ? prepare_fashion_mnist()
                                          : prepare_fashion_mnist(fashion_mnist_package_dir(), o.data_dir);
      LoaderOptions lo;
      lo.rank = info.rank;
      lo.world_size = info.world_size;
      lo.batch_size = o.batch;
      lo.seed = o.seed;
      lo.image = image;
      lo.device = device;
      source = std::make_unique<ShardedLoader>(load_fashion_mnist(true, dir), lo);
      if (evaluating) {
        auto test = load_fashion_mnist(false, dir);
        if (o.eval_samples > 0 && o.eval_samples < test.size()) {
          test.images = test.images.narrow(0, 0, o.eval_samples);
          test.labels = test.labels.narrow(0, 0, o.eval_samples);
        }
        evaluator.it = std::make_unique<EvalIterator>(test, 500, device, image,
                                                      info.rank, info.world_size);
      }
    }
  } catch (const DataError& e) {
    throw TrainError(std::string("--data: ") + e.what());
  }

  Watchdog watchdog(o.timeout_s + 60.0, info.rank);
  DistContext ctx = init_process_group(info, {o.timeout_s, ""});
  PgCommunicator comm(ctx);
  comm.set_context("the initial parameter broadcast");
  broadcast_module_state(*net, comm);

  std::vector<torch::Tensor> params;
  for (auto& p : net->parameters())
    if (p.requires_grad()) params.push_back(p);
  auto optimizer = make_optimizer(params, oc);
  ReducerOptions ro;
  ro.first_bucket_bytes = static_cast<int64_t>(o.first_bucket_mib * (1 << 20));
  ro.bucket_cap_bytes = static_cast<int64_t>(o.bucket_cap_mib * (1 << 20));
  ro.mode = mode;
  // GPU: buckets go over NCCL (unique id broadcast over Gloo); the comm thread makes the
  // rank's device current and the step timing waits for the device.
  std::unique_ptr<compress::Communicator> nccl;
  if (on_gpu) {
    comm.set_context("the NCCL set-up");
    nccl = gpu::make_nccl_communicator(comm, info.local_rank);
    const int dev = info.local_rank;
    ro.thread_init = [dev] { gpu::set_device(dev); };
    ro.device_sync = [] { gpu::synchronize(); };
  }
  Reducer reducer(params, *compressor, nccl ? *nccl : static_cast<compress::Communicator&>(comm), ro);
  reducer.on_bucket_start = [&comm, &watchdog](int64_t b) {
    comm.set_context("bucket " + std::to_string(b));
    watchdog.beat("bucket " + std::to_string(b));
  };
  const std::vector<torch::Tensor> buffers = net->buffers();
  const bool has_buffers = !buffers.empty();

  TrainState state;
  state.scheme = compressor->spec();
  state.world_size = info.world_size;
  const std::string ckpt = o.checkpoint.empty() ? "" : checkpoint_path(o.checkpoint, info.rank);
  if (o.resume) {
    state = load_checkpoint(ckpt, *net, *optimizer, *compressor, state);
    if (auto* sl = dynamic_cast<ShardedLoader*>(source.get())) sl->seek(state.epoch, state.batch_in_epoch);
  }
  auto save = [&](int64_t iter) {
    if (auto* sl = dynamic_cast<ShardedLoader*>(source.get())) {
      state.epoch = sl->epoch();
      state.batch_in_epoch = sl->batch_in_epoch();
    }
    state.iter = iter;
    save_checkpoint(ckpt, *net, *optimizer, *compressor, state);
  };

  const bool logging = info.rank == 0 || o.log_all_ranks;
  JsonLinesWriter log(logging ? (o.log_all_ranks && o.log != "-" && !o.log.empty()
                                     ? o.log + ".rank" + std::to_string(info.rank)
                                     : o.log)
                              : std::string());
  log.write({{"type", "header"},
             {"schema", kTrainLogSchema},
             {"rank", info.rank},
             {"world_size", info.world_size},
             {"rank_source", info.source},
             {"model", net->spec()},
             {"parameters", net->num_parameters()},
             {"data", o.data},
             {"batch_per_rank", o.batch},
             {"scheme", compressor->spec()},
             {"mode", reduce_mode_name(mode)},
             {"optimizer", o.optimizer},
             {"lr", o.lr},
             {"schedule", o.schedule},
             {"buckets", static_cast<int64_t>(reducer.buckets().size())},
             {"wire_bytes_per_iter", [&] {
                int64_t s = 0;
                for (const auto& b : reducer.buckets()) s += compressor->wire_bytes(b.layout, info.world_size);
                return s;
              }()},
             {"threads", torch::get_num_threads()},
             {"backend", on_gpu ? "nccl" : "gloo"},
             {"device", on_gpu ? "cuda:" + std::to_string(info.local_rank) + " (" +
                                     gpu::device_name(info.local_rank) + ")"
                               : std::string("cpu")},
             {"nccl", on_gpu ? gpu::nccl_version() : std::string()},
             {"gloo_interfaces", ctx.gloo_interfaces},
             {"timeout_s", o.timeout_s},
             {"warmup_iters", o.warmup},
             {"resumed_from_iter", o.resume ? state.iter : 0}});

  TimingSummary summary;
  const auto wall0 = Clock::now();
  double eval_s = 0;
  double last_acc = -1;
  bool reached = false;
  double tta_s = 0, tta_wall_s = 0;
  int64_t tta_iter = -1;
  double loss_first = -1, loss_last = -1;
  int64_t iter = state.iter;
  for (; iter < o.iters; ++iter) {
    if (info.rank == o.stall_rank && iter == o.stall_at_iter) {
      std::fprintf(stderr, "rank %d: stalling at iteration %lld (--stall-at-iter)\n", info.rank,
                   static_cast<long long>(iter));
      std::this_thread::sleep_for(std::chrono::hours(24));
    }
    watchdog.beat("iteration " + std::to_string(iter));
    torch::manual_seed(o.seed * 1000003ULL + static_cast<uint64_t>(iter));  // dropout etc.
    IterTimes t;
    const auto t0 = Clock::now();
    Batch batch = source->next_batch();
    sync();
    const auto t1 = Clock::now();
    if (has_buffers) {  // batch-norm statistics from rank 0, like DDP's broadcast_buffers
      comm.set_context("the buffer broadcast");
      broadcast_tensors(buffers, comm, 0);
    }
    auto loss = torch::nn::functional::cross_entropy(net->forward(batch.input), batch.target);
    sync();
    const auto t2 = Clock::now();
    reducer.zero_grad();  // keeps the gradients as bucket views (reducer.h)
    reducer.begin_iteration();
    loss.backward();
    sync();
    const auto t3 = Clock::now();
    const ReduceTimes rt = reducer.finish_iteration();
    const auto t4 = Clock::now();
    const double lr = lr_at(oc, iter);
    set_lr(*optimizer, lr);
    optimizer->step();
    sync();
    const auto t5 = Clock::now();
    auto dt = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    t.data_s = dt(t0, t1);
    t.forward_s = dt(t1, t2);
    t.backward_s = dt(t2, t3);
    t.comm_exposed_s = dt(t3, t4);
    t.encode_s = rt.steps.encode_s;
    t.collective_s = rt.steps.collective_s;
    t.decode_s = rt.steps.decode_s;
    t.wire_bytes = rt.steps.wire_bytes;
    t.optimizer_s = dt(t4, t5);
    t.total_s = dt(t0, t5);
    state.train_time_s += t.total_s;
    const double loss_v = loss.item<double>();
    if (loss_first < 0) loss_first = loss_v;
    loss_last = loss_v;
    const bool measured = iter - state.iter >= o.warmup;
    if (measured) summary.add(t);
    auto rec = to_json(t);
    rec["type"] = "iter";
    rec["iter"] = iter;
    rec["loss"] = loss_v;
    rec["lr"] = lr;
    rec["measured"] = measured;
    log.write(rec);

    const bool last = iter + 1 == o.iters;
    if (evaluator.it && ((o.eval_every > 0 && (iter + 1) % o.eval_every == 0) || last)) {
      watchdog.beat("evaluation");
      const auto e0 = Clock::now();
      last_acc = evaluator.accuracy(*net, comm);
      eval_s += since(e0);
      const bool hit = o.target_acc > 0 && last_acc >= o.target_acc && !reached;
      if (hit) {
        reached = true;
        tta_s = state.train_time_s;
        tta_wall_s = since(wall0);
        tta_iter = iter + 1;
      }
      log.write({{"type", "eval"}, {"iter", iter + 1}, {"test_acc", last_acc},
                 {"train_time_s", state.train_time_s}, {"wall_s", since(wall0)},
                 {"eval_s", since(e0)}, {"loss", loss_v}});
      if (info.rank == 0 && !o.quiet)
        std::fprintf(stderr, "iter %lld  loss %.4f  test acc %.4f  train time %.2f s\n",
                     static_cast<long long>(iter + 1), loss_v, last_acc, state.train_time_s);
      if (hit) {
        ++iter;
        break;
      }
    }
    if (!ckpt.empty() && o.checkpoint_every > 0 && (iter + 1) % o.checkpoint_every == 0 && !last) {
      save(iter + 1);
      log.write({{"type", "checkpoint"}, {"iter", iter + 1}, {"file", ckpt}});
    }
  }
  if (!ckpt.empty()) {
    save(iter);
    log.write({{"type", "checkpoint"}, {"iter", iter}, {"file", ckpt}});
  }
  watchdog.stop();
  const auto total = summary.total();
  nlohmann::json sum{{"type", "summary"},
                     {"iters_run", iter - (o.resume ? state.iter : 0)},
                     {"final_iter", iter},
                     {"measured_iters", summary.count()},
                     {"timing", summary.to_json()},
                     {"iter_time_median_s", total.median},
                     {"train_time_s", state.train_time_s},
                     {"eval_time_s", eval_s},
                     {"wall_s", since(wall0)},
                     {"loss_first", loss_first},
                     {"loss_last", loss_last},
                     {"final_test_acc", last_acc >= 0 ? nlohmann::json(last_acc) : nlohmann::json()},
                     {"target_acc", o.target_acc},
                     {"reached_target", reached}};
  if (reached) {
    sum["time_to_target_s"] = tta_s;
    sum["time_to_target_wall_s"] = tta_wall_s;
    sum["iters_to_target"] = tta_iter;
  }
  log.write(sum);
  log.close();
  if (!o.dump_params.empty()) {
    dump_params(o.dump_params + ".rank" + std::to_string(info.rank), *net);
  }
  if (info.rank == 0 && !o.quiet)
    std::fprintf(stderr, "done: %lld iterations, median iteration %.4f s, loss %.4f -> %.4f%s\n",
                 static_cast<long long>(iter), total.median, loss_first, loss_last,
                 reached ? (", target reached after " + std::to_string(tta_s) + " s").c_str() : "");
  return 0;
}

}  // namespace gcu::trainer
