// Short convergence runs and the TTA constants fit (see convergence.h).
#include "convergence/calibrate_runs.h"

#include "convergence/tta_fit.h"

#include "compressors/local_group.h"
#include "compressors/registry.h"
#include "convergence/tta.h"
#include "trainer/data/dataset.h"
#include "trainer/models/registry.h"
#include "util/clock.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace gcu::calibrate {
namespace {

std::string fmt_m(double m) {
  if (!std::isfinite(m)) return "never";
  char b[32];
  std::snprintf(b, sizeof b, "m = %.2f", m);
  return b;
}

std::string pct(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.0f%%", 100 * r);
  return b;
}

using util::now_s;

struct RunResult {
  std::vector<std::pair<int, double>> eval;  // (iteration, held-out loss)
  double seconds = 0;
};

// Fashion-MNIST loaders for the p workers and the held-out batch, for a model of 28x28
// grey images when real data is asked for; false (synthetic data) otherwise or when the
// data cannot be loaded.
bool load_real_data(const ConvergenceOptions& o, const trainer::Net& net,
                    std::vector<std::unique_ptr<trainer::BatchSource>>& data, trainer::Batch& eval) {
  const int p = o.workers;
  bool real = false;
  const auto shape = net.input_shape(1);
  if (o.compute.real_data && shape.size() == 4 && shape[1] == 1 && shape[2] == 28 && shape[3] == 28 &&
      net.input_dtype() == torch::kFloat32 && net.num_classes() >= 10) {
    try {
      for (int r = 0; r < p; ++r) {
        trainer::LoaderOptions lo;
        lo.rank = r;
        lo.world_size = p;
        lo.batch_size = o.batch_size;
        lo.seed = 7;
        data[r] = trainer::make_fashion_mnist_loader(lo);
      }
      auto test = trainer::load_fashion_mnist(false);
      const int64_t n = std::min<int64_t>(o.eval_samples, test.size());
      eval.input = trainer::normalize_images(test.images.slice(0, 0, n));
      eval.target = test.labels.slice(0, 0, n);
      real = true;
    } catch (const std::exception&) {
      real = false;
    }
  }
  return real;
}

// Trains with p simulated workers; "none" = FP32. Stops when the held-out loss reaches
// `target` (checked every eval_every) or after max_iters.
RunResult train(const ConvergenceOptions& o, const std::string& scheme, int max_iters, double target) {
  const double t0 = now_s();
  torch::manual_seed(7);
  auto net = trainer::make_net(o.compute.model_spec);
  auto params = net->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(o.compute.lr).momentum(0.9));
  const int p = o.workers;
  std::vector<std::unique_ptr<trainer::BatchSource>> data(p);
  trainer::Batch eval;
  const bool real = load_real_data(o, *net, data, eval);
  if (!real) eval = net->make_synthetic_batch(o.eval_samples, torch::kCPU, 999);
  std::vector<std::unique_ptr<compress::Compressor>> comp;
  for (int r = 0; r < p; ++r) comp.push_back(compress::make_compressor(scheme));
  const auto plist = net->parameter_list();
  compress::BucketLayout layout;  // one bucket: the whole model, backward order
  for (auto it = plist.rbegin(); it != plist.rend(); ++it) layout.shapes.push_back(it->shape);
  const int64_t n = layout.numel();
  std::vector<std::vector<float>> grads(p, std::vector<float>(n));
  compress::LocalGroup group(p);
  RunResult res;
  for (int it = 1; it <= max_iters; ++it) {
    for (int r = 0; r < p; ++r) {
      auto b = real ? data[r]->next_batch() : net->make_synthetic_batch(o.batch_size, torch::kCPU, 1000 * it + r);
      opt.zero_grad();
      net->loss_on(b).backward();
      int64_t off = 0;
      for (auto pi = params.rbegin(); pi != params.rend(); ++pi) {
        auto g = pi->grad().contiguous().view({-1});
        std::copy(g.data_ptr<float>(), g.data_ptr<float>() + g.numel(), grads[r].begin() + off);
        off += g.numel();
      }
    }
    group.run([&](compress::Communicator& comm) {
      const int r = comm.rank();
      comp[r]->step(compress::GradBucket{0, grads[r].data(), &layout}, comm);
    });
    int64_t off = 0;
    for (auto pi = params.rbegin(); pi != params.rend(); ++pi) {
      auto g = pi->grad().view({-1});
      std::copy(grads[0].begin() + off, grads[0].begin() + off + g.numel(), g.data_ptr<float>());
      off += g.numel();
    }
    opt.step();
    if (it % o.eval_every == 0) {
      torch::NoGradGuard ng;
      const double loss = net->loss_on(eval).item<double>();
      if (!std::isfinite(loss)) break;
      res.eval.push_back({it, loss});
      if (loss <= target) break;
    }
  }
  res.seconds = now_s() - t0;
  return res;
}

// First evaluated iteration with loss <= target (linear interpolation between evals).
double iterations_to(const RunResult& r, double target) {
  for (size_t i = 0; i < r.eval.size(); ++i)
    if (r.eval[i].second <= target) {
      if (i == 0) return r.eval[i].first;
      const auto [i0, l0] = r.eval[i - 1];
      const auto [i1, l1] = r.eval[i];
      const double t = l0 > l1 ? (l0 - target) / (l0 - l1) : 1.0;
      return i0 + t * (i1 - i0);
    }
  return -1;
}

}  // namespace

namespace {

// The FP32 baseline run: the target is its (smoothed) final held-out loss.
struct Baseline {
  RunResult run;
  double target = 0;
  double iterations = 0;  // to reach the target
};

Baseline run_baseline(const ConvergenceOptions& o) {
  Baseline b;
  b.run = train(o, compress::Registry::instance().baseline(compress::Baseline::FP32).name, o.iterations, -1.0);
  if (b.run.eval.size() < 2) throw std::runtime_error("convergence: FP32 run too short to evaluate");
  const size_t k = b.run.eval.size();
  b.target = (b.run.eval[k - 1].second + b.run.eval[k - 2].second) / 2;
  b.iterations = iterations_to(b.run, b.target);
  return b;
}

// The target and method into `out`; returns the report's first line.
std::string describe_baseline(const ConvergenceOptions& o, const Baseline& base, nlohmann::ordered_json& out,
                              const Progress& progress) {
  const int p = o.workers;
  char line[256];
  std::snprintf(line, sizeof line, "held-out loss %.4f", base.target);
  out["target"] = line;
  out["baseline_iterations"] = base.iterations;
  // The global batch these iterations hold at (the TTA model rescales them at others).
  out["global_batch"] = static_cast<double>(p) * o.batch_size;
  out["method"] = "p=" + std::to_string(p) + " simulated workers (LocalGroup), batch " + std::to_string(o.batch_size) +
                  " each, SGD lr " + std::to_string(o.compute.lr) + " momentum 0.9; target = FP32's held-out loss after " +
                  std::to_string(o.iterations) + " iterations; m = iterations(scheme)/iterations(FP32); constants = "
                  "least squares through the origin per class (tta.h)";
  std::string rep = "convergence (" + std::string(line) + ", FP32 reaches it at " +
                    std::to_string(static_cast<int>(base.iterations)) + " iterations, " +
                    std::to_string(base.run.seconds).substr(0, 5) + " s):\n";
  if (progress) progress("calibrate: convergence: FP32 reaches " + std::string(line) + " in " + std::to_string(base.iterations) + " iterations");
  return rep;
}

// One scheme's run to the target: its entry in `schemes`, its line in `rep`, its point.
ConvergencePoint measure_scheme(const ConvergenceOptions& o, const nlohmann::ordered_json& errors,
                                const Baseline& base, const std::string& spec_in, nlohmann::ordered_json& schemes,
                                std::string& rep, const Progress& progress) {
  auto c = compress::make_compressor(spec_in);
  const std::string spec = c->spec();
  const auto traits = c->traits();
  double e = 0, e_ef = 0;
  if (errors.contains(spec)) {
    e = errors[spec].value("relative_error", 0.0);
    e_ef = errors[spec].value("relative_error_ef", 0.0);
  }
  const int max_iters = static_cast<int>(o.iterations * o.max_factor);
  RunResult r = train(o, spec, max_iters, base.target);
  const double it = iterations_to(r, base.target);
  auto& js = schemes[spec];
  js["reaches"] = it > 0;
  if (it > 0) js["iterations"] = it; else js["iterations"] = nullptr;
  const double m = it > 0 ? it / base.iterations : 0;
  const TtaClass cls = traits.error_feedback ? TtaClass::ErrorFeedback
                       : !traits.biased      ? TtaClass::Unbiased
                                             : TtaClass::Biased;
  ConvergencePoint q{spec, cls, tta_class_x(cls, e, e_ef, o.workers), std::nullopt};
  if (it > 0) q.multiplier = m;
  const std::string outcome = it > 0 ? std::to_string(static_cast<int>(it)) + " iterations, " + fmt_m(m)
                                     : "never (within the cap of " + fmt_m(o.max_factor) + ")";
  char line[256];
  std::snprintf(line, sizeof line, "  %s (%s, e=%.3f, e_ef=%.3f): %s\n", spec.c_str(), tta_class_name(cls), e, e_ef,
                outcome.c_str());
  rep += line;
  if (progress) progress(std::string("calibrate: convergence: ") + line);
  return q;
}

void add_constants(const TtaFit& fit, nlohmann::ordered_json& k2, std::string& rep) {
  char line[256];
  for (int i = 0; i < 3; ++i)
    if (fit.constants[i]) {
      const auto cls = static_cast<TtaClass>(i);
      k2[tta_constant_name(cls)] = *fit.constants[i];
      std::snprintf(line, sizeof line, "  fitted %s = %.3f (%d scheme(s))\n", tta_constant_name(cls), *fit.constants[i],
                    fit.points[i]);
      rep += line;
    }
}

// One scheme's leave-one-out entry; returns what the report says of it.
std::string held_out_entry(const HeldOutPrediction& h, double cap, nlohmann::ordered_json& jv) {
  jv["class"] = tta_class_name(h.cls);
  jv["measured"] = h.measured ? nlohmann::ordered_json(*h.measured) : nlohmann::ordered_json(nullptr);
  jv["predicted"] = h.predicted && std::isfinite(*h.predicted) ? nlohmann::ordered_json(*h.predicted)
                                                               : nlohmann::ordered_json(nullptr);
  if (h.rel_error) jv["rel_error"] = *h.rel_error;
  if (h.agrees) jv["agrees"] = *h.agrees;
  std::string what;
  if (!h.predicted) what = "not validated (no other scheme of its class)";
  else if (h.rel_error) what = fmt_m(*h.predicted) + " vs measured " + fmt_m(*h.measured) + " (" + pct(*h.rel_error) + ")";
  else what = fmt_m(*h.predicted) + " vs never within " + fmt_m(cap) + (*h.agrees ? " (agrees)" : " (disagrees)");
  return what;
}

// Held-out validation: each scheme predicted from the constant of the others in its class.
void add_validation(const ConvergenceOptions& o, const TtaFit& fit, nlohmann::ordered_json& val, std::string& rep) {
  val["method"] = "leave one out: each scheme's multiplier predicted from its class constant fitted on the other "
                  "schemes of the class; never-reached schemes agree when the prediction is >= the cap";
  val["cap"] = o.max_factor;
  auto& vs = val["schemes"];
  vs = nlohmann::ordered_json::object();
  rep += "  held-out validation (leave one out per class):\n";
  for (const auto& h : fit.held_out) {
    const std::string what = held_out_entry(h, o.max_factor, vs[h.spec]);
    rep += "    " + h.spec + ": predicted " + what + "\n";
  }
  val["validated"] = fit.validated;
  if (fit.median_abs_rel_error) val["median_abs_rel_error"] = *fit.median_abs_rel_error;
  if (fit.max_abs_rel_error) val["max_abs_rel_error"] = *fit.max_abs_rel_error;
  val["never_validated"] = fit.never_validated;
  val["never_agreeing"] = fit.never_agreeing;
  if (fit.median_abs_rel_error) {
    char line[256];
    std::snprintf(line, sizeof line, "    %d scheme(s): median |error| %.1f%%, max %.1f%%", fit.validated,
                  100 * *fit.median_abs_rel_error, 100 * *fit.max_abs_rel_error);
    rep += line;
  } else {
    rep += "    no scheme validated (a class needs two schemes that reach the target)";
  }
  if (fit.never_validated > 0)
    rep += "; never-reached schemes predicted so: " + std::to_string(fit.never_agreeing) + " of " +
           std::to_string(fit.never_validated);
  rep += "\n";
}

}  // namespace

nlohmann::ordered_json run_convergence(const ConvergenceOptions& o, const nlohmann::ordered_json& errors,
                                       const Progress& progress) {
  const double t_start = now_s();
  nlohmann::ordered_json out;
  const Baseline base = run_baseline(o);
  std::string rep = describe_baseline(o, base, out, progress);
  std::vector<ConvergencePoint> points;
  auto& schemes = out["schemes"];
  for (const auto& spec_in : o.schemes) {
    if (o.budget_s > 0 && now_s() - t_start + base.run.seconds * o.max_factor > o.budget_s) {
      rep += "  " + spec_in + ": skipped (budget)\n";
      continue;
    }
    points.push_back(measure_scheme(o, errors, base, spec_in, schemes, rep, progress));
  }
  const TtaFit fit = fit_tta_constants(points, o.max_factor);
  add_constants(fit, out["constants"], rep);
  add_validation(o, fit, out["validation"], rep);
  out["report"] = rep;
  return out;
}

}  // namespace gcu::calibrate
