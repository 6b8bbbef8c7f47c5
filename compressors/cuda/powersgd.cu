// "powersgd" on the GPU (compressors/powersgd.h: steps 1-6, wire layout and state there):
// cuBLAS SGEMMs on the bucket's row-major matrices (seen by cuBLAS as their column-major
// transposes), modified Gram-Schmidt with one thread block per matrix, the same initial Q
// (drawn on the host with rng::normal, as the header prescribes) and the same collectives.
// Agrees with the CPU (Eigen) to float rounding of the GEMMs and norms (relative 1e-5 or
// so). State in the CPU's "gcu.powersgd/1" format, so checkpoints move between devices.
#include "cuda_scheme.h"
#include "device_array.h"
#include "kernels_common.cuh"
#include "schemes_cuda.h"

#include "compressors/powersgd.h"
#include "compressors/rng.h"
#include "compressors/state_io.h"

#include <cstring>
#include <map>
#include <vector>

namespace gcu::cuda {
namespace {

constexpr uint64_t kSalt = ~uint64_t{0};
constexpr int kOrthThreads = 512;

struct Mat {
  int64_t offset, rows, cols, rank, p_offset, q_offset;
};

__device__ float block_sum(float v, float* red) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __syncthreads();  // red is reused between calls
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? red[lane] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) red[0] = v;
  }
  __syncthreads();
  return red[0];
}

// Modified Gram-Schmidt on the columns of each matrix's column-major (len x rank) block of
// buf (len = rows for P, cols for Q); one block per matrix.
__global__ void orthogonalize_kernel(float* buf, const Mat* mats, bool is_p) {
  __shared__ float red[32];
  const Mat m = mats[blockIdx.x];
  const int64_t len = is_p ? m.rows : m.cols;
  float* a = buf + (is_p ? m.p_offset : m.q_offset);
  for (int64_t i = 0; i < m.rank; ++i) {
    float* ci = a + i * len;
    float ss = 0;
    for (int64_t t = threadIdx.x; t < len; t += blockDim.x) ss += ci[t] * ci[t];
    const float norm = sqrtf(block_sum(ss, red));
    for (int64_t t = threadIdx.x; t < len; t += blockDim.x)
      ci[t] = norm > 0 && isfinite(norm) ? ci[t] / norm : (norm == 0 ? 0.0f : __int_as_float(0x7fc00000));
    __syncthreads();
    for (int64_t j = i + 1; j < m.rank; ++j) {
      float* cj = a + j * len;
      float d = 0;
      for (int64_t t = threadIdx.x; t < len; t += blockDim.x) d += ci[t] * cj[t];
      const float dot = block_sum(d, red);
      for (int64_t t = threadIdx.x; t < len; t += blockDim.x) cj[t] -= dot * ci[t];
      __syncthreads();
    }
  }
}

// q *= inv_p; flag = 1 if any element is not finite.
__global__ void scale_check_kernel(float* q, int64_t n, float inv_p, int* flag) {
  GCU_GRID_STRIDE(j, n) {
    const float v = q[j] * inv_p;
    q[j] = v;
    if (!isfinite(v)) *flag = 1;
  }
}

__global__ void scaled_copy_kernel(const float* src, float* dst, int64_t n, float s) {
  GCU_GRID_STRIDE(i, n) dst[i] = src[i] * s;
}

// The non-finite flag of a bucket's last step, copied into pinned host memory on the
// stream when the step ends (no host wait then); the next step of the bucket (an
// iteration later) reads it after an event wait that has normally completed long before.
struct HostFlag {
  int* host = nullptr;
  cudaEvent_t ready = nullptr;
  bool pending = false;
  HostFlag() = default;
  HostFlag(const HostFlag&) = delete;
  HostFlag& operator=(const HostFlag&) = delete;
  ~HostFlag() {  // no checks: destructor
    if (ready) cudaEventDestroy(ready);
    if (host) cudaFreeHost(host);
  }
  void record(const int* device_flag, cudaStream_t s) {
    if (!host) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host), sizeof(int)));
    if (!ready) CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaMemcpyAsync(host, device_flag, sizeof(int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(ready, s));
    pending = true;
  }
  bool bad() const {
    if (!pending) return false;
    CUDA_CHECK(cudaEventSynchronize(ready));
    return *host != 0;
  }
};

struct BucketState {
  uint64_t steps = 0;
  int64_t q_len = 0;  // 0: draw a fresh Q at the next step
  DeviceArray<float> q;
  DeviceArray<int> nonfinite;  // set by step 5
  HostFlag last_bad;           // nonfinite of the last step, on the host (see HostFlag)
};

class PowerSgdCuda final : public CudaScheme {
 public:
  explicit PowerSgdCuda(std::unique_ptr<Compressor> cpu) : CudaScheme(std::move(cpu)) {
    const SchemeArgs a = params();
    prm_.rank = a.get_int("rank", 4);
    prm_.warm_start = a.get_bool("warm_start", true);
    prm_.min_rate = a.get_double("min_rate", 2.0);
    prm_.seed = static_cast<uint64_t>(a.get_int("seed", 0));
  }
  ~PowerSgdCuda() override {
    if (blas_) cublasDestroy(blas_);
  }
  void run_step(GradBucket b, Communicator& comm, float* local) override {
    local_by_roundtrip(b, local);
    if (b.numel() == 0) return;
    run(b.index, b.data, *b.layout, &comm);
  }
  void roundtrip(int64_t bucket_index, const float* in, float* out, const BucketLayout& layout) override {
    const int64_t n = layout.numel();
    if (n == 0) return;
    if (out != in) CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
    run(bucket_index, out, layout, nullptr);
  }
  // Format of powersgd.cpp: magic, u64 count, per bucket i64 index, u64 steps, u64 q length, floats.
  std::vector<uint8_t> save_state() const override {
    compress::StateWriter w(kMagic);
    w.put(static_cast<uint64_t>(state_.size()));
    for (const auto& [index, st] : state_) {
      const uint64_t len = static_cast<uint64_t>(usable_q(st));
      w.put(index);
      w.put(st.steps);
      w.put(len);
      const std::vector<float> h = st.q.download(len);
      w.put_bytes(h.data(), len * sizeof(float));
    }
    return w.take();
  }
  void load_state(const std::vector<uint8_t>& state) override {
    cpu_->load_state(state);  // same format: validates (throws on bad input) before we parse
    state_.clear();
    if (state.empty()) return;
    compress::StateReader r(state, kMagic, "powersgd");
    const auto count = r.get<uint64_t>();
    for (uint64_t k = 0; k < count; ++k) {
      const auto index = r.get<int64_t>();
      BucketState& st = state_[index];
      st.steps = r.get<decltype(st.steps)>();
      const auto len = r.get<uint64_t>();
      std::vector<float> h(len);
      r.get_bytes(h.data(), len * sizeof(float));
      st.q_len = static_cast<int64_t>(len);
      st.q.upload(h.data(), len);
      CUDA_CHECK(cudaMemsetAsync(st.nonfinite.reserve(1), 0, sizeof(int), stream()));
    }
  }

 private:
  static constexpr const char* kMagic = "gcu.powersgd/1";

  // The Q length a bucket's next step starts from (0 when a fresh Q will be drawn).
  int64_t usable_q(const BucketState& st) const {
    if (st.q_len == 0) return 0;
    return st.last_bad.bad() ? 0 : st.q_len;
  }

  void run(int64_t index, float* data, const BucketLayout& layout, Communicator* comm) {
    const compress::PowerSgdPlan pl = compress::PowerSgdPlan::of(prm_, layout);
    const int p = comm ? comm->world_size() : 1;
    const float inv_p = 1.0f / static_cast<float>(p);
    // 1. uncompressed tensors
    if (pl.uncompressed_numel > 0 && comm) {
      float* u = u_.reserve(static_cast<size_t>(pl.uncompressed_numel));
      int64_t at = 0;
      for (auto [off, len] : pl.uncompressed) {
        CUDA_CHECK(cudaMemcpyAsync(u + at, data + off, len * sizeof(float), cudaMemcpyDeviceToDevice, stream()));
        at += len;
      }
      comm->all_reduce(u, pl.uncompressed_numel, compress::WireType::F32, compress::ReduceOp::Sum);
      at = 0;
      for (auto [off, len] : pl.uncompressed) {
        scaled_copy_kernel<<<grid_for(len), kBlock, 0, stream()>>>(u + at, data + off, len, inv_p);
        CUDA_CHECK_LAUNCH();
        at += len;
      }
    }
    if (pl.matrices.empty()) return;
    BucketState& st = state_[index];
    const uint64_t step = st.steps++;
    int64_t have = usable_q(st);
    if (have != 0 && have != pl.q_numel)
      throw compress::CompressorError("powersgd: bucket " + std::to_string(index) + " needs a Q of " +
                                      std::to_string(pl.q_numel) + " floats, but its state holds " +
                                      std::to_string(have) + " (layout changed?)");
    if (have == 0 || !prm_.warm_start) {
      std::vector<float> q0(static_cast<size_t>(pl.q_numel));
      const uint64_t key = compress::rng::stream_key(prm_.seed, static_cast<uint64_t>(index), step, kSalt);
      for (int64_t j = 0; j < pl.q_numel; ++j) q0[j] = compress::rng::normal(key, static_cast<uint64_t>(j));
      st.q.upload(q0.data(), q0.size());
      st.q_len = pl.q_numel;
    }
    int* flag = st.nonfinite.reserve(1);
    CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), stream()));
    if (!blas_) CUBLAS_CHECK(cublasCreate(&blas_));
    CUBLAS_CHECK(cublasSetStream(blas_, stream()));
    std::vector<Mat> mats;
    for (const auto& m : pl.matrices) mats.push_back({m.offset, m.rows, m.cols, m.rank, m.p_offset, m.q_offset});
    const Mat* dmats = matrix_table(layout, mats);
    float* q = st.q.get();
    float* P = p_.reserve(static_cast<size_t>(pl.p_numel));
    const float one = 1.0f, zero_f = 0.0f;
    const unsigned nm = static_cast<unsigned>(mats.size());
    // 2. P = M orth(Q): col-major P (rows x r) = op_T(Mt (cols x rows, ld cols)) * Q (cols x r)
    orthogonalize_kernel<<<nm, kOrthThreads, 0, stream()>>>(q, dmats, false);
    CUDA_CHECK_LAUNCH();
    for (const Mat& m : mats)
      CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(m.rows), static_cast<int>(m.rank),
                               static_cast<int>(m.cols), &one, data + m.offset, static_cast<int>(m.cols),
                               q + m.q_offset, static_cast<int>(m.cols), &zero_f, P + m.p_offset,
                               static_cast<int>(m.rows)));
    // 3.
    if (comm) comm->all_reduce(P, pl.p_numel, compress::WireType::F32, compress::ReduceOp::Sum);
    // 4. Q = M^T orth(P): Q (cols x r) = Mt (cols x rows) * P (rows x r)
    orthogonalize_kernel<<<nm, kOrthThreads, 0, stream()>>>(P, dmats, true);
    CUDA_CHECK_LAUNCH();
    for (const Mat& m : mats)
      CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(m.cols), static_cast<int>(m.rank),
                               static_cast<int>(m.rows), &one, data + m.offset, static_cast<int>(m.cols),
                               P + m.p_offset, static_cast<int>(m.rows), &zero_f, q + m.q_offset,
                               static_cast<int>(m.cols)));
    // 5.
    if (comm) comm->all_reduce(q, pl.q_numel, compress::WireType::F32, compress::ReduceOp::Sum);
    scale_check_kernel<<<grid_for(pl.q_numel), kBlock, 0, stream()>>>(q, pl.q_numel, inv_p, flag);
    CUDA_CHECK_LAUNCH();
    st.last_bad.record(flag, stream());
    // 6. M = P Q^T: Mt (cols x rows) = Q (cols x r) * P^T
    for (const Mat& m : mats)
      CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(m.cols), static_cast<int>(m.rows),
                               static_cast<int>(m.rank), &one, q + m.q_offset, static_cast<int>(m.cols),
                               P + m.p_offset, static_cast<int>(m.rows), &zero_f, data + m.offset,
                               static_cast<int>(m.cols)));
  }

  // The device table of a layout's matrices, uploaded on the layout's first step only.
  const Mat* matrix_table(const BucketLayout& layout, const std::vector<Mat>& mats) {
    auto& slot = mats_[layout.shapes];
    if (slot.capacity() == 0) slot.upload(mats.data(), mats.size());
    return slot.get();
  }

  compress::PowerSgdParams prm_;
  cublasHandle_t blas_ = nullptr;
  std::map<int64_t, BucketState> state_;
  DeviceArray<float> p_, u_;
  std::map<std::vector<std::vector<int64_t>>, DeviceArray<Mat>> mats_;
};

}  // namespace

std::unique_ptr<Compressor> make_powersgd_cuda(std::unique_ptr<Compressor> cpu) {
  return std::make_unique<PowerSgdCuda>(std::move(cpu));
}

}  // namespace gcu::cuda
