// The interface every gradient-compression scheme implements (docs/compressors.md), and the small
// value types it exchanges with its caller. No LibTorch, no CUDA headers: the model
// library (model/) links this to get the exact wire sizes the runtime sends.
//
// Sequence (after GRACE's Communicator.step and c10d's comm hooks): the caller
// hands one bucket of gradients to Compressor::step(), which compensates (error
// feedback, when wrapped), encodes, runs its collectives on the Communicator, decodes,
// and leaves the AVERAGE over ranks of the decompressed contributions in the bucket.
// plan() states the collectives step() issues, exactly, so that the cost model and the
// runtime agree byte for byte (tests check plan() against what step() really sends).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::compress {

// ---- wire types ------------------------------------------------------------------------
enum class WireType { F32, F16, BF16, I32, I16, I8, U8, U32, U64 };
inline constexpr WireType kWireTypes[] = {WireType::F32, WireType::F16, WireType::BF16,
                                          WireType::I32, WireType::I16, WireType::I8,
                                          WireType::U8,  WireType::U32, WireType::U64};

constexpr int64_t wire_type_bytes(WireType t) {
  switch (t) {
    case WireType::F32: case WireType::I32: case WireType::U32: return 4;
    case WireType::F16: case WireType::BF16: case WireType::I16: return 2;
    case WireType::I8: case WireType::U8: return 1;
    case WireType::U64: return 8;
  }
  return 0;
}
const char* wire_type_name(WireType t);

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, Broadcast };
const char* collective_name(CollectiveKind k);

enum class ReduceOp { Sum, Max };

// One collective call a scheme issues for one bucket; `count` elements of `type` are
// contributed by EACH rank (for all-gather: each rank's part; the result is world x count).
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::AllReduce;
  WireType type = WireType::F32;
  int64_t count = 0;
  std::string label;  // e.g. "values", "indices", "P", "Q", "chunk norms", "1-D tensors"
  int64_t bytes_per_rank() const { return count * wire_type_bytes(type); }
};

// The tensors packed, flattened and contiguous, in one bucket, in bucket order.
// PowerSGD views each tensor as a matrix (shape[0] x rest); 1-D tensors stay vectors.
struct BucketLayout {
  std::vector<std::vector<int64_t>> shapes;
  int64_t numel() const;
  static BucketLayout flat(int64_t n);  // one 1-D tensor of n elements
};

// A bucket handed to a compressor: a small value type (like c10d's GradBucket).
// `data` holds layout->numel() floats, in host memory for CPU schemes and in device
// memory for CUDA schemes. `index` identifies the bucket across iterations (per-bucket
// state: residuals, PowerSGD's Q, random streams).
struct GradBucket {
  int64_t index = 0;
  float* data = nullptr;
  const BucketLayout* layout = nullptr;
  int64_t numel() const { return layout ? layout->numel() : 0; }
};

// ---- communication -----------------------------------------------------------------------
// What a scheme needs from the process group. Implemented in-process over threads
// (local_group.h, for tests and single-process simulation of p workers), over Gloo
// (trainer/), and over NCCL for device buffers (trainer/, CUDA builds).
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // In place; F16/BF16 sums are computed in float and rounded once.
  virtual void all_reduce(void* data, int64_t count, WireType type, ReduceOp op) = 0;
  // recv holds world_size() * count elements, rank-major.
  virtual void all_gather(const void* send, void* recv, int64_t count, WireType type) = 0;
  virtual void broadcast(void* data, int64_t count, WireType type, int root) = 0;
  // Device buffers: the CUDA stream (a cudaStream_t, as void*) on which the caller must
  // enqueue its work on the buffers it passes; the CUDA compressors do so during step().
  // nullptr: the legacy default stream (and host communicators).
  virtual void* device_stream() const { return nullptr; }
};

// ---- compressors -------------------------------------------------------------------------
enum class Device { CPU, CUDA };

// Facts about a scheme that the convergence (TTA) model uses.
struct SchemeTraits {
  bool biased = false;            // E[C(x)] != x (top-k, sign, PowerSGD, ...)
  bool error_feedback = false;    // keeps a residual (built in or through the wrapper)
  bool stateful = false;          // has state to checkpoint
};

// Thrown for bad scheme names or parameters, and for inputs a scheme cannot handle
// (e.g. NaN/Inf where documented as an error). The message names the offending value.
struct CompressorError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class Compressor {
 public:
  virtual ~Compressor() = default;
  // Canonical spec, parseable by make_compressor(): "topk:k=0.01".
  virtual std::string spec() const = 0;
  virtual Device device() const { return Device::CPU; }
  virtual SchemeTraits traits() const { return {}; }
  // The collectives step() issues for a bucket with this layout on `world` ranks, in order.
  virtual std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const = 0;
  // Bytes each rank contributes over all of plan()'s calls.
  int64_t wire_bytes(const BucketLayout& layout, int world) const;
  // Compress, aggregate over comm's ranks and decompress in place: afterwards
  // bucket.data holds the average over ranks of the decompressed contributions.
  virtual void step(GradBucket bucket, Communicator& comm) = 0;
  // One rank's C(x) with no communication: what `in` becomes after compress+decompress,
  // written to `out` (same layout). Used by error feedback and error measurement.
  // May advance per-bucket state the same way step() does (random streams, warm start).
  virtual void roundtrip(int64_t bucket_index, const float* in, float* out,
                         const BucketLayout& layout) = 0;
  // step() that also writes this rank's own decompressed contribution C(x) (what
  // roundtrip() gives, before averaging over ranks) to `local` (numel floats; nullptr:
  // not wanted), advancing state once. Error feedback (error_feedback.h) needs it.
  // Default: saves the state, runs roundtrip() into `local`, restores the state, then
  // step(): exact whenever all randomness a scheme uses derives from the state that
  // save_state() returns (e.g. counter-based streams keyed by seed, bucket index and an
  // iteration counter kept in the state). Schemes override it to avoid encoding twice.
  virtual void step_with_local(GradBucket bucket, Communicator& comm, float* local);
  // Serializable state for checkpoints (residuals, PowerSGD's Q, counters); empty when none.
  virtual std::vector<uint8_t> save_state() const { return {}; }
  virtual void load_state(const std::vector<uint8_t>& state);
};

}  // namespace gcu::compress
