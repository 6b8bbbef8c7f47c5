// "powersgd" on the CPU (powersgd.h): hand-written tall-skinny products (one pass over M
// each, AVX2 + FMA clones, OpenMP over rows or across matrices), Eigen for the small
// Gram-Schmidt; without communication (roundtrip) matrix by matrix, so M's second read
// hits the cache; non-temporal stores for P Q^T when the bucket exceeds the caches.
#include "powersgd.h"

#include "bitpack.h"  // GCU_CLONES
#include "rng.h"
#include "state_io.h"

#include <Eigen/Dense>

#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gcu::compress {
namespace {
const char* kPowerSgdMagic = "gcu.powersgd/1";
constexpr uint64_t kPowerSgdSalt = ~uint64_t{0};

using ColMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

// Runs fn(matrix, parallel) for every matrix: in parallel across matrices when there are
// enough of them (each product then runs single-threaded), else one by one with the
// products parallel over rows.
template <class Fn>
void for_matrices(const PowerSgdPlan& pl, Fn fn) {
  const int64_t k = static_cast<int64_t>(pl.matrices.size());
#ifdef _OPENMP
  if (k >= 2 * omp_get_max_threads() && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(dynamic)
    for (int64_t i = 0; i < k; ++i) fn(pl.matrices[i], false);
    return;
  }
#endif
  for (int64_t i = 0; i < k; ++i) fn(pl.matrices[i], true);
}

constexpr int64_t kPowerSgdParallelMin = 1 << 16;

// P[:, c0..c0+4) rows [b, e) = M rows [b, e) * Q[:, c0..c0+g) (g <= 4 columns).
GCU_CLONES void mq_rows(const float* M, int64_t rows, int64_t cols, const float* Q, int64_t c0,
                        int64_t g, float* P, int64_t b, int64_t e) {
  const float* q0 = Q + c0 * cols;
  const float* q1 = g > 1 ? q0 + cols : q0;
  const float* q2 = g > 2 ? q0 + 2 * cols : q0;
  const float* q3 = g > 3 ? q0 + 3 * cols : q0;
  for (int64_t i = b; i < e; ++i) {
    const float* m = M + i * cols;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
    for (int64_t j = 0; j < cols; ++j) {
      a0 += m[j] * q0[j];
      a1 += m[j] * q1[j];
      a2 += m[j] * q2[j];
      a3 += m[j] * q3[j];
    }
    const float a[4] = {a0, a1, a2, a3};
    for (int64_t c = 0; c < g; ++c) P[(c0 + c) * rows + i] = a[c];
  }
}

// Q[:, c] += sum over rows i in [b, e) of M[i, :] * P[i, c], for all r columns.
GCU_CLONES void mtp_rows(const float* M, int64_t rows, int64_t cols, const float* P, int64_t r,
                         float* Q, int64_t b, int64_t e) {
  int64_t i = b;
  for (; i + 4 <= e; i += 4) {  // four rows per pass over Q
    const float* m0 = M + i * cols;
    const float* m1 = m0 + cols;
    const float* m2 = m1 + cols;
    const float* m3 = m2 + cols;
    for (int64_t c = 0; c < r; ++c) {
      const float p0 = P[c * rows + i], p1 = P[c * rows + i + 1], p2 = P[c * rows + i + 2],
                  p3 = P[c * rows + i + 3];
      float* q = Q + c * cols;
#pragma omp simd
      for (int64_t j = 0; j < cols; ++j) q[j] += m0[j] * p0 + m1[j] * p1 + m2[j] * p2 + m3[j] * p3;
    }
  }
  for (; i < e; ++i) {
    const float* m = M + i * cols;
    for (int64_t c = 0; c < r; ++c) {
      const float pc = P[c * rows + i];
      float* q = Q + c * cols;
#pragma omp simd
      for (int64_t j = 0; j < cols; ++j) q[j] += m[j] * pc;
    }
  }
}

// M rows [b, e) = P Q^T (columns in groups of four, one store per element and group).
GCU_CLONES void pqt_rows(float* M, int64_t rows, int64_t cols, const float* P, const float* Q,
                         int64_t r, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; ++i) {
    float* m = M + i * cols;
    for (int64_t c0 = 0; c0 < r; c0 += 4) {
      const int64_t g = std::min<int64_t>(4, r - c0);
      const float p0 = P[c0 * rows + i];
      const float p1 = g > 1 ? P[(c0 + 1) * rows + i] : 0.0f;
      const float p2 = g > 2 ? P[(c0 + 2) * rows + i] : 0.0f;
      const float p3 = g > 3 ? P[(c0 + 3) * rows + i] : 0.0f;
      const float* q0 = Q + c0 * cols;
      const float* q1 = g > 1 ? q0 + cols : q0;
      const float* q2 = g > 2 ? q0 + 2 * cols : q0;
      const float* q3 = g > 3 ? q0 + 3 * cols : q0;
      if (c0 == 0) {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) m[j] = p0 * q0[j] + p1 * q1[j] + p2 * q2[j] + p3 * q3[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) m[j] += p0 * q0[j] + p1 * q1[j] + p2 * q2[j] + p3 * q3[j];
      }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define GCU_PSGD_STREAM 1
// pqt_rows() with non-temporal stores, for outputs far larger than the caches. The same
// operations, in the same order, as the x86-64-v3 clone of pqt_rows() (GCC contracts
// p0 q0 + p1 q1 + p2 q2 + p3 q3 as fma(p3, q3, fma(p2, q2, fma(p0, q0, p1 q1))), read off its
// assembly (GCC 12, checked bit for bit against it),
// and adds the groups of four columns one after another).
__attribute__((target("avx2,fma"))) inline float pqt_one(const float* P, const float* Q, int64_t rows, int64_t cols,
                                                       int64_t r, int64_t i, int64_t j) {
  float acc = 0.0f;
  for (int64_t c0 = 0; c0 < r; c0 += 4) {
    const int64_t g = std::min<int64_t>(4, r - c0);
    const float p0 = P[c0 * rows + i];
    const float p1 = g > 1 ? P[(c0 + 1) * rows + i] : 0.0f;
    const float p2 = g > 2 ? P[(c0 + 2) * rows + i] : 0.0f;
    const float p3 = g > 3 ? P[(c0 + 3) * rows + i] : 0.0f;
    const float* q0 = Q + c0 * cols;
    const float* q1 = g > 1 ? q0 + cols : q0;
    const float* q2 = g > 2 ? q0 + 2 * cols : q0;
    const float* q3 = g > 3 ? q0 + 3 * cols : q0;
    __m128 t = _mm_mul_ss(_mm_set_ss(p1), _mm_set_ss(q1[j]));
    t = _mm_fmadd_ss(_mm_set_ss(p0), _mm_set_ss(q0[j]), t);
    t = _mm_fmadd_ss(_mm_set_ss(p2), _mm_set_ss(q2[j]), t);
    t = _mm_fmadd_ss(_mm_set_ss(p3), _mm_set_ss(q3[j]), t);
    acc = c0 == 0 ? _mm_cvtss_f32(t) : acc + _mm_cvtss_f32(t);
  }
  return acc;
}

// Rank <= 4 (one group of columns; other ranks take the plain path).
__attribute__((target("avx2,fma"))) void pqt_rows_stream(float* M, int64_t rows, int64_t cols, const float* P,
                                                       const float* Q, int64_t r, int64_t b, int64_t e) {
  const float* q0 = Q;
  const float* q1 = r > 1 ? q0 + cols : q0;
  const float* q2 = r > 2 ? q0 + 2 * cols : q0;
  const float* q3 = r > 3 ? q0 + 3 * cols : q0;
  for (int64_t i = b; i < e; ++i) {
    float* m = M + i * cols;
    const float s0 = P[i], s1 = r > 1 ? P[rows + i] : 0.0f, s2 = r > 2 ? P[2 * rows + i] : 0.0f,
                s3 = r > 3 ? P[3 * rows + i] : 0.0f;
    const __m256 p0 = _mm256_set1_ps(s0), p1 = _mm256_set1_ps(s1), p2 = _mm256_set1_ps(s2), p3 = _mm256_set1_ps(s3);
    int64_t j = 0;
    for (; j < cols && (reinterpret_cast<uintptr_t>(m + j) & 31u); ++j) m[j] = pqt_one(P, Q, rows, cols, r, i, j);
    for (; j + 8 <= cols; j += 8) {
      __m256 t = _mm256_mul_ps(p1, _mm256_loadu_ps(q1 + j));
      t = _mm256_fmadd_ps(p0, _mm256_loadu_ps(q0 + j), t);
      t = _mm256_fmadd_ps(p2, _mm256_loadu_ps(q2 + j), t);
      t = _mm256_fmadd_ps(p3, _mm256_loadu_ps(q3 + j), t);
      _mm256_stream_ps(m + j, t);
    }
    for (; j < cols; ++j) m[j] = pqt_one(P, Q, rows, cols, r, i, j);
  }
  _mm_sfence();
}

bool have_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}
#endif

bool split_rows(const PowerSgdPlan::Matrix& m, bool parallel) {
  return parallel && m.rows * m.cols > kPowerSgdParallelMin && m.rows >= 8;
}

void matrix_mq(const float* M, const PowerSgdPlan::Matrix& m, const float* Q, float* P, bool parallel) {
  for (int64_t c0 = 0; c0 < m.rank; c0 += 4) {
    const int64_t g = std::min<int64_t>(4, m.rank - c0);
#pragma omp parallel for if (split_rows(m, parallel)) schedule(static)
    for (int64_t blk = 0; blk < (m.rows + 63) / 64; ++blk)
      mq_rows(M, m.rows, m.cols, Q, c0, g, P, blk * 64, std::min(m.rows, blk * 64 + 64));
  }
}

void matrix_mtp(const float* M, const PowerSgdPlan::Matrix& m, const float* P, float* Q, bool parallel) {
  const int64_t qn = m.cols * m.rank;
  std::fill(Q, Q + qn, 0.0f);
#ifdef _OPENMP
  if (split_rows(m, parallel) && omp_get_max_threads() > 1) {
    const int T = omp_get_max_threads();
    std::vector<float> part(static_cast<size_t>(T - 1) * qn, 0.0f);
#pragma omp parallel num_threads(T)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const int64_t b = m.rows * t / nt, e = m.rows * (t + 1) / nt;
      mtp_rows(M, m.rows, m.cols, P, m.rank, t == 0 ? Q : part.data() + (t - 1) * qn, b, e);
    }
    for (int t = 1; t < T; ++t)
      for (int64_t j = 0; j < qn; ++j) Q[j] += part[(t - 1) * qn + j];
    return;
  }
#endif
  mtp_rows(M, m.rows, m.cols, P, m.rank, Q, 0, m.rows);
}

// stream: non-temporal stores (the bucket is far larger than the caches).
void matrix_pqt(float* M, const PowerSgdPlan::Matrix& m, const float* P, const float* Q, bool parallel,
                bool stream) {
#ifdef GCU_PSGD_STREAM
  stream = stream && m.rank <= 4 && have_avx2_fma();
#else
  stream = false;
#endif
#pragma omp parallel for if (split_rows(m, parallel)) schedule(static)
  for (int64_t blk = 0; blk < (m.rows + 63) / 64; ++blk) {
#ifdef GCU_PSGD_STREAM
    if (stream) {
      pqt_rows_stream(M, m.rows, m.cols, P, Q, m.rank, blk * 64, std::min(m.rows, blk * 64 + 64));
      continue;
    }
#endif
    pqt_rows(M, m.rows, m.cols, P, Q, m.rank, blk * 64, std::min(m.rows, blk * 64 + 64));
  }
}

// Step 1: the uncompressed tensors, copied to data and (with a communicator) averaged in
// one all-reduce through the staging buffer u.
void reduce_uncompressed(const PowerSgdPlan& pl, const float* src, float* data, Communicator* comm, float inv_p,
                         std::vector<float>& u) {
  if (src != data)
    for (auto [off, len] : pl.uncompressed)
      std::memcpy(data + off, src + off, static_cast<size_t>(len) * sizeof(float));
  if (pl.uncompressed_numel > 0 && comm) {
    u.resize(static_cast<size_t>(pl.uncompressed_numel));
    int64_t at = 0;
    for (auto [off, len] : pl.uncompressed) {
      std::memcpy(u.data() + at, data + off, static_cast<size_t>(len) * sizeof(float));
      at += len;
    }
    comm->all_reduce(u.data(), pl.uncompressed_numel, WireType::F32, ReduceOp::Sum);
    at = 0;
    for (auto [off, len] : pl.uncompressed) {
      for (int64_t i = 0; i < len; ++i) data[off + i] = u[at + i] * inv_p;
      at += len;
    }
  }
}

// The bucket's Q for this step: checked against the plan, and drawn afresh (normal, from
// the seed, the bucket and the step) when empty or without warm start.
void prepare_q(std::vector<float>& q, const PowerSgdPlan& pl, const PowerSgdParams& prm, int64_t index,
               uint64_t step) {
  if (!q.empty() && static_cast<int64_t>(q.size()) != pl.q_numel)
    throw CompressorError("powersgd: bucket " + std::to_string(index) + " needs a Q of " +
                          std::to_string(pl.q_numel) + " floats, but its state holds " +
                          std::to_string(q.size()) + " (layout changed?)");
  if (q.empty() || !prm.warm_start) {
    q.resize(static_cast<size_t>(pl.q_numel));
    const uint64_t key = rng::stream_key(prm.seed, static_cast<uint64_t>(index), step, kPowerSgdSalt);
    for (int64_t j = 0; j < pl.q_numel; ++j) q[j] = rng::normal(key, static_cast<uint64_t>(j));
  }
}

// One rank, no collectives: steps 2-6 matrix by matrix, so that the second read of each M
// (step 4) comes from the cache. The same operations on each matrix. Returns whether Q
// stayed finite.
bool local_matrices(const PowerSgdPlan& pl, const float* src, float* data, float* q, float* pbuf, float inv_p,
                    bool stream) {
  bool finite = true;
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m, bool par) {
    float* qm = q + m.q_offset;
    float* pm = pbuf + m.p_offset;
    orthogonalize_columns(qm, m.cols, m.rank);
    matrix_mq(src + m.offset, m, qm, pm, par);
    orthogonalize_columns(pm, m.rows, m.rank);
    matrix_mtp(src + m.offset, m, pm, qm, par);
    bool fin = true;
    for (int64_t j = 0; j < m.cols * m.rank; ++j) {
      qm[j] *= inv_p;
      fin = fin && std::isfinite(qm[j]);
    }
    matrix_pqt(data + m.offset, m, pm, qm, par, stream);
    if (!fin) {
#pragma omp atomic write
      finite = false;
    }
  });
  return finite;
}

// Steps 2-6 with the all-reduces of P and Q between them. Returns whether Q stayed finite.
bool reduced_matrices(const PowerSgdPlan& pl, const float* src, float* data, float* q, float* pbuf, float inv_p,
                      bool stream, Communicator* comm) {
  // 2. P = M orth(Q)
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m, bool par) {
    orthogonalize_columns(q + m.q_offset, m.cols, m.rank);
    matrix_mq(src + m.offset, m, q + m.q_offset, pbuf + m.p_offset, par);
  });
  // 3.
  if (comm) comm->all_reduce(pbuf, pl.p_numel, WireType::F32, ReduceOp::Sum);
  // 4. Q = M^T orth(P)
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m, bool par) {
    orthogonalize_columns(pbuf + m.p_offset, m.rows, m.rank);
    matrix_mtp(src + m.offset, m, pbuf + m.p_offset, q + m.q_offset, par);
  });
  // 5.
  if (comm) comm->all_reduce(q, pl.q_numel, WireType::F32, ReduceOp::Sum);
  bool finite = true;
  for (int64_t j = 0; j < pl.q_numel; ++j) {
    q[j] *= inv_p;
    finite = finite && std::isfinite(q[j]);
  }
  // 6. M = P Q^T
  for_matrices(pl, [&](const PowerSgdPlan::Matrix& m, bool par) {
    matrix_pqt(data + m.offset, m, pbuf + m.p_offset, q + m.q_offset, par, stream);
  });
  return finite;
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

void PowerSgdCompressor::run(int64_t index, const float* src, float* data,
                             const BucketLayout& layout, Communicator* comm) {
  const PowerSgdPlan pl = PowerSgdPlan::of(prm_, layout);
  const int p = comm ? comm->world_size() : 1;
  const float inv_p = 1.0f / static_cast<float>(p);
  reduce_uncompressed(pl, src, data, comm, inv_p, u_);
  if (pl.matrices.empty()) return;
  BucketState& st = state_[index];
  const uint64_t step = st.steps++;
  prepare_q(st.q, pl, prm_, index, step);
  p_.resize(static_cast<size_t>(pl.p_numel));
  float* q = st.q.data();
  float* pbuf = p_.data();
  const bool stream = layout.numel() >= bits::kStreamMin;
  const bool finite = comm ? reduced_matrices(pl, src, data, q, pbuf, inv_p, stream, comm)
                           : local_matrices(pl, src, data, q, pbuf, inv_p, stream);
  if (!finite) st.q.clear();
}

void PowerSgdCompressor::step(GradBucket b, Communicator& comm) {
  if (b.numel() == 0) return;
  run(b.index, b.data, b.data, *b.layout, &comm);
}

void PowerSgdCompressor::roundtrip(int64_t bucket_index, const float* in, float* out,
                                   const BucketLayout& layout) {
  const int64_t n = layout.numel();
  if (n == 0) return;
  run(bucket_index, in, out, layout, nullptr);  // reads `in`, writes every element of `out`
}

// State: magic, u64 count, then per bucket: i64 index, u64 steps, u64 q length, floats.
std::vector<uint8_t> PowerSgdCompressor::save_state() const {
  StateWriter w(kPowerSgdMagic);
  w.put(uint64_t{state_.size()});
  for (const auto& [index, st] : state_) {
    w.put(index);
    w.put(st.steps);
    w.put(uint64_t{st.q.size()});
    w.put_bytes(st.q.data(), st.q.size() * sizeof(float));
  }
  return w.take();
}

void PowerSgdCompressor::load_state(const std::vector<uint8_t>& state) {
  if (state.empty()) { state_.clear(); return; }
  StateReader r(state, kPowerSgdMagic, "powersgd");
  std::map<int64_t, BucketState> res;
  const auto count = r.get<uint64_t>();
  for (uint64_t k = 0; k < count; ++k) {
    BucketState st;
    const auto index = r.get<int64_t>();
    st.steps = r.get<decltype(st.steps)>();
    const auto len = r.get<uint64_t>();
    if (len > r.remaining() / sizeof(float))
      throw CompressorError("powersgd: checkpoint Q of bucket " + std::to_string(index) + " claims " +
                            std::to_string(len) + " floats, more than the state holds");
    st.q.resize(len);
    r.get_bytes(st.q.data(), len * sizeof(float));
    res[index] = std::move(st);
  }
  r.expect_end();
  state_ = std::move(res);
}

namespace {

PowerSgdParams powersgd_params_of(const SchemeArgs& a) {
  PowerSgdParams p;
  p.rank = a.get_positive_int("rank", 4);
  p.warm_start = a.get_bool("warm_start", true);
  p.min_rate = a.get_double("min_rate", 2.0);
  p.seed = a.get_seed();
  return p;
}

// cuda/powersgd.cu, warm (Q kept from the last step). Encode: per 1-D tensor a device copy
// into the all-reduce buffer (step() only); for the matrices a memset of the NaN flag,
// orthogonalize Q (one block per matrix), per matrix P = M Q (cuBLAS: reads M, Q, writes
// P; 2 m n r FLOPs), orthogonalize P, per matrix Q = M^T P (reads M, P, writes Q), scale
// Q and check it, a 4-byte copy of the flag to the host. Decode: per 1-D tensor
// scaled_copy_kernel (step() only); per matrix M = P Q^T (writes M). Orthogonalization
// is counted by its launches and the columns it reads and writes (modified Gram-Schmidt:
// per column one norm pass and, per later column, a dot and an update pass); its
// single-block latency at high rank is not modelled beyond that.
CodecWork powersgd_gpu_work(const SchemeArgs& a, const BucketLayout& layout, int) {
  const PowerSgdPlan pl = PowerSgdPlan::of(powersgd_params_of(a), layout);
  CodecWork w;
  const double tensors_1d = static_cast<double>(pl.uncompressed.size());
  w.encode += GpuWork{8.0 * pl.uncompressed_numel, tensors_1d, 0, false};
  w.decode += GpuWork{8.0 * pl.uncompressed_numel, tensors_1d, 0, false};
  // roundtrip() copies in -> out once and leaves the 1-D tensors as they are.
  w.roundtrip_extra = GpuWork{8.0 * layout.numel() - 16.0 * pl.uncompressed_numel, 1 - 2 * tensors_1d, 0, false};
  if (pl.matrices.empty()) return w;
  const double mats = static_cast<double>(pl.matrices.size());
  double orth_bytes = 0, matrix_numel = 0, flops = 0;
  for (const auto& m : pl.matrices) {
    const double mn = static_cast<double>(m.rows) * m.cols, r = static_cast<double>(m.rank);
    matrix_numel += mn;
    flops += 2 * mn * r;
    // norm pass (read) + normalize (read, write) per column; dot (2 reads) + update
    // (2 reads, 1 write) per pair; for Q (cols long) and P (rows long).
    orth_bytes += 4.0 * (m.rows + m.cols) * (3 * r + 5 * r * (r - 1) / 2);
  }
  const double pq_bytes = 4.0 * (pl.p_numel + pl.q_numel);
  w.encode += GpuWork{2 * 4.0 * matrix_numel + 2 * pq_bytes + orth_bytes + 8.0 * pl.q_numel,
                      1 + 1 + mats + 1 + mats + 1 + 1, 2 * flops, false};
  w.decode += GpuWork{4.0 * matrix_numel + pq_bytes, mats, flops, false};
  return w;
}

}  // namespace

void register_powersgd(Registry& r) {
  r.add({.name = "powersgd",
         .params = "rank=<r, default 4>, warm_start=<bool, default true>, min_rate=<default 2>, seed=<default 0>",
         .summary = "PowerSGD rank-r approximation; all-reduce of 1-D tensors, then of P, then of Q",
         .cpu = [](const SchemeArgs& a) { return std::make_unique<PowerSgdCompressor>(powersgd_params_of(a)); },
         .facts = {.recommend_grid = {"powersgd:rank={1|2|4|8|16|32}"}, .convergence_specs = {"powersgd:rank=2"},
                    .cost_grid = {"powersgd:rank={1|16}"}, .contention_probe = true,
                    .gpu_work = powersgd_gpu_work}});
}

}  // namespace gcu::compress
