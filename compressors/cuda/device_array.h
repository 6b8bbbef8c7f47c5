// A grow-only device allocation (RAII over cudaMalloc/cudaFree). Compressors keep their
// scratch in these so that step() does not allocate once buffers have reached the
// largest bucket size (cudaMalloc synchronizes the device and costs ~0.1 ms).
#pragma once

#include "cuda_check.h"
#include "cuda_scheme.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gcu::cuda {

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(size_t n) { reserve(n); }
  ~DeviceArray() { release(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), cap_(std::exchange(o.cap_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) { release(); p_ = std::exchange(o.p_, nullptr); cap_ = std::exchange(o.cap_, 0); }
    return *this;
  }

  // Ensures room for n elements; the contents are lost when it grows.
  T* reserve(size_t n) {
    if (n > cap_) {
      release();
      CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
      cap_ = n;
    }
    return p_;
  }
  T* get() const { return p_; }
  size_t capacity() const { return cap_; }

  // Host <-> device copies of the first n elements, ordered on the thread's current
  // stream (cuda_scheme.h). upload() may return before the device has the data (the
  // host buffer may be reused at once: pageable copies are staged); download() waits.
  void upload(const T* host, size_t n) {
    reserve(n);
    const auto s = static_cast<cudaStream_t>(current_stream());
    if (n) CUDA_CHECK(cudaMemcpyAsync(p_, host, n * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  std::vector<T> download(size_t n) const {
    std::vector<T> h(n);
    const auto s = static_cast<cudaStream_t>(current_stream());
    if (n) {
      CUDA_CHECK(cudaMemcpyAsync(h.data(), p_, n * sizeof(T), cudaMemcpyDeviceToHost, s));
      CUDA_CHECK(cudaStreamSynchronize(s));
    }
    return h;
  }

 private:
  void release() {
    if (p_) cudaFree(p_);  // no check: runs in destructors
    p_ = nullptr;
    cap_ = 0;
  }
  T* p_ = nullptr;
  size_t cap_ = 0;
};

}  // namespace gcu::cuda
