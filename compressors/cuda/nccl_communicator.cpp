// NCCL Communicator for device buffers (nccl_communicator.h).
#include "nccl_communicator.h"

#include "cuda_check.h"

#include <cstring>

namespace gcu::cuda {

struct NcclCommunicator::Impl {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;   // the communicator's own stream
  cudaStream_t caller = nullptr;   // where compressors enqueue (nullptr = legacy default)
  cudaEvent_t before = nullptr, after = nullptr;

  // Orders a collective between the caller's queued work and its later work.
  void enter() {
    CUDA_CHECK(cudaEventRecord(before, caller));
    CUDA_CHECK(cudaStreamWaitEvent(stream, before, 0));
  }
  void leave() {
    CUDA_CHECK(cudaEventRecord(after, stream));
    CUDA_CHECK(cudaStreamWaitEvent(caller, after, 0));
  }
};

namespace {
ncclDataType_t nccl_type(compress::WireType t) {
  using compress::WireType;
  switch (t) {
    case WireType::F32: return ncclFloat32;
    case WireType::F16: return ncclFloat16;
    case WireType::BF16: return ncclBfloat16;
    case WireType::I32: return ncclInt32;
    case WireType::I8: return ncclInt8;
    case WireType::U8: return ncclUint8;
    case WireType::U32: return ncclUint32;
    case WireType::U64: return ncclUint64;
    case WireType::I16: break;
  }
  throw compress::CompressorError(std::string("NcclCommunicator: all-reduce of ") +
                                  compress::wire_type_name(t) + " is not supported by NCCL");
}
}  // namespace

std::vector<uint8_t> NcclCommunicator::create_unique_id() {
  static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "NCCL_UNIQUE_ID_BYTES changed");
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  std::vector<uint8_t> bytes(kUniqueIdBytes);
  std::memcpy(bytes.data(), &id, kUniqueIdBytes);
  return bytes;
}

std::string NcclCommunicator::version() {
  int v = 0;
  NCCL_CHECK(ncclGetVersion(&v));
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

NcclCommunicator::NcclCommunicator(int rank, int world_size, const std::vector<uint8_t>& unique_id,
                                   int device, void* caller_stream)
    : impl_(std::make_unique<Impl>()), rank_(rank), world_(world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw compress::CompressorError("NcclCommunicator: rank " + std::to_string(rank) +
                                    " is not in [0, " + std::to_string(world_size) + ")");
  if (unique_id.size() != static_cast<size_t>(kUniqueIdBytes))
    throw compress::CompressorError("NcclCommunicator: unique id has " + std::to_string(unique_id.size()) +
                                    " bytes, expected " + std::to_string(kUniqueIdBytes));
  CUDA_CHECK(cudaSetDevice(device));
  impl_->caller = static_cast<cudaStream_t>(caller_stream);
  CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&impl_->before, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&impl_->after, cudaEventDisableTiming));
  ncclUniqueId id;
  std::memcpy(&id, unique_id.data(), kUniqueIdBytes);
  NCCL_CHECK(ncclCommInitRank(&impl_->comm, world_size, id, rank));
}

NcclCommunicator::~NcclCommunicator() {
  // No checks here: destructors must not throw; errors were reported by the calls.
  if (impl_->stream) cudaStreamSynchronize(impl_->stream);
  if (impl_->comm) ncclCommDestroy(impl_->comm);
  if (impl_->before) cudaEventDestroy(impl_->before);
  if (impl_->after) cudaEventDestroy(impl_->after);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

void NcclCommunicator::all_reduce(void* data, int64_t count, compress::WireType type,
                                  compress::ReduceOp op) {
  const ncclDataType_t t = nccl_type(type);
  if (count == 0) return;  // every rank has the same count: all skip together
  impl_->enter();
  NCCL_CHECK(ncclAllReduce(data, data, static_cast<size_t>(count), t,
                           op == compress::ReduceOp::Max ? ncclMax : ncclSum, impl_->comm,
                           impl_->stream));
  impl_->leave();
}

// All-gather and broadcast move bytes: any WireType goes as uint8.
void NcclCommunicator::all_gather(const void* send, void* recv, int64_t count,
                                  compress::WireType type) {
  const size_t bytes = static_cast<size_t>(count * compress::wire_type_bytes(type));
  if (bytes == 0) return;
  impl_->enter();
  NCCL_CHECK(ncclAllGather(send, recv, bytes, ncclUint8, impl_->comm, impl_->stream));
  impl_->leave();
}

void NcclCommunicator::broadcast(void* data, int64_t count, compress::WireType type, int root) {
  if (root < 0 || root >= world_)
    throw compress::CompressorError("NcclCommunicator: broadcast root " + std::to_string(root) +
                                    " is not in [0, " + std::to_string(world_) + ")");
  const size_t bytes = static_cast<size_t>(count * compress::wire_type_bytes(type));
  if (bytes == 0) return;
  impl_->enter();
  NCCL_CHECK(ncclBroadcast(data, data, bytes, ncclUint8, root, impl_->comm, impl_->stream));
  impl_->leave();
}

void NcclCommunicator::synchronize() {
  CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  CUDA_CHECK(cudaStreamSynchronize(impl_->caller));
}

}  // namespace gcu::cuda
