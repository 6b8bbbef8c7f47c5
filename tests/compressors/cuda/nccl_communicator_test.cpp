// The NCCL Communicator (compressors/cuda/nccl_communicator.h): argument checks (no GPU
// needed) and one-rank collectives on a device (skipped without a GPU).
#include "cuda_test_util.h"

#include "compressors/cuda/device_array.h"
#include "compressors/cuda/nccl_communicator.h"

using namespace gcu::compress;
using gcu::cuda::DeviceArray;
using gcu::cuda::NcclCommunicator;

TEST(NcclCommunicator, RejectsBadRankAndUniqueIdWithoutTouchingTheDevice) {
  const std::vector<uint8_t> id(NcclCommunicator::kUniqueIdBytes, 0);
  EXPECT_THROW(NcclCommunicator(2, 2, id, 0), CompressorError);
  EXPECT_THROW(NcclCommunicator(0, 2, std::vector<uint8_t>(5), 0), CompressorError);
}

TEST(NcclCommunicator, OneRankCollectives) {
  GCU_REQUIRE_GPU();
  NcclCommunicator comm(0, 1, NcclCommunicator::create_unique_id(), 0);
  EXPECT_EQ(comm.world_size(), 1);
  std::vector<float> x = {1.5f, -2.0f, 3.25f};
  DeviceArray<float> d(3), all(3);
  d.upload(x.data(), 3);
  comm.all_reduce(d.get(), 3, WireType::F32, ReduceOp::Sum);
  comm.all_gather(d.get(), all.get(), 3, WireType::F32);
  comm.broadcast(d.get(), 3, WireType::F32, 0);
  comm.synchronize();
  EXPECT_EQ(d.download(3), x);
  EXPECT_EQ(all.download(3), x);
  EXPECT_THROW(comm.all_reduce(d.get(), 1, WireType::I16, ReduceOp::Sum), CompressorError);
  EXPECT_THROW(comm.broadcast(d.get(), 1, WireType::F32, 1), CompressorError);
}
