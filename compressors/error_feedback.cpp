// Error-feedback wrapper (error_feedback.h).
#include "error_feedback.h"

#include "state_io.h"
#include "util/text.h"

namespace gcu::compress {

bool parse_ef_spec(const std::string& spec, std::string* inner) {
  const auto b = spec.find_first_not_of(" \t");
  const auto e = spec.find_last_not_of(" \t");
  if (b == std::string::npos) return false;
  const std::string s = spec.substr(b, e - b + 1);
  if (s.size() < 4 || s.compare(0, 3, "ef(") != 0 || s.back() != ')') return false;
  *inner = s.substr(3, s.size() - 4);
  return true;
}

void check_ef_nesting(const std::string& spec) {
  int depth = 0;
  size_t i = 0;
  for (;;) {
    while (i < spec.size() && (spec[i] == ' ' || spec[i] == '\t')) ++i;
    if (spec.compare(i, 3, "ef(") != 0) return;
    i += 3;
    if (++depth > kMaxEfNesting)
      throw CompressorError("scheme spec " + util::quote(spec) + ": ef(...) nested more than " +
                            std::to_string(kMaxEfNesting) + " deep (error feedback twice is already pointless)");
  }
}

ErrorFeedback::ErrorFeedback(std::unique_ptr<Compressor> inner) : inner_(std::move(inner)) {
  if (!inner_) throw CompressorError("ef(): no inner scheme");
  if (inner_->device() != Device::CPU)
    throw CompressorError("ef(" + inner_->spec() + "): error feedback runs on CPU buffers only in this build");
}

SchemeTraits ErrorFeedback::traits() const {
  SchemeTraits t = inner_->traits();
  t.error_feedback = true;
  t.stateful = true;
  return t;
}

std::vector<float>& ErrorFeedback::residual_for(int64_t bucket_index, int64_t n) {
  auto& e = residuals_[bucket_index];
  if (e.empty()) e.assign(n, 0.0f);
  if (static_cast<int64_t>(e.size()) != n)
    throw CompressorError(spec() + ": bucket " + std::to_string(bucket_index) + " has " +
                          std::to_string(n) + " elements but its residual has " +
                          std::to_string(e.size()));
  return e;
}

const std::vector<float>& ErrorFeedback::residual(int64_t bucket_index) const {
  static const std::vector<float> none;
  auto it = residuals_.find(bucket_index);
  return it == residuals_.end() ? none : it->second;
}

void ErrorFeedback::step_with_local(GradBucket b, Communicator& comm, float* local) {
  const int64_t n = b.numel();
  if (n == 0) return inner_->step(b, comm);
  auto& e = residual_for(b.index, n);
  float* g = b.data;
#pragma omp parallel for simd schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) {
    g[i] += e[i];
    e[i] = g[i];  // e holds x until the inner step has produced c
  }
  local_.resize(n);
  inner_->step_with_local(b, comm, local_.data());
#pragma omp parallel for simd schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) e[i] -= local_[i];
  if (local) std::copy(local_.begin(), local_.end(), local);
}

void ErrorFeedback::roundtrip(int64_t bucket_index, const float* in, float* out,
                              const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  auto& e = residual_for(bucket_index, n);
#pragma omp parallel for simd schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) e[i] += in[i];  // x
  inner_->roundtrip(bucket_index, e.data(), out, layout);
#pragma omp parallel for simd schedule(static) if (n >= (1 << 18))
  for (int64_t i = 0; i < n; ++i) e[i] -= out[i];
}

std::vector<uint8_t> ErrorFeedback::save_state() const {
  StateWriter w("GCUEF1");
  w.put<uint64_t>(residuals_.size());
  for (const auto& [bucket, e] : residuals_) {
    w.put<int64_t>(bucket);
    w.put<uint64_t>(e.size());
    w.put_bytes(e.data(), e.size() * sizeof(float));
  }
  const std::vector<uint8_t> inner = inner_->save_state();
  w.put<uint64_t>(inner.size());
  w.put_bytes(inner.data(), inner.size());
  return w.take();
}

void ErrorFeedback::load_state(const std::vector<uint8_t>& state) {
  residuals_.clear();
  if (state.empty()) return inner_->load_state({});
  StateReader r(state, "GCUEF1", spec());
  const auto count = r.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto bucket = r.get<int64_t>();
    const auto n = r.get<uint64_t>();
    if (n > r.remaining() / sizeof(float))
      throw CompressorError(spec() + ": checkpoint residual of bucket " + std::to_string(bucket) +
                            " claims " + std::to_string(n) + " floats, more than the state holds");
    auto& e = residuals_[bucket];
    e.resize(n);
    r.get_bytes(e.data(), n * sizeof(float));
  }
  const auto inner_n = r.get<uint64_t>();
  if (inner_n > r.remaining())
    throw CompressorError(spec() + ": checkpoint inner state truncated");
  std::vector<uint8_t> inner(inner_n);
  r.get_bytes(inner.data(), inner_n);
  r.expect_end();
  inner_->load_state(inner);
}

}  // namespace gcu::compress
