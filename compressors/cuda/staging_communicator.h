// A Communicator for DEVICE buffers built on any host Communicator: each collective
// copies the device buffer to the host, runs the inner (host) collective and copies the
// result back. Slow, but exact, and it lets CUDA compressors run with p ranks in one
// process over LocalGroup (tests comparing CUDA with CPU; error measurement on a GPU):
//
//   LocalGroup g(4);
//   g.run([&](Communicator& host) { StagingCommunicator dev(host); gpu[host.rank()]->step(b, dev); });
//
// Synchronous: every call waits for the work queued on the legacy default stream first.
// Host code; no CUDA headers in this header.
#pragma once

#include "compressors/compressor.h"

#include <cstdint>
#include <vector>

namespace gcu::cuda {

class StagingCommunicator final : public compress::Communicator {
 public:
  explicit StagingCommunicator(compress::Communicator& host) : host_(host) {}
  int rank() const override { return host_.rank(); }
  int world_size() const override { return host_.world_size(); }
  void all_reduce(void* data, int64_t count, compress::WireType type, compress::ReduceOp op) override;
  void all_gather(const void* send, void* recv, int64_t count, compress::WireType type) override;
  void broadcast(void* data, int64_t count, compress::WireType type, int root) override;

 private:
  compress::Communicator& host_;
  std::vector<unsigned char> a_, b_;
};

}  // namespace gcu::cuda
