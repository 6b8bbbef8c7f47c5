// A Communicator over NCCL for DEVICE buffers: what CUDA compressors use in real
// multi-GPU runs (the trainer's GPU path). The header is free of CUDA, NCCL and LibTorch
// headers (opaque implementation), so host code can include it; link gcu_compressors_cuda.
// Built only when CMake found NCCL; CMake code can test that with
//   get_property(have GLOBAL PROPERTY GCU_HAVE_NCCL)   (set in compressors/cuda/).
//
// Set-up, one process per GPU (as torchrun / mpirun launch them):
//   std::vector<uint8_t> id;
//   if (rank == 0) id = NcclCommunicator::create_unique_id();
//   ...send id (NcclCommunicator::kUniqueIdBytes bytes) from rank 0 to all ranks, e.g.
//      with a Gloo broadcast or the rendezvous store...
//   NcclCommunicator comm(rank, world, id, local_rank);   // collective: all ranks call it
//   compressor->step(bucket_on_device, comm);
//   comm.synchronize();                                   // before reading on the host
//
// Ordering: collectives run on the communicator's own stream; each one first waits for
// the work already queued on the caller's stream (the legacy default stream unless
// another is given: CUDA compressors enqueue on it) and the caller's stream then waits
// for the collective. Calls return without blocking the host, so several buckets can be
// in flight; all ranks must issue the same collectives in the same order with the same
// counts. ReduceOp::Max and all WireTypes are supported, except all-reduce of I16 (NCCL
// has no 16-bit integer type): that throws CompressorError.
//
// Failures (a peer that died or stalled, a network error): the communicator is
// non-blocking (ncclConfig_t::blocking = 0). Initialisation, the enqueue of each
// collective and synchronize() poll ncclCommGetAsyncError while they wait; an NCCL error,
// or no completion within `timeout_s` (the trainer's --timeout), aborts the communicator
// (ncclCommAbort) and throws CudaError: "rank R: NCCL <what> made no progress within T s
// ... a peer may have died or stalled". After that every call throws. Streams, events
// and the communicator are released even when the constructor throws.
#pragma once

#include "compressors/compressor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gcu::cuda {

class NcclCommunicator final : public compress::Communicator {
 public:
  static constexpr int kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
  // Rank 0 creates the id (it opens a listening socket) and hands it to every rank.
  static std::vector<uint8_t> create_unique_id();
  // Collective over all ranks. `device`: the CUDA device this rank uses (made current).
  // `caller_stream`: a cudaStream_t given as void*; nullptr = legacy default stream; the
  // CUDA compressors enqueue on it (device_stream()). `timeout_s` > 0: the longest wait
  // for initialisation, an enqueue or synchronize() before the communicator is aborted.
  NcclCommunicator(int rank, int world_size, const std::vector<uint8_t>& unique_id, int device,
                   void* caller_stream = nullptr, double timeout_s = 600.0);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  void all_reduce(void* data, int64_t count, compress::WireType type, compress::ReduceOp op) override;
  void all_gather(const void* send, void* recv, int64_t count, compress::WireType type) override;
  void broadcast(void* data, int64_t count, compress::WireType type, int root) override;
  void* device_stream() const override;

  // Blocks the host until every collective issued so far and the work queued on the
  // caller stream have completed; throws (after aborting) on an NCCL error or timeout.
  void synchronize();
  // True once the communicator was aborted (after an error or a timeout).
  bool aborted() const;
  // "NCCL 2.28.9" (the library loaded at run time).
  static std::string version();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0;
  int world_ = 1;
};

}  // namespace gcu::cuda
