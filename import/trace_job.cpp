// The analysis of trace_job.h: iteration spans, the phases in each on the CPU's or the
// GPU's clock, buckets from the launches inside AccumulateGrad, and the median iteration.
#include "import/trace_job.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace gcu::import {
namespace {

using Events = std::vector<const TraceEvent*>;

double end_us(const TraceEvent* e) { return e->ts_us + e->dur_us; }

Events of_kind(const TraceEvents& t, EventKind k) {
  Events out;
  for (const TraceEvent& e : t.events)
    if (e.kind == k) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](const TraceEvent* a, const TraceEvent* b) { return a->ts_us < b->ts_us; });
  return out;
}

// Events of `all` (sorted by start) that start in [a, b).
Events starting_in(const Events& all, double a, double b) {
  auto lo = std::lower_bound(all.begin(), all.end(), a, [](const TraceEvent* e, double t) { return e->ts_us < t; });
  Events out;
  for (auto it = lo; it != all.end() && (*it)->ts_us < b; ++it) out.push_back(*it);
  return out;
}

bool inside(const TraceEvent* inner, const TraceEvent* outer) {
  return inner->thread == outer->thread && inner->ts_us >= outer->ts_us && inner->ts_us <= end_us(outer);
}

// The elements a collective launch carries: the first sized CommsInfo inside it; -1 when none.
int64_t launch_elements(const Events& infos, const TraceEvent* launch) {
  for (const TraceEvent* info : starting_in(infos, launch->ts_us, end_us(launch) + 1e-9))
    if (inside(info, launch) && info->elements >= 0) return info->elements;
  return -1;
}

// The GPU's clock seen from the CPU (trace_job.h). On a CPU trace the identity.
class DeviceClock {
 public:
  DeviceClock(const TraceEvents& t) {
    std::unordered_map<int64_t, double> launch_us;
    for (const TraceEvent& e : t.events)
      if (e.kind == EventKind::RuntimeLaunch && e.correlation >= 0) launch_us[e.correlation] = e.ts_us;
    for (const TraceEvent& e : t.events) {
      if (e.kind != EventKind::Kernel) continue;
      const auto it = launch_us.find(e.correlation);
      if (it == launch_us.end()) continue;
      kernels_.push_back({it->second, e.ts_us, end_us(&e)});
    }
    std::sort(kernels_.begin(), kernels_.end(), [](const K& a, const K& b) { return a.launch < b.launch; });
    double m = -INFINITY;
    for (K& k : kernels_) k.end_max = m = std::max(m, k.end);
  }
  bool gpu() const { return !kernels_.empty(); }
  // The end of the last compute kernel launched at or before t (the GPU's progress by then).
  double at(double t) const {
    if (!gpu()) return t;
    auto it = std::upper_bound(kernels_.begin(), kernels_.end(), t, [](double v, const K& k) { return v < k.launch; });
    if (it == kernels_.begin()) return NAN;
    return std::prev(it)->end_max;
  }
  // The first start of a kernel launched in [a, b); NaN when none.
  double first_start(double a, double b) const {
    if (!gpu()) return a;
    double s = INFINITY;
    auto it = std::lower_bound(kernels_.begin(), kernels_.end(), a, [](const K& k, double v) { return k.launch < v; });
    for (; it != kernels_.end() && it->launch < b; ++it) s = std::min(s, it->start);
    return std::isfinite(s) ? s : NAN;
  }
  // A CPU span's length on the device: from its first kernel's start to what the device had
  // done at the span's end; the CPU length when the span launched nothing.
  double span_s(double a, double b) const {
    const double s = first_start(a, b), e = at(b);
    if (std::isnan(s) || std::isnan(e) || e < s) return (b - a) * 1e-6;
    return (e - s) * 1e-6;
  }

 private:
  struct K {
    double launch, start, end, end_max = 0;
  };
  std::vector<K> kernels_;
};

struct Spans {
  std::vector<std::pair<double, double>> spans;
  bool from_steps = false;
};

Spans iteration_spans(const Events& steps, const Events& forwards, const Events& optimizers) {
  Spans s;
  if (!steps.empty()) {
    s.from_steps = true;
    for (const TraceEvent* e : steps) s.spans.emplace_back(e->ts_us, end_us(e));
    // Steps never overlap; in a trace where they do, each ends where the next begins (so
    // every event is looked at once).
    for (size_t i = 0; i + 1 < s.spans.size(); ++i) s.spans[i].second = std::min(s.spans[i].second, s.spans[i + 1].first);
    return s;
  }
  for (size_t i = 0; i < forwards.size(); ++i) {
    const double a = forwards[i]->ts_us;
    double b = i + 1 < forwards.size() ? forwards[i + 1]->ts_us : INFINITY;
    if (!std::isfinite(b)) {
      for (const TraceEvent* o : optimizers)
        if (o->ts_us >= a) b = std::max(std::isfinite(b) ? b : -INFINITY, end_us(o));
      if (!std::isfinite(b)) continue;  // the last forward without an optimizer step after it: cut short
    }
    s.spans.emplace_back(a, b);
  }
  return s;
}

// An iteration's structure: its gradient count, then each bucket's.
std::vector<int> structure(const TracedIteration& it) {
  std::vector<int> key{static_cast<int>(it.tensor_ready_s.size())};
  for (const TracedBucket& b : it.buckets) key.push_back(b.tensors);
  return key;
}

std::string counts_text(const std::vector<int>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

TracedJob analyze_trace(const TraceEvents& t) {
  TracedJob job;
  job.format = t.format;
  job.world_size = t.world_size;
  job.backend = t.backend;
  const DeviceClock clock(t);
  job.device = clock.gpu() ? "cuda" : "cpu";
  job.gpu = clock.gpu() ? t.gpu : "";

  const Events steps = of_kind(t, EventKind::Step), forwards = of_kind(t, EventKind::DdpForward);
  const Events nodes = [&] {
    Events a = of_kind(t, EventKind::Autograd), b = of_kind(t, EventKind::AccumulateGrad);
    a.insert(a.end(), b.begin(), b.end());
    std::stable_sort(a.begin(), a.end(), [](const TraceEvent* x, const TraceEvent* y) { return x->ts_us < y->ts_us; });
    return a;
  }();
  const Events accs = of_kind(t, EventKind::AccumulateGrad), launches = of_kind(t, EventKind::CollectiveLaunch);
  const Events infos = of_kind(t, EventKind::CommsInfo), works = of_kind(t, EventKind::CollectiveWork);
  const Events comm_kernels = of_kind(t, EventKind::CommKernel);
  const Events optimizers = of_kind(t, EventKind::OptimizerStep), zeros = of_kind(t, EventKind::ZeroGrad);

  if (forwards.empty())
    throw TraceError(std::string("trace: not a DDP job: no \"DistributedDataParallel.forward\" events") +
                     (steps.empty() ? " and no \"ProfilerStep#\" iterations" : "") + " in " +
                     std::to_string(t.events_read) + " events (was the model wrapped in DistributedDataParallel?)");
  if (nodes.empty()) throw TraceError("trace: no backward: no \"autograd::engine::evaluate_function\" events");
  if (accs.empty())
    throw TraceError("trace: no gradient became ready: no \"autograd::engine::evaluate_function: "
                     "torch::autograd::AccumulateGrad\" events");
  if (launches.empty())
    throw TraceError("trace: no all-reduce: no \"c10d::\" collective was launched (a single-process job, or "
                     "DDP without communication?)");

  // Comm kernels by their launch's CPU time.
  // NCCL kernels with their launches, by the launch's CPU time.
  std::unordered_map<int64_t, const TraceEvent*> launch_of;
  for (const TraceEvent& e : t.events)
    if (e.kind == EventKind::RuntimeLaunch) launch_of[e.correlation] = &e;
  std::vector<std::pair<const TraceEvent*, const TraceEvent*>> comm_launched;  // (launch, kernel)
  for (const TraceEvent* k : comm_kernels)
    if (const auto l = launch_of.find(k->correlation); l != launch_of.end()) comm_launched.emplace_back(l->second, k);
  std::sort(comm_launched.begin(), comm_launched.end(),
            [](const auto& x, const auto& y) { return x.first->ts_us < y.first->ts_us; });

  const Spans spans = iteration_spans(steps, forwards, optimizers);
  if (spans.spans.size() > 10000)
    throw TraceError("trace: " + std::to_string(spans.spans.size()) +
                     " iterations traced; gcu reads at most 10000 (a few are enough: torch.profiler's active=3)");
  job.iterations_traced = static_cast<int>(spans.spans.size());
  std::vector<TracedIteration> all;
  std::vector<int> numbers;  // each of `all`'s iteration number
  for (size_t i = 0; i < spans.spans.size(); ++i) {
    const auto [a, b] = spans.spans[i];
    const std::string label = "iteration " + std::to_string(i);
    const Events fw = starting_in(forwards, a, b);
    if (fw.empty()) {
      job.notes.push_back(label + " left out: no DistributedDataParallel.forward in it");
      continue;
    }
    const double fwd_us = fw.front()->ts_us;
    const Events nd = starting_in(nodes, fwd_us, b);
    const Events ac = starting_in(accs, fwd_us, b);
    if (nd.empty() || ac.empty()) {
      job.notes.push_back(label + " left out: no backward in it");
      continue;
    }
    const double bwd0_us = nd.front()->ts_us;
    double bwd1_us = bwd0_us;
    for (const TraceEvent* e : nd) bwd1_us = std::max(bwd1_us, end_us(e));

    // Buckets: launches inside an AccumulateGrad (the one that started last before it; those
    // of one thread never overlap). `holder[i]`: the AccumulateGrad of bucket launch i.
    TracedIteration it;
    it.start_us = a;
    std::vector<const TraceEvent*> bucket_launches;
    std::vector<size_t> holder;
    for (const TraceEvent* l : starting_in(launches, bwd0_us, bwd1_us + 1)) {
      const auto after = std::upper_bound(ac.begin(), ac.end(), l->ts_us,
                                          [](double t, const TraceEvent* g) { return t < g->ts_us; });
      for (auto g = after; g != ac.begin() && std::distance(g, after) < 4;) {
        --g;
        if (inside(l, *g)) {
          bucket_launches.push_back(l);
          holder.push_back(static_cast<size_t>(g - ac.begin()));
          break;
        }
      }
    }
    if (bucket_launches.empty()) {
      job.notes.push_back(label + " left out: no collective launched by a gradient's hook in its backward");
      continue;
    }
    const double dev_bwd0 = clock.at(bwd0_us), dev_fwd0 = clock.first_start(fwd_us, bwd0_us);
    if (std::isnan(dev_bwd0) || std::isnan(dev_fwd0)) {
      job.notes.push_back(label + " left out: no GPU kernel of its forward in the trace");
      continue;
    }
    size_t counted = 0;
    for (const TraceEvent* l : bucket_launches) {
      const size_t c = static_cast<size_t>(
          std::upper_bound(ac.begin(), ac.end(), l->ts_us, [](double t, const TraceEvent* g) { return t < g->ts_us; }) -
          ac.begin());
      if (c <= counted && !it.buckets.empty()) continue;  // a second launch of the same bucket's hook
      TracedBucket bk;
      bk.tensors = static_cast<int>(c - counted);
      bk.ready_s = (clock.at(l->ts_us) - dev_bwd0) * 1e-6;
      bk.elements = launch_elements(infos, l);
      counted = c;
      it.buckets.push_back(bk);
    }
    if (counted < ac.size())
      job.notes.push_back(label + ": " + std::to_string(ac.size() - counted) +
                          " gradients became ready after the last bucket's launch");
    // A gradient is ready at its AccumulateGrad's end, or where its hook launched a bucket.
    std::vector<double> ready_us(ac.size());
    for (size_t g = 0; g < ac.size(); ++g) ready_us[g] = end_us(ac[g]);
    for (size_t k = 0; k < bucket_launches.size(); ++k)
      ready_us[holder[k]] = std::min(ready_us[holder[k]], bucket_launches[k]->ts_us);
    for (const double r : ready_us) it.tensor_ready_s.push_back((clock.at(r) - dev_bwd0) * 1e-6);

    it.forward_s = (dev_bwd0 - dev_fwd0) * 1e-6;
    it.backward_s = (clock.at(bwd1_us) - dev_bwd0) * 1e-6;
    const Events op = starting_in(optimizers, bwd1_us, b + 1e-9);
    const Events zg = starting_in(zeros, a, b);
    double opt_start_dev = clock.at(b);
    if (!op.empty()) {
      it.optimizer_s = clock.span_s(op.front()->ts_us, end_us(op.front()));
      const double s = clock.first_start(op.front()->ts_us, end_us(op.front()));
      opt_start_dev = std::isnan(s) ? op.front()->ts_us : s;
    }
    double zero_s = 0;
    for (const TraceEvent* z : zg) zero_s += clock.span_s(z->ts_us, end_us(z));
    it.optimizer_s += zero_s;
    it.tail_s = std::max(0.0, (opt_start_dev - clock.at(bwd1_us)) * 1e-6);
    it.data_s = std::max(0.0, (fwd_us - a) * 1e-6 - zero_s);
    it.iteration_s = (b - a) * 1e-6;

    // The collectives as measured. On a GPU the NCCL kernels, their kind from the kernel's
    // name or else from the c10d collective that launched it; the iteration on the GPU's
    // clock: its first kernel's start to its last kernel's end (the CPU runs ahead).
    const Events launched = starting_in(launches, a, b);
    if (clock.gpu()) {
      double last_end = clock.at(b);
      auto lo = std::lower_bound(comm_launched.begin(), comm_launched.end(), a,
                                 [](const auto& x, double v) { return x.first->ts_us < v; });
      for (auto p = lo; p != comm_launched.end() && p->first->ts_us < b; ++p) {
        const TraceEvent* k = p->second;
        Collective kind = k->collective;
        if (kind == Collective::Other)
          for (const TraceEvent* c : launched)
            if (inside(p->first, c)) kind = c->collective;
        it.collectives.push_back({kind, (k->ts_us - dev_bwd0) * 1e-6, k->dur_us * 1e-6, -1});
        last_end = std::max(last_end, end_us(k));
      }
      const double first = clock.first_start(a, b);
      if (!std::isnan(first) && last_end > first) it.iteration_s = (last_end - first) * 1e-6;
    } else {
      for (const TraceEvent* w : starting_in(works, a, b))
        it.collectives.push_back({w->collective, (w->ts_us - bwd0_us) * 1e-6, w->dur_us * 1e-6, -1});
    }
    // Sizes in launch order, per kind (record_param_comms inside each launch).
    std::map<Collective, std::vector<int64_t>> sizes;
    for (const TraceEvent* l : launched) sizes[l->collective].push_back(launch_elements(infos, l));
    std::map<Collective, size_t> used_sizes;
    for (TracedCollective& c : it.collectives) {
      auto& v = sizes[c.kind];
      size_t& k = used_sizes[c.kind];
      if (k < v.size()) c.elements = v[k++];
    }

    numbers.push_back(static_cast<int>(i));
    all.push_back(std::move(it));
  }
  if (all.empty()) {
    std::string why = job.notes.empty() ? "" : ": " + job.notes.front();
    throw TraceError("trace: no complete DDP iteration (forward, backward with a bucket's collective) among " +
                     std::to_string(spans.spans.size()) + " traced" + why);
  }

  // The most common structure (the first iteration may still have DDP's initial buckets).
  std::map<std::vector<int>, int> count;
  for (const TracedIteration& it : all) ++count[structure(it)];
  const std::vector<int> best =
      std::max_element(count.begin(), count.end(), [](const auto& x, const auto& y) { return x.second < y.second; })->first;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::vector<int> key = structure(all[i]);
    if (key == best) {
      job.used.push_back(all[i]);
      continue;
    }
    std::vector<int> mine(key.begin() + 1, key.end()), common(best.begin() + 1, best.end());
    job.notes.push_back("iteration " + std::to_string(numbers[i]) + " left out: " + std::to_string(key[0]) +
                        " gradients in buckets " + counts_text(mine) + ", the most common being " +
                        std::to_string(best[0]) + " in " + counts_text(common));
  }

  // The median iteration.
  const auto med = [&](auto field) {
    std::vector<double> v;
    for (const TracedIteration& it : job.used) v.push_back(field(it));
    return median_of(v);
  };
  TracedIteration& m = job.median;
  m = job.used.front();
  m.iteration_s = med([](const TracedIteration& x) { return x.iteration_s; });
  m.forward_s = med([](const TracedIteration& x) { return x.forward_s; });
  m.backward_s = med([](const TracedIteration& x) { return x.backward_s; });
  m.tail_s = med([](const TracedIteration& x) { return x.tail_s; });
  m.optimizer_s = med([](const TracedIteration& x) { return x.optimizer_s; });
  m.data_s = med([](const TracedIteration& x) { return x.data_s; });
  for (size_t k = 0; k < m.tensor_ready_s.size(); ++k)
    m.tensor_ready_s[k] = med([k](const TracedIteration& x) { return x.tensor_ready_s[k]; });
  for (size_t k = 0; k < m.buckets.size(); ++k)
    m.buckets[k].ready_s = med([k](const TracedIteration& x) { return x.buckets[k].ready_s; });
  const bool same_collectives = std::all_of(job.used.begin(), job.used.end(), [&](const TracedIteration& x) {
    return x.collectives.size() == m.collectives.size();
  });
  if (same_collectives)
    for (size_t k = 0; k < m.collectives.size(); ++k) {
      m.collectives[k].seconds = med([k](const TracedIteration& x) { return x.collectives[k].seconds; });
      m.collectives[k].start_s = med([k](const TracedIteration& x) { return x.collectives[k].start_s; });
    }
  for (const double v : {m.iteration_s, m.forward_s, m.backward_s, m.tail_s, m.optimizer_s, m.data_s})
    if (!std::isfinite(v) || v < 0) throw TraceError("trace: a phase's time came out negative or not finite");
  for (const double v : m.tensor_ready_s)
    if (!std::isfinite(v)) throw TraceError("trace: a gradient's ready time is not finite");
  return job;
}

}  // namespace gcu::import
