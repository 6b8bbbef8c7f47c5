// Compressor costs and errors (docs/calibrate.md), torch-free:
//  * encode and decode time of a scheme over a size sweep, fitted to the profile's
//    fixed + per-element (+ per-rank-element for decode) form. step() runs on a
//    LoopbackCommunicator that plays p ranks inside one call (all-gather returns p copies
//    of this rank's payload; all-reduce leaves the data as is), and that timestamps its
//    collectives: encode = start of step() to the first collective, plus any compute
//    between collectives (PowerSGD's orthogonalisation); decode = last collective to the
//    end of step(). Time spent inside the loopback's copies counts as communication.
//    On a GPU (CodecTimingOptions::device CUDA, a gcu built with CUDA) the CUDA schemes
//    run on device buffers and the device is synchronized at each of those boundaries, so
//    the host clock reads device time (the trainer's GPU path splits a step the same way).
//  * relative compression error on real gradients, per DDP bucket, without and with error
//    feedback, as compressors/error_measure.h (ErrorMeter) defines them.
#pragma once

#include "calibrate/fit.h"
#include "calibrate/stats.h"
#include "compressors/compressor.h"
#include "compressors/registry.h"
#include "model/buckets.h"
#include "model/profile.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace gcu::calibrate {

// p ranks played by one caller (see the file comment). Counts its collectives' bytes.
class LoopbackCommunicator : public compress::Communicator {
 public:
  explicit LoopbackCommunicator(int world) : world_(world) {}
  // Device buffers: copies through `dm`, the device synchronized before each timestamp.
  void set_device(const compress::Registry::DeviceMemory* dm) { dm_ = dm; }
  const compress::Registry::DeviceMemory* device() const { return dm_; }
  int rank() const override { return 0; }
  int world_size() const override { return world_; }
  void all_reduce(void* data, int64_t count, compress::WireType type, compress::ReduceOp op) override;
  void all_gather(const void* send, void* recv, int64_t count, compress::WireType type) override;
  void broadcast(void* data, int64_t count, compress::WireType type, int root) override;

  using Clock = std::chrono::steady_clock;
  void reset();
  int calls() const { return calls_; }
  Clock::time_point first_enter() const { return first_enter_; }
  Clock::time_point last_exit() const { return last_exit_; }
  double inside_s() const { return inside_s_; }  // total time inside collectives

 private:
  void enter();
  void exit();
  int world_;
  const compress::Registry::DeviceMemory* dm_ = nullptr;
  int calls_ = 0;
  Clock::time_point first_enter_, last_exit_, cur_enter_;
  double inside_s_ = 0;
};

// The registry's device memory for `d` (nullptr for the CPU); FitError when this build
// registered no CUDA schemes.
const compress::Registry::DeviceMemory* device_memory(compress::Device d);
// A bucket of n floats where the codec runs: host memory (dm null) or the device's
// through `dm`. load() copies n floats from host memory into it.
class BucketBuffer {
 public:
  BucketBuffer(const compress::Registry::DeviceMemory* dm, int64_t n);
  ~BucketBuffer();
  BucketBuffer(const BucketBuffer&) = delete;
  BucketBuffer& operator=(const BucketBuffer&) = delete;
  void load(const float* host, int64_t n);
  float* data() { return dm_ ? device_ : host_.data(); }

 private:
  const compress::Registry::DeviceMemory* dm_;
  std::vector<float> host_;
  float* device_ = nullptr;
};

// One step() of `c` on bucket `b`, split as the file comment says (each at least 1 ns).
struct StepSplit {
  double encode_s = 0, decode_s = 0;
};
StepSplit time_one_step(compress::Compressor& c, compress::GradBucket b, LoopbackCommunicator& comm);

struct CodecTimingOptions {
  std::vector<int64_t> sizes = {1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22};  // elements
  int warmup = 2;
  int iters = 5;
  int world = 2;                            // p of the size sweep
  std::vector<int> decode_ranks = {2, 4, 8};  // p values for the per-rank decode term
  int columns = 1024;                       // buckets are viewed as [n/columns, columns]
  compress::Device device = compress::Device::CPU;  // CUDA: the CUDA schemes on device buffers
  // The per-tensor term: the largest size again, split into this many equal matrices
  // (< 2: none). A bucket of real gradients holds tens of tensors (ResNet-18's 62 in 3).
  int tensors = 32;
};

struct CodecRow {
  int64_t elements = 0;
  int world = 0;
  Summary encode_s, decode_s;
};

struct CodecMeasurement {
  std::string spec;
  bool gathers = false;  // plan() has an all-gather: decode grows with p
  model::CodecFit fit;
  std::vector<CodecRow> rows;         // the size sweep at options.world
  std::vector<CodecRow> rank_rows;    // the p sweep at the largest size (gathers only)
  CodecRow tensor_row;                // the largest size as options.tensors tensors (elements 0: not timed)
  int tensors = 0;
  FitQuality encode_quality, decode_quality;
};

// calibrate's default codec timings: every registered scheme's default spec (in
// registration order, as before), then the registry's cost_grid (other values of each
// numeric parameter, and an ef(...) spec), canonical and without duplicates; specs this
// build cannot make are left out. The defaults come first so that a time budget that
// runs out still leaves one fit per scheme; the extra values let the model interpolate
// (model/codec_cost.h).
std::vector<std::string> default_codec_specs();

// Throws compress::CompressorError for a bad spec.
CodecMeasurement measure_codec(const std::string& spec, const CodecTimingOptions& opt);

// Gradients of a model, flattened per tensor, tensors in backward order.
struct GradientSet {
  std::vector<model::TensorInfo> tensors;      // backward order
  std::vector<std::vector<float>> snapshots;   // each: sum of numels floats, same order
};

// A gradient set packed as DDP packs it (model/buckets.h): the buckets and each tensor's
// offset in a snapshot. Throws FitError, naming `what`, on an empty set or a snapshot of
// the wrong length.
struct GradientBuckets {
  std::vector<model::Bucket> buckets;
  std::vector<int64_t> offset;  // tensors + 1 entries
  // Bucket bi of a snapshot, its tensors in bucket order, into x (replaced).
  void gather(const std::vector<float>& snapshot, size_t bi, std::vector<float>& x) const;
};
GradientBuckets gradient_buckets(const GradientSet& g, const model::DdpConfig& ddp, const std::string& what);

struct ErrorMeasurement {
  double relative_error = 0;     // without error feedback
  double relative_error_ef = 0;  // with error feedback (on the compensated input)
  int snapshots = 0;
  int buckets = 0;
};
// Buckets as DDP packs them (model/buckets.h, `ddp`). Throws FitError on an empty set.
ErrorMeasurement measure_error(const std::string& spec, const GradientSet& g,
                               const model::DdpConfig& ddp = {});

}  // namespace gcu::calibrate
