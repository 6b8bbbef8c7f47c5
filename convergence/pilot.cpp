// Paired pilot runs (pilot.h).
#include "convergence/pilot.h"

#include "compressors/local_group.h"
#include "compressors/registry.h"
#include "trainer/data/dataset.h"
#include "trainer/data/fortunes.h"
#include "trainer/models/registry.h"
#include "util/clock.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace gcu::calibrate {
namespace {

using util::now_s;

// The task's data: per-worker training sources for a seed, and the fixed held-out batch.
struct TaskData {
  std::function<std::unique_ptr<trainer::BatchSource>(int rank, uint64_t seed)> train;
  trainer::Batch eval;
};

TaskData make_task(const PilotOptions& o, const trainer::Net& net) {
  TaskData d;
  if (o.task == "fashion-mnist") {
    auto test = trainer::load_fashion_mnist(false);
    const int64_t n = std::min<int64_t>(o.eval_samples, test.size());
    d.eval.input = trainer::normalize_images(test.images.slice(0, 0, n));
    d.eval.target = test.labels.slice(0, 0, n);
    d.train = [o](int r, uint64_t seed) -> std::unique_ptr<trainer::BatchSource> {
      trainer::LoaderOptions lo;
      lo.rank = r, lo.world_size = o.workers, lo.batch_size = o.batch_size, lo.seed = seed;
      return trainer::make_fashion_mnist_loader(lo);
    };
  } else if (o.task == "fortunes") {
    const auto corpus = std::make_shared<trainer::CharCorpus>(trainer::load_fortunes());
    const int64_t seq = net.input_shape(1).at(1);
    d.eval = trainer::char_eval_batch(corpus->held_out, seq, o.eval_samples);
    d.train = [o, corpus, seq](int r, uint64_t seed) {
      return trainer::make_char_window_loader(corpus->train, seq, o.batch_size, seed, r);
    };
  } else {
    throw std::invalid_argument("pilot: unknown task '" + o.task + "' (fashion-mnist | fortunes)");
  }
  return d;
}

struct Sums {  // running sums for the noise scale and the scheme's error
  double g_small = 0, g_big = 0, rel = 0, rel_opt = 0;
  long n = 0, n_rel = 0;
};

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
  return s;
}

// The p simulated workers of one run: their compressors and per-worker vectors over the
// whole model as one bucket (backward order).
struct Workers {
  int p = 0;
  std::vector<std::unique_ptr<compress::Compressor>> comp;
  std::string spec;  // the compressor's canonical spec
  bool ef = false;   // error feedback: the residual is added to the next gradient
  compress::BucketLayout layout;
  int64_t n = 0;
  std::vector<std::vector<float>> grads, x, local, resid;
  std::vector<float> mean;
};

void make_workers(Workers& w, const PilotOptions& o, const std::string& spec_in, const trainer::Net& net) {
  w.p = o.workers;
  for (int r = 0; r < w.p; ++r) w.comp.push_back(compress::make_compressor(spec_in));
  w.spec = w.comp[0]->spec();
  w.ef = w.comp[0]->traits().error_feedback;
  const auto plist = net.parameter_list();
  for (auto it = plist.rbegin(); it != plist.rend(); ++it) w.layout.shapes.push_back(it->shape);
  w.n = w.layout.numel();
  const int p = w.p;
  const int64_t n = w.n;
  w.grads.assign(p, std::vector<float>(n));
  w.x.assign(p, std::vector<float>(n));
  w.local.assign(p, std::vector<float>(n));
  w.resid.assign(p, std::vector<float>(w.ef ? n : 0, 0.f));
  w.mean.assign(n, 0.f);
}

// McCandlish et al.'s two-batch estimator and the scheme's mean relative errors from the
// running sums (pilot.h): what the run's record says at its end, and each eval record so
// far (so that a prefix of a run is a pilot with its own figures).
struct Figures {
  double g2 = 0, tr = 0;
  std::optional<double> b_simple, rel, rel_opt;
};
Figures figures(const PilotOptions& o, int p, const Sums& s) {
  Figures f;
  const double bs = o.batch_size, bb = double(o.batch_size) * p;
  const double gs = s.g_small / std::max(1L, s.n), gb = s.g_big / std::max(1L, s.n);
  f.g2 = (bb * gb - bs * gs) / (bb - bs), f.tr = (gs - gb) / (1 / bs - 1 / bb);
  if (s.n > 0 && f.g2 > 0 && std::isfinite(f.tr / f.g2)) f.b_simple = f.tr / f.g2;
  if (s.n_rel > 0) f.rel = s.rel / s.n_rel, f.rel_opt = s.rel_opt / s.n_rel;
  return f;
}
nlohmann::ordered_json num_or_null(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// Held-out loss and accuracy at iteration `it`, as an "eval" record with the noise scale
// and relative error so far; returns the loss.
double evaluate(trainer::Net& net, const TaskData& task, const PilotOptions& o, const std::string& spec,
                uint64_t seed, int it, const Figures& so_far, const RecordSink& sink) {
  torch::NoGradGuard ng;
  net.eval();
  const auto logits = net.forward(task.eval.input);
  net.train();
  const double loss = net.loss(logits, task.eval.target).item<double>();
  const double acc = logits.argmax(1).eq(task.eval.target).to(torch::kDouble).mean().item<double>();
  nlohmann::ordered_json r{{"type", "eval"}, {"task", o.task}, {"scheme", spec}, {"seed", seed}, {"iteration", it}};
  r["loss"] = std::isfinite(loss) ? nlohmann::ordered_json(loss) : nlohmann::ordered_json(nullptr);
  r["accuracy"] = acc;
  r["b_simple"] = num_or_null(so_far.b_simple);
  r["relative_error"] = num_or_null(so_far.rel);
  sink(r);
  return loss;
}

// Each worker's gradient of its own batch, flattened in backward order into grads[r].
void worker_gradients(trainer::Net& net, torch::optim::SGD& opt, std::vector<torch::Tensor>& params,
                      std::vector<std::unique_ptr<trainer::BatchSource>>& data, Workers& w) {
  for (int r = 0; r < w.p; ++r) {
    auto b = data[r]->next_batch();
    opt.zero_grad();
    net.loss_on(b).backward();
    int64_t off = 0;
    for (auto pi = params.rbegin(); pi != params.rend(); ++pi) {
      auto g = pi->grad().contiguous().view({-1});
      std::copy(g.data_ptr<float>(), g.data_ptr<float>() + g.numel(), w.grads[r].begin() + off);
      off += g.numel();
    }
  }
}

// Noise scale on the raw gradients.
void add_noise_scale(Workers& w, Sums& s) {
  const int p = w.p;
  std::fill(w.mean.begin(), w.mean.end(), 0.f);
  double small = 0;
  for (int r = 0; r < p; ++r) {
    small += dot(w.grads[r], w.grads[r]) / p;
    for (int64_t i = 0; i < w.n; ++i) w.mean[i] += w.grads[r][i] / p;
  }
  s.g_small += small, s.g_big += dot(w.mean, w.mean), ++s.n;
}

// The schemes' step over the group, with the relative error of what each worker's
// compressor really sees (and the residual, with error feedback).
void compressed_step(Workers& w, compress::LocalGroup& group, Sums& s) {
  const int p = w.p;
  const int64_t n = w.n;
  // The vector each worker's compressor really sees.
  for (int r = 0; r < p; ++r)
    for (int64_t i = 0; i < n; ++i) w.x[r][i] = w.grads[r][i] + (w.ef ? w.resid[r][i] : 0.f);
  group.run([&](compress::Communicator& comm) {
    const int r = comm.rank();
    w.comp[r]->step_with_local(compress::GradBucket{0, w.grads[r].data(), &w.layout}, comm, w.local[r].data());
  });
  for (int r = 0; r < p; ++r) {
    const double xx = dot(w.x[r], w.x[r]), cc = dot(w.local[r], w.local[r]), xc = dot(w.x[r], w.local[r]);
    if (xx > 0 && std::isfinite(xx)) {
      s.rel += (xx - 2 * xc + cc) / xx;
      s.rel_opt += cc > 0 ? 1 - xc * xc / (xx * cc) : 1;
      ++s.n_rel;
    }
    if (w.ef)
      for (int64_t i = 0; i < n; ++i) w.resid[r][i] = w.x[r][i] - w.local[r][i];
  }
}

// The aggregated gradient (worker 0's bucket) back into the parameters' gradients.
void load_gradient(std::vector<torch::Tensor>& params, const std::vector<float>& grad) {
  int64_t off = 0;
  for (auto pi = params.rbegin(); pi != params.rend(); ++pi) {
    auto g = pi->grad().view({-1});
    std::copy(grad.begin() + off, grad.begin() + off + g.numel(), g.data_ptr<float>());
    off += g.numel();
  }
}

// The "run" record: noise scale (McCandlish et al.'s two-batch estimator, pilot.h) and
// the scheme's mean relative errors.
nlohmann::ordered_json run_record(const PilotOptions& o, const Workers& w, const Sums& s, uint64_t seed, int last,
                                  bool diverged, double t_start) {
  const int p = w.p;
  const std::string& spec = w.spec;
  const double bb = double(o.batch_size) * p;
  const Figures f = figures(o, p, s);
  nlohmann::ordered_json run{{"type", "run"},          {"task", o.task},       {"scheme", spec},
                             {"seed", seed},           {"iterations", last},   {"diverged", diverged},
                             {"seconds", now_s() - t_start}, {"workers", p},    {"global_batch", bb}};
  run["grad_norm_sq"] = f.g2;
  run["trace_sigma"] = f.tr;
  run["b_simple"] = num_or_null(f.b_simple);
  run["relative_error"] = f.rel.value_or(0.0);
  run["relative_error_scale_optimal"] = f.rel_opt.value_or(0.0);
  run["error_feedback"] = w.ef;
  if (o.branch_at > 0) run["branch_at"] = o.branch_at;
  return run;
}

}  // namespace

// One (scheme, seed) run.
void run_pilot(const PilotOptions& o, const std::string& spec_in, uint64_t seed, const RecordSink& sink,
             const PilotProgress& progress) {
  const double t_start = now_s();
  torch::manual_seed(seed);
  const std::string model = o.model_spec.empty() ? default_pilot_model(o.task) : o.model_spec;
  auto net = trainer::make_net(model);
  auto params = net->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(o.lr).momentum(o.momentum));
  TaskData task = make_task(o, *net);
  std::vector<std::unique_ptr<trainer::BatchSource>> data;
  for (int r = 0; r < o.workers; ++r) data.push_back(task.train(r, seed));
  Workers w;
  make_workers(w, o, spec_in, *net);
  compress::LocalGroup group(w.p);
  Sums s;
  bool diverged = false;
  int last = 0;
  const int b = std::max(0, o.branch_at);
  evaluate(*net, task, o, w.spec, seed, 0, figures(o, w.p, s), sink);
  for (int it = 1; it <= b + o.iterations; ++it) {
    const double lr = o.warmup > 0 ? o.lr * std::min(1.0, double(it) / o.warmup) : o.lr;
    for (auto& g : opt.param_groups()) static_cast<torch::optim::SGDOptions&>(g.options()).lr(lr);
    worker_gradients(*net, opt, params, data, w);
    add_noise_scale(w, s);
    if (it <= b) {  // the baseline's step up to the branch point: the workers' plain mean
      load_gradient(params, w.mean);
      opt.step();
      last = it;
      if (it == b) {  // the branch point: its evaluation, and the figures from here on
        s = Sums{};
        evaluate(*net, task, o, w.spec, seed, it, figures(o, w.p, s), sink);
      }
      continue;
    }
    compressed_step(w, group, s);
    load_gradient(params, w.grads[0]);
    opt.step();
    last = it;
    if (is_eval_iteration(it - b, o.eval_resolution)) {
      const double loss = evaluate(*net, task, o, w.spec, seed, it, figures(o, w.p, s), sink);
      if (!std::isfinite(loss)) {
        diverged = true;
        break;
      }
      if (o.stop_loss && loss <= *o.stop_loss) break;
    }
  }
  sink(run_record(o, w, s, seed, last, diverged, t_start));
  if (progress)
    progress("pilot: " + w.spec + " seed " + std::to_string(seed) + ": " + std::to_string(last) + " iterations in " +
             std::to_string(now_s() - t_start).substr(0, 5) + " s" + (diverged ? " (diverged)" : ""));
}

std::string default_pilot_model(const std::string& task) {
  if (task == "fortunes")
    return "bert:layers=2,hidden=64,heads=2,intermediate=128,vocab=97,positions=32,classes=97,seq=32,dropout=0";
  return "cnn";
}

bool is_eval_iteration(int i, double resolution) {
  // e_0 = 0, e_1 = 1, e_{k+1} = max(e_k + 1, floor(e_k (1 + resolution))).
  if (i <= 1) return i >= 0;
  int e = 1;
  while (e < i) e = std::max(e + 1, static_cast<int>(std::floor(e * (1 + resolution))));
  return e == i;
}

void check_pilot_options(const PilotOptions& o) {
  if (o.workers < 2) throw std::invalid_argument("pilot: need >= 2 workers (the noise-scale estimator), got " + std::to_string(o.workers));
  if (o.seeds.empty() || o.schemes.empty() || o.iterations < 1)
    throw std::invalid_argument("pilot: need schemes, seeds and iterations >= 1");
  if (o.branch_at < 0)
    throw std::invalid_argument("pilot: --branch-at " + std::to_string(o.branch_at) + " must be >= 0");
  // Numbers a pilot cannot run with: refused by name before any run (LibTorch's SGD would
  // throw with a stack trace for a NaN rate; an infinite one "diverges" at iteration 1).
  const auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("pilot: " + what);
  };
  need(std::isfinite(o.lr) && o.lr > 0, "--lr must be a finite number > 0, got " + std::to_string(o.lr));
  need(std::isfinite(o.momentum) && o.momentum >= 0 && o.momentum < 1,
       "--momentum must be in [0, 1), got " + std::to_string(o.momentum));
  need(std::isfinite(o.eval_resolution) && o.eval_resolution > 0,
       "--eval-resolution must be a finite number > 0, got " + std::to_string(o.eval_resolution));
  need(o.warmup >= 0, "--warmup must be >= 0, got " + std::to_string(o.warmup));
  need(o.batch_size >= 1, "--batch-size must be >= 1, got " + std::to_string(o.batch_size));
  need(o.eval_samples >= 1, "--eval-samples must be >= 1, got " + std::to_string(o.eval_samples));
  need(!o.stop_loss || std::isfinite(*o.stop_loss), "--stop-loss must be a finite number");
}

nlohmann::ordered_json pilot_config_record(const PilotOptions& o) {
  nlohmann::ordered_json cfg{{"type", "config"}, {"schema", kPilotSchema}, {"task", o.task},
                             {"model", o.model_spec.empty() ? default_pilot_model(o.task) : o.model_spec},
                             {"schemes", o.schemes}, {"seeds", o.seeds}, {"workers", o.workers},
                             {"batch_size", o.batch_size}, {"iterations", o.iterations}, {"lr", o.lr},
                             {"momentum", o.momentum}, {"warmup", o.warmup}, {"eval_resolution", o.eval_resolution},
                             {"eval_samples", o.eval_samples}};
  if (o.stop_loss) cfg["stop_loss"] = *o.stop_loss;
  if (o.branch_at > 0) cfg["branch_at"] = o.branch_at;
  return cfg;
}

void run_pilots(const PilotOptions& o, const RecordSink& sink, const PilotProgress& progress) {
  check_pilot_options(o);
  sink(pilot_config_record(o));
  for (const auto& spec : o.schemes)
    for (uint64_t seed : o.seeds) run_pilot(o, spec, seed, sink, progress);
}

}  // namespace gcu::calibrate
