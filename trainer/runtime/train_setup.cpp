// Set-up of one rank's training run (train_run.h): local parts first (options, device,
// scheme, model, data: errors before any rendezvous), then the process group, the
// optimizer and the reducer, the resume, and the log header.
#include "trainer/runtime/gpu.h"
#include "trainer/runtime/train_run.h"

#include "compressors/registry.h"

#include <torch/torch.h>

namespace gcu::trainer {

namespace {

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
  need(o.data == "fashion-mnist" || o.data == "synthetic" || o.data == "one-batch",
       "unknown --data '" + o.data + "' (expected fashion-mnist, synthetic or one-batch)");
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
  gpu::register_compressors();
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(info.local_rank));
}

// Training data, and the test split when evaluating (Fashion-MNIST only).
void setup_data(TrainRun& r) {
  const TrainOptions& o = r.opt;
  const auto shape = r.net->input_shape(1);
  const int64_t image = shape.size() == 4 ? shape[2] : kDefaultImageSide;
  try {
    if (o.data == "synthetic" || o.data == "one-batch") {
      r.source = std::make_unique<SyntheticSource>(*r.net, o.batch, r.device, o.seed, r.info.rank,
                                                   /*fresh_labels=*/o.data == "synthetic");
      return;
    }
    if (r.net->input_kind() != InputKind::kImage || shape.size() != 4 || shape[2] < 28 || shape[2] != shape[3] ||
        r.net->input_dtype() != torch::kFloat32 || r.net->num_classes() < 10) {
      throw TrainError("--data " + o.data + " needs a model of square float32 images of 28x28 or larger with >= 10 "
                       "classes; " + r.net->spec() + " is not one (use --data synthetic)");
    }
    const auto dir = o.data_dir.empty() ? prepare_fashion_mnist()
                                        : prepare_fashion_mnist(fashion_mnist_package_dir(), o.data_dir);
    LoaderOptions lo;
    lo.rank = r.info.rank;
    lo.world_size = r.info.world_size;
    lo.batch_size = o.batch;
    lo.seed = o.seed;
    lo.image = image;
    lo.device = r.device;
    r.source = std::make_unique<ShardedLoader>(load_fashion_mnist(true, dir), lo);
    if (o.eval_every > 0 || o.target_acc > 0) {
      auto test = load_fashion_mnist(false, dir);
      if (o.eval_samples > 0 && o.eval_samples < test.size()) {
        test.images = test.images.narrow(0, 0, o.eval_samples);
        test.labels = test.labels.narrow(0, 0, o.eval_samples);
      }
      r.eval = std::make_unique<EvalIterator>(test, kEvalBatch, r.device, image, r.info.rank,
                                              r.info.world_size);
    }
  } catch (const DataError& e) {
    throw TrainError(std::string("--data: ") + e.what());
  }
}

// The parts of set-up that need no other rank: a bad argument fails here, on every rank.
void setup_local(TrainRun& r) {
  const TrainOptions& o = r.opt;
  check_options(o);
  if (o.threads > 0) torch::set_num_threads(o.threads);
  r.info = rank_info_from_env();
  r.device = select_device(o, r.info);
  try {
    r.compressor = compress::make_compressor(o.scheme, r.on_gpu() ? compress::Device::CUDA
                                                                  : compress::Device::CPU);
  } catch (const compress::CompressorError& e) {
    throw TrainError(std::string("--scheme: ") + e.what());
  }
  r.mode = parse_reduce_mode(o.mode);
  r.oc = OptimizerConfig{o.optimizer,    o.lr,         o.momentum,   o.weight_decay, o.schedule,
                         o.warmup_iters, o.step_every, o.step_gamma, o.iters};
  validate(r.oc);
  torch::manual_seed(o.seed);
  try {
    r.net = make_net(o.model);
  } catch (const ModelError& e) {
    throw TrainError(std::string("--model: ") + e.what());
  }
  if (r.on_gpu()) r.net->to(r.device);
  setup_data(r);
}

// Process group, identical start (rank 0's weights), optimizer and reducer.
void setup_distributed(TrainRun& r) {
  const TrainOptions& o = r.opt;
  r.watchdog = std::make_unique<Watchdog>(o.timeout_s + kWatchdogGraceS, r.info.rank);
  r.ctx = init_process_group(r.info, {o.timeout_s, ""});
  r.comm = std::make_unique<PgCommunicator>(r.ctx);
  r.comm->set_context("the initial parameter broadcast");
  broadcast_module_state(*r.net, *r.comm);

  std::vector<torch::Tensor> params;
  for (auto& p : r.net->parameters())
    if (p.requires_grad()) params.push_back(p);
  r.optimizer = make_optimizer(params, r.oc);
  ReducerOptions ro;
  ro.first_bucket_bytes = static_cast<int64_t>(o.first_bucket_mib * (1 << 20));
  ro.bucket_cap_bytes = static_cast<int64_t>(o.bucket_cap_mib * (1 << 20));
  ro.mode = r.mode;
  // GPU: buckets go over NCCL (unique id broadcast over Gloo); the comm thread makes the
  // rank's device current; compressor steps are timed by CUDA events.
  if (r.on_gpu()) {
    r.comm->set_context("the NCCL set-up");
    r.nccl = gpu::make_nccl_communicator(*r.comm, r.info.local_rank, o.timeout_s);
    const int dev = r.info.local_rank;
    ro.thread_init = [dev] { gpu::set_device(dev); };
    ro.device_sync = [c = r.nccl.get()] { gpu::synchronize(*c); };  // polls NCCL errors
    r.marks = gpu::make_device_marks();  // step timing by CUDA events, no waits
    ro.device_marks = r.marks.get();
  }
  compress::Communicator& bucket_comm = r.nccl ? *r.nccl : static_cast<compress::Communicator&>(*r.comm);
  r.reducer = std::make_unique<Reducer>(params, *r.compressor, bucket_comm, ro);
  r.reducer->on_bucket_start = [comm = r.comm.get(), watchdog = r.watchdog.get()](int64_t b) {
    comm->set_context("bucket " + std::to_string(b));
    watchdog->beat("bucket " + std::to_string(b));
  };
  r.buffers = r.net->buffers();
}

// The run's state, from the checkpoint with --resume (data position included).
void setup_state(TrainRun& r) {
  const TrainOptions& o = r.opt;
  r.state.scheme = r.compressor->spec();
  r.state.world_size = r.info.world_size;
  r.ckpt = o.checkpoint.empty() ? "" : checkpoint_path(o.checkpoint, r.info.rank);
  if (o.resume) {
    r.state = load_checkpoint(r.ckpt, *r.net, *r.optimizer, *r.compressor, r.state);
    if (auto* sl = dynamic_cast<ShardedLoader*>(r.source.get())) sl->seek(r.state.epoch, r.state.batch_in_epoch);
    if (auto* ss = dynamic_cast<SyntheticSource*>(r.source.get())) ss->seek(r.state.iter);
  }
  r.progress.iter = r.state.iter;
  r.progress.start_iter = r.state.iter;
}

int64_t wire_bytes_per_iter(const TrainRun& r) {
  int64_t s = 0;
  for (const auto& b : r.reducer->buckets()) s += r.compressor->wire_bytes(b.layout, r.info.world_size);
  return s;
}

// The JSON-lines log (rank 0, or every rank with --log-all-ranks) and its header record.
void open_log(TrainRun& r) {
  const TrainOptions& o = r.opt;
  const bool logging = r.lead() || o.log_all_ranks;
  const bool per_rank = o.log_all_ranks && o.log != "-" && !o.log.empty();
  r.log = std::make_unique<JsonLinesWriter>(
      logging ? (per_rank ? o.log + ".rank" + std::to_string(r.info.rank) : o.log) : std::string());
  const int lr = r.info.local_rank;
  r.log->write({{"type", "header"},
                {"schema", kTrainLogSchema},
                {"rank", r.info.rank},
                {"world_size", r.info.world_size},
                {"rank_source", r.info.source},
                {"model", r.net->spec()},
                {"parameters", r.net->num_parameters()},
                {"data", o.data},
                {"batch_per_rank", o.batch},
                {"scheme", r.compressor->spec()},
                {"mode", reduce_mode_name(r.mode)},
                {"optimizer", o.optimizer},
                {"lr", o.lr},
                {"schedule", o.schedule},
                {"buckets", static_cast<int64_t>(r.reducer->buckets().size())},
                {"wire_bytes_per_iter", wire_bytes_per_iter(r)},
                {"threads", torch::get_num_threads()},
                {"backend", r.on_gpu() ? "nccl" : "gloo"},
                {"device", r.on_gpu() ? "cuda:" + std::to_string(lr) + " (" + gpu::device_name(lr) + ")"
                                      : std::string("cpu")},
                {"nccl", r.on_gpu() ? gpu::nccl_version() : std::string()},
                {"gloo_interfaces", r.ctx.gloo_interfaces},
                {"timeout_s", o.timeout_s},
                {"warmup_iters", o.warmup},
                {"resumed_from_iter", o.resume ? r.progress.start_iter : 0}});
}

}  // namespace

void TrainRun::sync() const {
  if (on_gpu()) gpu::synchronize();
}

void setup_run(TrainRun& run) {
  setup_local(run);
  setup_distributed(run);
  setup_state(run);
  open_log(run);
}

}  // namespace gcu::trainer
