// "powersgd" on the CPU (powersgd.h): Eigen GEMMs on the bucket's row-major matrices,
// OpenMP across matrices when there are several.
#include "powersgd.h"

#include "rng.h"

#include <Eigen/Dense>

#include <cmath>
#include <cstring>
#include <limits>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gcu::compress {
namespace {
const char* kMagic = "gcu.powersgd/1";
constexpr uint64_t kSalt = ~uint64_t{0};

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

// Runs fn(i) for every matrix: in parallel across matrices when there are enough of
// them (each GEMM then runs single-threaded), else one by one (Eigen threads each GEMM).
template <class Fn>
void for_matrices(const PowerSgdPlan& pl, Fn fn) {
  const int64_t k = static_cast<int64_t>(pl.matrices.size());
#ifdef _OPENMP
  if (k >= 2 * omp_get_max_threads() && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(dynamic)
    for (int64_t i = 0; i < k; ++i) fn(pl.matrices[i]);
    return;
  }
#endif
  for (int64_t i = 0; i < k; ++i) fn(pl.matrices[i]);
}
}  // namespace

void orthogonalize_columns(float* a, int64_t rows, int64_t cols) {
  Eigen::Map<ColMat> A(a, rows, cols);
  for (int64_t i = 0; i < cols; ++i) {
    const float norm = A.col(i).norm();
    if (norm > 0 && std::isfinite(norm)) A.col(i) /= norm;
    else if (norm == 0) A.col(i).setZero();
    else A.col(i).setConstant(std::numeric_limits<float>::quiet_NaN());
    for (int64_t j = i + 1; j < cols; ++j) A.col(j) -= A.col(i).dot(A.col(j)) * A.col(i);
  }
}

PowerSgdPlan PowerSgdPlan::of(const PowerSgdParams& prm, const BucketLayout& layout) {
  PowerSgdPlan pl;
  int64_t off = 0;
  for (const auto& shape : layout.shapes) {
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    bool compressed = false;
    if (shape.size() >= 2 && numel > 0) {
      const int64_t rows = shape[0], cols = numel / rows;
      const int64_t r = std::min({prm.rank, rows, cols});
      if (static_cast<double>((rows + cols) * r) * prm.min_rate < static_cast<double>(rows * cols)) {
        pl.matrices.push_back({off, rows, cols, r, pl.p_numel, pl.q_numel});
        pl.p_numel += rows * r;
        pl.q_numel += cols * r;
        compressed = true;
      }
    }
    if (!compressed && numel > 0) {
      pl.uncompressed.push_back({off, numel});
      pl.uncompressed_numel += numel;
    }
    off += numel;
  }
  return pl;
}

PowerSgdCompressor::PowerSgdCompressor(PowerSgdParams p) : prm_(p) {
  if (p.rank < 1) throw CompressorError("powersgd: rank=" + std::to_string(p.rank) + " must be >= 1");
  if (!(p.min_rate >= 0) || !std::isfinite(p.min_rate))
    throw CompressorError("powersgd: min_rate=" + std::to_string(p.min_rate) + " must be >= 0");
}

std::string PowerSgdCompressor::spec() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", prm_.min_rate);
  std::string s = "powersgd:rank=" + std::to_string(prm_.rank) +
                  ",warm_start=" + (prm_.warm_start ? "true" : "false") + ",min_rate=" + buf;
  if (prm_.seed != 0) s += ",seed=" + std::to_string(prm_.seed);
  return s;
}

std::vector<CollectiveCall> PowerSgdCompressor::plan(const BucketLayout& layout, int) const {
  const PowerSgdPlan pl = PowerSgdPlan::of(prm_, layout);
  std::vector<CollectiveCall> calls;
  if (pl.uncompressed_numel > 0)
    calls.push_back({CollectiveKind::AllReduce, WireType::F32, pl.uncompressed_numel, "1-D tensors"});
  if (!pl.matrices.empty()) {
    calls.push_back({CollectiveKind::AllReduce, WireType::F32, pl.p_numel, "P"});
    calls.push_back({CollectiveKind::AllReduce, WireType::F32, pl.q_numel, "Q"});
  }
  return calls;
}

const std::vector<float>* PowerSgdCompressor::warm_q(int64_t bucket_index) const {
  auto it = state_.find(bucket_index);
  if (!prm_.warm_start || it == state_.end() || it->second.q.empty()) return nullptr;
  return &it->second.q;
}

void PowerSgdCompressor::run(int64_t index, float* data, const BucketLayout& layout,
                             Communicator* comm) {
  const PowerSgdPlan pl = PowerSgdPlan::of(prm_, layout);
  const int p = comm ? comm->world_size() : 1;
  const float inv_p = 1.0f / static_cast<float>(p);
  // 1. uncompressed tensors
  if (pl.uncompressed_numel > 0 && comm) {
    u_.resize(static_cast<size_t>(pl.uncompressed_numel));
    int64_t at = 0;
    for (auto [off, len] : pl.uncompressed) {
      std::memcpy(u_.data() + at, data + off, static_cast<size_t>(len) * sizeof(float));
      at += len;
    }
    comm->all_reduce(u_.data(), pl.uncompressed_numel, WireType::F32, ReduceOp::Sum);
    at = 0;
    for (auto [off, len] : pl.uncompressed) {
      for (int64_t i = 0; i < len; ++i) data[off + i] = u_[at + i] * inv_p;
      at += len;
    }
  }
  if (pl.matrices.empty()) return;
  BucketState& st = state_[index];
  const uint64_t step = st.steps++;
  if (!st.q.empty() && static_cast<int64_t>(st.q.size()) != pl.q_numel)
    throw CompressorError("powersgd: bucket " + std::to_string(index) + " needs a Q of " +
                          std::to_string(pl.q_numel) + " floats, but its state holds " +
                          std::to_string(st.q.size()) + " (layout changed?)");
  if (st.q.empty() || !prm_.warm_start) {
    st.q.resize(static_cast<size_t>(pl.q_numel));
    const uint64_t key = rng::stream_key(prm_.seed, static_cast<uint64_t>(index), step, kSalt);
    for (int64_t j = 0; j < pl.q_numel; ++j) st.q[j] = rng::normal(key, static_cast<uint64_t>(j));
  }
  p_.resize(static_cast<size_t>(pl.p_numel));
  float* q = st.q.data();
  float* pbuf = p_.data();
  // 2. P = M orth(Q)
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m) {
    orthogonalize_columns(q + m.q_offset, m.cols, m.rank);
    Eigen::Map<const RowMat> M(data + m.offset, m.rows, m.cols);
    Eigen::Map<const ColMat> Q(q + m.q_offset, m.cols, m.rank);
    Eigen::Map<ColMat> P(pbuf + m.p_offset, m.rows, m.rank);
    P.noalias() = M * Q;
  });
  // 3.
  if (comm) comm->all_reduce(pbuf, pl.p_numel, WireType::F32, ReduceOp::Sum);
  // 4. Q = M^T orth(P)
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m) {
    orthogonalize_columns(pbuf + m.p_offset, m.rows, m.rank);
    Eigen::Map<const RowMat> M(data + m.offset, m.rows, m.cols);
    Eigen::Map<const ColMat> P(pbuf + m.p_offset, m.rows, m.rank);
    Eigen::Map<ColMat> Q(q + m.q_offset, m.cols, m.rank);
    Q.noalias() = M.transpose() * P;
  });
  // 5.
  if (comm) comm->all_reduce(q, pl.q_numel, WireType::F32, ReduceOp::Sum);
  bool finite = true;
  for (int64_t j = 0; j < pl.q_numel; ++j) {
    q[j] *= inv_p;
    finite = finite && std::isfinite(q[j]);
  }
  // 6. M = P Q^T
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m) {
    Eigen::Map<RowMat> M(data + m.offset, m.rows, m.cols);
    Eigen::Map<const ColMat> P(pbuf + m.p_offset, m.rows, m.rank);
    Eigen::Map<const ColMat> Q(q + m.q_offset, m.cols, m.rank);
    M.noalias() = P * Q.transpose();
  });
  if (!finite) st.q.clear();
}

void PowerSgdCompressor::step(GradBucket b, Communicator& comm) {
  if (b.numel() == 0) return;
  run(b.index, b.data, *b.layout, &comm);
}

void PowerSgdCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                                   const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  if (out != in) std::memcpy(out, in, static_cast<size_t>(n) * sizeof(float));
  run(bucket_index, out, layout, nullptr);
}

// State: magic, u64 count, then per bucket: i64 index, u64 steps, u64 q length, floats.
std::vector<uint8_t> PowerSgdCompressor::save_state() const {
  std::vector<uint8_t> out(kMagic, kMagic + std::strlen(kMagic));
  auto put = [&](const void* p, size_t n) {
    out.insert(out.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
  };
  const uint64_t count = state_.size();
  put(&count, 8);
  for (const auto& [index, st] : state_) {
    const uint64_t len = st.q.size();
    put(&index, 8);
    put(&st.steps, 8);
    put(&len, 8);
    put(st.q.data(), len * sizeof(float));
  }
  return out;
}

void PowerSgdCompressor::load_state(const std::vector<uint8_t>& state) {
  if (state.empty()) { state_.clear(); return; }
  const size_t ml = std::strlen(kMagic);
  if (state.size() < ml || std::memcmp(state.data(), kMagic, ml) != 0)
    throw CompressorError(std::string("powersgd: checkpoint state is not a '") + kMagic + "' state");
  size_t pos = ml;
  auto get = [&](void* p, size_t n) {
    if (n > state.size() - pos)
      throw CompressorError("powersgd: checkpoint state truncated at byte " + std::to_string(pos) +
                            " of " + std::to_string(state.size()));
    std::memcpy(p, state.data() + pos, n);
    pos += n;
  };
  std::map<int64_t, BucketState> res;
  uint64_t count = 0;
  get(&count, 8);
  for (uint64_t k = 0; k < count; ++k) {
    int64_t index = 0;
    uint64_t len = 0;
    BucketState st;
    get(&index, 8);
    get(&st.steps, 8);
    get(&len, 8);
    if (len > (state.size() - pos) / sizeof(float))
      throw CompressorError("powersgd: checkpoint Q of bucket " + std::to_string(index) + " claims " +
                            std::to_string(len) + " floats, more than the state holds");
    st.q.resize(len);
    get(st.q.data(), len * sizeof(float));
    res[index] = std::move(st);
  }
  if (pos != state.size())
    throw CompressorError("powersgd: checkpoint state has " + std::to_string(state.size() - pos) +
                          " unexpected trailing bytes");
  state_ = std::move(res);
}

void register_powersgd(Registry& r) {
  r.add({"powersgd",
         "rank=<r, default 4>, warm_start=<bool, default true>, min_rate=<default 2>, seed=<default 0>",
         "PowerSGD rank-r approximation; all-reduce of 1-D tensors, then of P, then of Q",
         [](const SchemeArgs& a) {
           PowerSgdParams p;
           p.rank = a.get_positive_int("rank", 4);
           p.warm_start = a.get_bool("warm_start", true);
           p.min_rate = a.get_double("min_rate", 2.0);
           p.seed = static_cast<uint64_t>(a.get_int("seed", 0));
           return std::make_unique<PowerSgdCompressor>(p);
         },
         nullptr});
}

}  // namespace gcu::compress
