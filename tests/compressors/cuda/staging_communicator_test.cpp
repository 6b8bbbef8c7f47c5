// The device-staging Communicator (compressors/cuda/staging_communicator.h) against the
// host collectives it wraps.
#include "cuda_test_util.h"

#include "compressors/cuda/device_array.h"
#include "compressors/cuda/staging_communicator.h"
#include "compressors/local_group.h"

using namespace gcu::compress;
using gcu::cuda::DeviceArray;
using gcu::cuda::StagingCommunicator;

TEST(StagingCommunicator, CollectivesOnDeviceBuffersMatchHostOnes) {
  GCU_REQUIRE_GPU();
  const int p = 3;
  LocalGroup g(p);
  g.run([&](Communicator& host) {
    StagingCommunicator dev(host);
    const int r = host.rank();
    std::vector<int32_t> x = {r, 10 * r, -r};
    DeviceArray<int32_t> d(3);
    d.upload(x.data(), 3);
    dev.all_reduce(d.get(), 3, WireType::I32, ReduceOp::Sum);
    EXPECT_EQ(d.download(3), (std::vector<int32_t>{3, 30, -3}));

    DeviceArray<int32_t> all(3 * p);
    d.upload(x.data(), 3);
    dev.all_gather(d.get(), all.get(), 3, WireType::I32);
    const auto a = all.download(3 * p);
    for (int q = 0; q < p; ++q) EXPECT_EQ(a[3 * q + 1], 10 * q);

    dev.broadcast(d.get(), 3, WireType::I32, 2);
    EXPECT_EQ(d.download(3), (std::vector<int32_t>{2, 20, -2}));
  });
}
