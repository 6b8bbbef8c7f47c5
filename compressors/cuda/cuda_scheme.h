// Base of every CUDA compressor. A CUDA scheme is built from its CPU twin (the CPU
// factory's result for the same spec) and delegates to it everything that is not
// arithmetic on device buffers: spec(), traits() and, above all, plan(), so that the
// CUDA and CPU versions send exactly the same collectives and bytes (same wire format).
// Parameters are read back from the CPU twin's canonical spec, so defaults and range
// checks live in one place (the CPU scheme).
//
// Device conventions of all CUDA compressors:
//  - GradBucket::data and roundtrip()'s in/out are DEVICE pointers (float32);
//  - kernels run on the legacy default stream (stream 0); the Communicator is handed
//    device buffers and must order its work after what is already queued on stream 0
//    and before what follows (NcclCommunicator and StagingCommunicator both do);
//  - step() may return before the device has finished: synchronize (cudaDeviceSynchronize
//    or cudaStreamSynchronize(0)) before reading the bucket on the host;
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

class CudaScheme : public Compressor {
 public:
  explicit CudaScheme(std::unique_ptr<Compressor> cpu_twin) : cpu_(std::move(cpu_twin)) {}
  std::string spec() const override { return cpu_->spec(); }
  compress::Device device() const override { return compress::Device::CUDA; }
  SchemeTraits traits() const override { return cpu_->traits(); }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override {
    return cpu_->plan(layout, world);
  }
  const Compressor& cpu_twin() const { return *cpu_; }

 protected:
  // The CPU twin's canonical spec, parsed: every parameter with its resolved value.
  SchemeArgs params() const { return SchemeArgs::parse(cpu_->spec()); }
  std::unique_ptr<Compressor> cpu_;
};

}  // namespace gcu::cuda
