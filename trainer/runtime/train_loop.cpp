// One rank of a compressed data-parallel training job: run_train() (train_options.h),
// the loop over the steps of train_run.h (set-up in train_setup.cpp): iterations,
// periodic evaluation, checkpoints, the JSON-lines log and the summary.
#include "trainer/runtime/train_run.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

namespace gcu::trainer {

namespace {

double seconds_since(RunClock::time_point t) { return std::chrono::duration<double>(RunClock::now() - t).count(); }
double between(RunClock::time_point a, RunClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Test accuracy over all ranks' slices (each rank evaluates its own slice).
double test_accuracy(Net& net, EvalIterator& it, PgCommunicator& comm) {
  torch::NoGradGuard ng;
  net.eval();
  it.reset();
  Batch b;
  int64_t counts[2] = {0, 0};
  while (it.next(b)) {
    auto pred = net.forward(b.input).argmax(1);
    counts[0] += pred.eq(b.target).sum().item<int64_t>();
    counts[1] += b.target.size(0);
  }
  net.train();
  comm.set_context("evaluation");
  comm.all_reduce(counts, 2, compress::WireType::U64, compress::ReduceOp::Sum);
  return counts[1] ? static_cast<double>(counts[0]) / static_cast<double>(counts[1]) : 0.0;
}

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

// The iteration's "iter" record; measured iterations also go into the summary.
void record_iteration(TrainRun& r, const IterTimes& t, double loss, double lr) {
  RunProgress& p = r.progress;
  r.state.train_time_s += t.total_s;
  if (p.loss_first < 0) p.loss_first = loss;
  p.loss_last = loss;
  const bool measured = p.iter - p.start_iter >= r.opt.warmup;
  if (measured) p.timing.add(t);
  auto rec = to_json(t);
  rec["type"] = "iter";
  rec["iter"] = p.iter;
  rec["loss"] = loss;
  rec["lr"] = lr;
  rec["measured"] = measured;
  r.log->write(rec);
}

bool evaluation_due(const TrainRun& r, bool last) {
  return r.eval && ((r.opt.eval_every > 0 && (r.progress.iter + 1) % r.opt.eval_every == 0) || last);
}

bool checkpoint_due(const TrainRun& r, bool last) {
  const int64_t every = r.opt.checkpoint_every;
  return !r.ckpt.empty() && every > 0 && (r.progress.iter + 1) % every == 0 && !last;
}

}  // namespace

// Fault injection for the tests (--stall-rank, --stall-at-iter): that rank stops making
// progress, as a hung GPU or a paused process would, and the others must time out.
void stall_if_asked(const TrainOptions& o, int rank, int64_t iter) {
  if (rank != o.stall_rank || iter != o.stall_at_iter) return;
  std::fprintf(stderr, "rank %d: stalling at iteration %lld (--stall-at-iter)\n", rank,
               static_cast<long long>(iter));
  std::this_thread::sleep_for(std::chrono::hours(24));
}

double run_iteration(TrainRun& r) {
  const int64_t iter = r.progress.iter;
  r.watchdog->beat("iteration " + std::to_string(iter));
  torch::manual_seed(r.opt.seed * kIterSeedStride + static_cast<uint64_t>(iter));  // dropout etc.
  const auto t0 = RunClock::now();
  Batch batch = r.source->next_batch();
  r.sync();
  const auto t1 = RunClock::now();
  if (!r.buffers.empty()) {  // batch-norm statistics from rank 0, like DDP's broadcast_buffers
    r.comm->set_context("the buffer broadcast");
    broadcast_tensors(r.buffers, *r.comm, 0);
  }
  auto loss = r.net->loss_on(batch);
  r.sync();
  const auto t2 = RunClock::now();
  r.reducer->zero_grad();  // keeps the gradients as bucket views (reducer.h)
  r.reducer->begin_iteration();
  loss.backward();
  r.sync();
  const auto t3 = RunClock::now();
  const ReduceTimes rt = r.reducer->finish_iteration();
  const auto t4 = RunClock::now();
  const double lr = lr_at(r.oc, iter);
  set_lr(*r.optimizer, lr);
  r.optimizer->step();
  r.sync();
  const auto t5 = RunClock::now();
  IterTimes t;
  t.data_s = between(t0, t1);
  t.forward_s = between(t1, t2);
  t.backward_s = between(t2, t3);
  t.comm_exposed_s = between(t3, t4);
  t.encode_s = rt.steps.encode_s;
  t.collective_s = rt.steps.collective_s;
  t.decode_s = rt.steps.decode_s;
  t.wire_bytes = rt.steps.wire_bytes;
  t.optimizer_s = between(t4, t5);
  t.total_s = between(t0, t5);
  const double loss_v = loss.item<double>();
  record_iteration(r, t, loss_v, lr);
  return loss_v;
}

bool evaluate(TrainRun& r, double loss) {
  RunProgress& p = r.progress;
  r.watchdog->beat("evaluation");
  const auto e0 = RunClock::now();
  p.last_acc = test_accuracy(*r.net, *r.eval, *r.comm);
  p.eval_s += seconds_since(e0);
  const bool hit = r.opt.target_acc > 0 && p.last_acc >= r.opt.target_acc && !p.reached;
  if (hit) {
    p.reached = true;
    p.tta_s = r.state.train_time_s;
    p.tta_wall_s = seconds_since(p.wall0);
    p.tta_iter = p.iter + 1;
  }
  r.log->write({{"type", "eval"}, {"iter", p.iter + 1}, {"test_acc", p.last_acc},
                {"train_time_s", r.state.train_time_s}, {"wall_s", seconds_since(p.wall0)},
                {"eval_s", seconds_since(e0)}, {"loss", loss}});
  if (r.lead() && !r.opt.quiet)
    std::fprintf(stderr, "iter %lld  loss %.4f  test acc %.4f  train time %.2f s\n",
                 static_cast<long long>(p.iter + 1), loss, p.last_acc, r.state.train_time_s);
  return hit;
}

void checkpoint(TrainRun& r, int64_t iter) {
  if (auto* sl = dynamic_cast<ShardedLoader*>(r.source.get())) {
    r.state.epoch = sl->epoch();
    r.state.batch_in_epoch = sl->batch_in_epoch();
  }
  r.state.iter = iter;
  save_checkpoint(r.ckpt, *r.net, *r.optimizer, *r.compressor, r.state);
  r.log->write({{"type", "checkpoint"}, {"iter", iter}, {"file", r.ckpt}});
}

void finish_run(TrainRun& r) {
  const RunProgress& p = r.progress;
  r.watchdog->stop();
  const auto total = p.timing.total();
  nlohmann::json sum{{"type", "summary"},
                     {"iters_run", p.iter - p.start_iter},
                     {"final_iter", p.iter},
                     {"measured_iters", p.timing.count()},
                     {"timing", p.timing.to_json()},
                     {"iter_time_median_s", total.median},
                     {"train_time_s", r.state.train_time_s},
                     {"eval_time_s", p.eval_s},
                     {"wall_s", seconds_since(p.wall0)},
                     {"loss_first", p.loss_first},
                     {"loss_last", p.loss_last},
                     {"final_test_acc", p.last_acc >= 0 ? nlohmann::json(p.last_acc) : nlohmann::json()},
                     {"target_acc", r.opt.target_acc},
                     {"reached_target", p.reached}};
  if (p.reached) {
    sum["time_to_target_s"] = p.tta_s;
    sum["time_to_target_wall_s"] = p.tta_wall_s;
    sum["iters_to_target"] = p.tta_iter;
  }
  r.log->write(sum);
  r.log->close();
  if (!r.opt.dump_params.empty()) dump_params(r.opt.dump_params + ".rank" + std::to_string(r.info.rank), *r.net);
  if (r.lead() && !r.opt.quiet)
    std::fprintf(stderr, "done: %lld iterations, median iteration %.4f s, loss %.4f -> %.4f%s\n",
                 static_cast<long long>(p.iter), total.median, p.loss_first, p.loss_last,
                 p.reached ? (", target reached after " + std::to_string(p.tta_s) + " s").c_str() : "");
}

int run_train(const TrainOptions& o) {
  TrainRun run(o);
  setup_run(run);
  RunProgress& p = run.progress;
  p.wall0 = RunClock::now();
  while (p.iter < o.iters) {
    stall_if_asked(o, run.info.rank, p.iter);
    const double loss = run_iteration(run);
    const bool last = p.iter + 1 == o.iters;
    if (evaluation_due(run, last) && evaluate(run, loss)) {
      ++p.iter;  // target reached: stop after this iteration
      break;
    }
    if (checkpoint_due(run, last)) checkpoint(run, p.iter + 1);
    ++p.iter;
  }
  if (!run.ckpt.empty()) checkpoint(run, p.iter);
  finish_run(run);
  return 0;
}

}  // namespace gcu::trainer
