// Base of every CUDA compressor. A CUDA scheme is built from its CPU twin (the CPU
// factory's result for the same spec) and delegates to it everything that is not
// arithmetic on device buffers: spec(), traits() and, above all, plan(), so that the
// CUDA and CPU versions send exactly the same collectives and bytes (same wire format).
// Parameters are read back from the CPU twin's canonical spec, so defaults and range
// checks live in one place (the CPU scheme).
//
// Device conventions of all CUDA compressors:
//  - GradBucket::data and roundtrip()'s in/out are DEVICE pointers (float32);
//  - kernels, copies, CUB and cuBLAS calls run on the thread's current stream
//    (current_stream()): during step() that is the communicator's device_stream()
//    (NcclCommunicator: the caller stream it was built with; nullptr = legacy default
//    stream), elsewhere (roundtrip(), save_state(), load_state()) the stream of the
//    enclosing StreamScope, by default the legacy default stream. The Communicator is
//    handed device buffers and orders its work after what is already queued on that
//    stream and before what follows (NcclCommunicator and StagingCommunicator both do);
//  - step() may return before the device has finished: synchronize (cudaDeviceSynchronize
//    or cudaStreamSynchronize(stream)) before reading the bucket on the host;
//  - no device memory is touched before the first step()/roundtrip(), so constructing a
//    CUDA compressor (and calling plan()) works on machines without a GPU.
// Host code only (C++17 and C++20); no CUDA headers.
#pragma once

#include "compressors/compressor.h"
#include "compressors/params.h"

#include <memory>
#include <string>
#include <utility>

namespace gcu::cuda {

using compress::BucketLayout;
using compress::CollectiveCall;
using compress::Communicator;
using compress::Compressor;
using compress::GradBucket;
using compress::SchemeArgs;
using compress::SchemeTraits;

// The stream (cudaStream_t as void*; nullptr = legacy default) on which the CUDA
// compressors of the calling thread enqueue their work; set by StreamScope.
void* current_stream();

// Makes `stream` the calling thread's current stream until the scope ends (nestable).
class StreamScope {
 public:
  explicit StreamScope(void* stream);
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  void* prev_;
};

class CudaScheme : public Compressor {
 public:
  explicit CudaScheme(std::unique_ptr<Compressor> cpu_twin) : cpu_(std::move(cpu_twin)) {}
  // Both run run_step() on the communicator's stream (comm.device_stream()).
  void step(GradBucket b, Communicator& comm) final {
    StreamScope scope(comm.device_stream());
    run_step(b, comm, nullptr);
  }
  void step_with_local(GradBucket b, Communicator& comm, float* local) final {
    StreamScope scope(comm.device_stream());
    run_step(b, comm, local);
  }
  std::string spec() const override { return cpu_->spec(); }
  compress::Device device() const override { return compress::Device::CUDA; }
  SchemeTraits traits() const override { return cpu_->traits(); }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override {
    return cpu_->plan(layout, world);
  }
  const Compressor& cpu_twin() const { return *cpu_; }

 protected:
  // step() (local == nullptr) or step_with_local(): `local`, when given, receives this
  // rank's own C(x) (Compressor::step_with_local), on the current stream.
  virtual void run_step(GradBucket b, Communicator& comm, float* local) = 0;
  // For schemes whose encode has no cheap local decode: the generic
  // save_state / roundtrip / load_state of Compressor::step_with_local.
  void local_by_roundtrip(GradBucket b, float* local) {
    if (!local || b.numel() == 0) return;
    const std::vector<uint8_t> saved = save_state();
    roundtrip(b.index, b.data, local, *b.layout);
    load_state(saved);
  }
  // The CPU twin's canonical spec, parsed: every parameter with its resolved value.
  SchemeArgs params() const { return SchemeArgs::parse(cpu_->spec()); }
  std::unique_ptr<Compressor> cpu_;
};

}  // namespace gcu::cuda
