// Issue 14 finding 4 (streams): CUDA compressors enqueue on the communicator's stream
// (Communicator::device_stream(), cuda_scheme.h), not on the legacy default stream.
// The first test needs no GPU: a toy CudaScheme records the stream it sees.
#include "cuda_test_util.h"

#include "compressors/cuda/cuda_scheme.h"
#include "compressors/cuda/device_array.h"
#include "compressors/cuda/staging_communicator.h"
#include "compressors/local_group.h"
#include "compressors/none.h"
#include "compressors/registry.h"

#include <cuda_runtime_api.h>

using namespace gcu::compress;
using namespace gcu::cuda::test;
using gcu::cuda::current_stream;

namespace {
void* const kFakeStream = reinterpret_cast<void*>(0x1234);

class StreamComm final : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void all_reduce(void*, int64_t, WireType, ReduceOp) override { seen = current_stream(); }
  void all_gather(const void*, void*, int64_t, WireType) override {}
  void broadcast(void*, int64_t, WireType, int) override {}
  void* device_stream() const override { return kFakeStream; }
  void* seen = nullptr;
};

class Toy final : public gcu::cuda::CudaScheme {
 public:
  Toy() : CudaScheme(make_compressor("none")) {}
  void run_step(GradBucket, Communicator& comm, float*) override {
    in_step = current_stream();
    comm.all_reduce(nullptr, 0, WireType::F32, ReduceOp::Sum);
  }
  void roundtrip(int64_t, const float*, float*, const BucketLayout&) override {}
  void* in_step = nullptr;
};
}  // namespace

TEST(StreamCuda, StepRunsOnTheCommunicatorsStreamAndRestoresTheOldOne) {
  Toy toy;
  StreamComm comm;
  const BucketLayout layout = BucketLayout::flat(1);
  float dummy = 0;
  EXPECT_EQ(current_stream(), nullptr);
  toy.step({0, &dummy, &layout}, comm);
  EXPECT_EQ(toy.in_step, kFakeStream);
  EXPECT_EQ(comm.seen, kFakeStream);
  EXPECT_EQ(current_stream(), nullptr);
  {
    gcu::cuda::StreamScope outer(reinterpret_cast<void*>(0x99));
    toy.step_with_local({0, &dummy, &layout}, comm, &dummy);
    EXPECT_EQ(toy.in_step, kFakeStream);
    EXPECT_EQ(current_stream(), reinterpret_cast<void*>(0x99));
  }
  EXPECT_EQ(current_stream(), nullptr);
}

// On a device: a step on a non-blocking stream gives the CPU's result after a sync of
// that stream alone.
namespace {
class OnStream final : public Communicator {
 public:
  OnStream(Communicator& inner, cudaStream_t s) : inner_(inner), s_(s) {}
  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  void all_reduce(void* d, int64_t c, WireType t, ReduceOp o) override { sync(); inner_.all_reduce(d, c, t, o); }
  void all_gather(const void* a, void* b, int64_t c, WireType t) override { sync(); inner_.all_gather(a, b, c, t); }
  void broadcast(void* d, int64_t c, WireType t, int r) override { sync(); inner_.broadcast(d, c, t, r); }
  void* device_stream() const override { return s_; }

 private:
  void sync() { ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess); }
  Communicator& inner_;
  cudaStream_t s_;
};
}  // namespace

TEST(StreamCuda, SchemesEnqueueOnANonBlockingStream) {
  GCU_REQUIRE_GPU();
  const int64_t n = 5000;
  const BucketLayout layout = BucketLayout::flat(n);
  const auto x = make_gradient(n, 0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (const char* spec : {"fp16", "qsgd", "topk:k=0.01", "thc:sat=2", "signsgd"}) {
    std::vector<float> cpu = x;
    LocalGroup one(1);
    one.run([&](Communicator& c) { make_compressor(spec, Device::CPU)->step({0, cpu.data(), &layout}, c); });
    std::vector<float> gpu;
    one.run([&](Communicator& host) {
      gcu::cuda::StagingCommunicator staging(host);
      OnStream comm(staging, s);
      gcu::cuda::DeviceArray<float> d(n);
      {
        gcu::cuda::StreamScope scope(s);  // upload/download on s as well
        d.upload(x.data(), n);
        make_compressor(spec, Device::CUDA)->step({0, d.get(), &layout}, comm);
        gpu = d.download(n);  // waits for s only
      }
    });
    // signsgd's scale is a sum of |g| in another order than the CPU's: equal to float
    // rounding (signsgd.cu; SignSgdCuda.MatchesCpu), 1 ulp apart on the H100.
    if (std::string(spec) == "signsgd")
      expect_close(gpu, cpu, Tolerance{0, 1e-5, 0, -1}, std::string(spec) + " on a non-blocking stream");
    else
      expect_same_bits(gpu, cpu, std::string(spec) + " on a non-blocking stream");
  }
  cudaStreamDestroy(s);
}
