// A compress::Communicator over the Gloo process group, for CPU buffers: every
// registered compressor runs across real processes through it.
//
// Raw buffers are wrapped as tensors with torch::from_blob (no copy). Wire types map to
// Gloo types: F32 float, F16 half (Gloo sums half natively: each hop of its ring rounds
// to half, so with more than 2 ranks the sum is rounded up to world-1 times instead of
// once), I32/U32 int32 (two's-complement sums wrap identically), I8 int8, U8 uint8,
// U64 int64. Gloo in LibTorch 1.13 has no BF16 or int16 sums: those all-reduces are
// widened (BF16 -> float, summed, rounded once; I16 -> int32, wrapped back), which sends
// twice the bytes; the fp16 scheme is the one to use for low-precision timing.
// All-gather and broadcast move bytes and never widen.
//
// Failures (a peer closed its connection, or did not join within the timeout) become a
// DistributedError naming the collective, the context (e.g. "bucket 3"), the timeout and
// the ranks that did not report the failure themselves (ranks_not_reporting_failure).
#pragma once

#include "compressors/compressor.h"
#include "trainer/runtime/process_group.h"

#include <chrono>
#include <string>

namespace gcu::trainer {

class PgCommunicator final : public compress::Communicator {
 public:
  explicit PgCommunicator(DistContext& ctx) : ctx_(ctx) {}
  int rank() const override { return ctx_.rank(); }
  int world_size() const override { return ctx_.world_size(); }
  void all_reduce(void* data, int64_t count, compress::WireType type,
                  compress::ReduceOp op) override;
  void all_gather(const void* send, void* recv, int64_t count, compress::WireType type) override;
  void broadcast(void* data, int64_t count, compress::WireType type, int root) override;

  // What the next collectives belong to, for error messages ("bucket 3", "evaluation").
  void set_context(std::string what) { context_ = std::move(what); }
  const std::string& context() const { return context_; }

 private:
  [[noreturn]] void fail(const std::string& op, const std::exception& e);
  DistContext& ctx_;
  std::string context_ = "setup";
  std::chrono::steady_clock::time_point started_{};  // of the current collective
};

}  // namespace gcu::trainer
