// Device-to-host staging Communicator (staging_communicator.h).
#include "staging_communicator.h"

#include "cuda_check.h"

namespace gcu::cuda {
using compress::wire_type_bytes;

void StagingCommunicator::all_reduce(void* data, int64_t count, compress::WireType type,
                                     compress::ReduceOp op) {
  const size_t bytes = static_cast<size_t>(count * wire_type_bytes(type));
  a_.resize(bytes);
  if (bytes) CUDA_CHECK(cudaMemcpy(a_.data(), data, bytes, cudaMemcpyDeviceToHost));
  host_.all_reduce(a_.data(), count, type, op);
  if (bytes) CUDA_CHECK(cudaMemcpy(data, a_.data(), bytes, cudaMemcpyHostToDevice));
}

void StagingCommunicator::all_gather(const void* send, void* recv, int64_t count,
                                     compress::WireType type) {
  const size_t bytes = static_cast<size_t>(count * wire_type_bytes(type));
  a_.resize(bytes);
  b_.resize(bytes * static_cast<size_t>(world_size()));
  if (bytes) CUDA_CHECK(cudaMemcpy(a_.data(), send, bytes, cudaMemcpyDeviceToHost));
  host_.all_gather(a_.data(), b_.data(), count, type);
  if (bytes) CUDA_CHECK(cudaMemcpy(recv, b_.data(), b_.size(), cudaMemcpyHostToDevice));
}

void StagingCommunicator::broadcast(void* data, int64_t count, compress::WireType type, int root) {
  const size_t bytes = static_cast<size_t>(count * wire_type_bytes(type));
  a_.resize(bytes);
  if (bytes) CUDA_CHECK(cudaMemcpy(a_.data(), data, bytes, cudaMemcpyDeviceToHost));
  host_.broadcast(a_.data(), count, type, root);
  if (bytes) CUDA_CHECK(cudaMemcpy(data, a_.data(), bytes, cudaMemcpyHostToDevice));
}

}  // namespace gcu::cuda
