// Small lookups on the profile structs (profile.h): element counts, collective keys and
// the compute table lookup with interpolation/extrapolation for weak scaling.
#include "model/profile.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gcu::model {

std::string convergence_source(const Convergence& c) {
  if (!c.source.empty()) return c.source;
  for (const auto& [spec, f] : c.schemes)
    if (f.pilot) return "pilot";
  return "assumed";
}

bool convergence_is_measured(const Convergence& c) {
  const std::string s = convergence_source(c);
  return s == "pilot" || s == "calibrated";
}

const char* collective_key(compress::CollectiveKind k) {
  switch (k) {
    case compress::CollectiveKind::AllReduce: return "allreduce";
    case compress::CollectiveKind::AllGather: return "allgather";
    case compress::CollectiveKind::ReduceScatter: return "reducescatter";
    case compress::CollectiveKind::Broadcast: return "broadcast";
  }
  return "?";
}

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Model::numel() const {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel();
  return n;
}

namespace {
// Linear in batch through (b0, v0), (b1, v1), evaluated at b; never negative.
double lerp(double b0, double v0, double b1, double v1, double b) {
  if (b1 == b0) return v0;
  return std::max(0.0, v0 + (v1 - v0) * (b - b0) / (b1 - b0));
}
}  // namespace

ComputeAt compute_for_batch(const Model& m, int batch_size) {
  if (m.compute.empty())
    throw ModelError("profile: model.compute is empty: no forward/backward times for model '" +
                     m.name + "'");
  if (batch_size < 1)
    throw ModelError("batch size " + std::to_string(batch_size) + " is not >= 1");
  std::vector<const ComputeEntry*> es;
  for (const auto& e : m.compute) es.push_back(&e);
  std::sort(es.begin(), es.end(),
            [](const ComputeEntry* a, const ComputeEntry* b) { return a->batch_size < b->batch_size; });
  for (const auto* e : es)
    if (e->batch_size == batch_size) return {*e, true, ""};

  ComputeAt out;
  out.exact = false;
  std::ostringstream note;
  const ComputeEntry* lo = nullptr;
  const ComputeEntry* hi = nullptr;
  if (es.size() == 1) {
    // One point: forward/backward/data proportional to batch, optimizer unchanged.
    const ComputeEntry& e = *es[0];
    const double f = double(batch_size) / e.batch_size;
    out.compute = e;
    out.compute.forward_s = e.forward_s * f;
    out.compute.backward_s = e.backward_s * f;
    out.compute.data_s = e.data_s * f;
    note << "batch " << batch_size << " scaled proportionally from the only measured batch "
         << e.batch_size;
  } else {
    // Bracketing pair, or the two nearest on the side we extrapolate from.
    auto it = std::lower_bound(es.begin(), es.end(), batch_size,
                               [](const ComputeEntry* e, int b) { return e->batch_size < b; });
    if (it == es.begin()) { lo = es[0]; hi = es[1]; }
    else if (it == es.end()) { lo = es[es.size() - 2]; hi = es.back(); }
    else { lo = *(it - 1); hi = *it; }
    const bool inside = lo->batch_size < batch_size && batch_size < hi->batch_size;
    auto L = [&](double a, double b) { return lerp(lo->batch_size, a, hi->batch_size, b, batch_size); };
    out.compute.forward_s = L(lo->forward_s, hi->forward_s);
    out.compute.backward_s = L(lo->backward_s, hi->backward_s);
    out.compute.optimizer_s = L(lo->optimizer_s, hi->optimizer_s);
    out.compute.data_s = L(lo->data_s, hi->data_s);
    note << "batch " << batch_size << (inside ? " interpolated between " : " extrapolated linearly from ")
         << lo->batch_size << " and " << hi->batch_size;
  }
  out.compute.batch_size = batch_size;
  // ready_s: keep the nearest entry's ready_s / backward_s profile.
  out.compute.ready_s.clear();
  const ComputeEntry* nearest = nullptr;
  for (const auto* e : es)
    if (!e->ready_s.empty() &&
        (!nearest || std::abs(e->batch_size - batch_size) < std::abs(nearest->batch_size - batch_size)))
      nearest = e;
  if (nearest && nearest->backward_s > 0) {
    const double f = out.compute.backward_s / nearest->backward_s;
    for (double r : nearest->ready_s) out.compute.ready_s.push_back(r * f);
    note << "; ready times scaled from batch " << nearest->batch_size;
  }
  out.note = note.str();
  return out;
}

}  // namespace gcu::model
