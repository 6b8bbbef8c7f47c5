// "powersgd": PowerSGD low-rank compression (Vogels et al. 2019), following PyTorch's
// powerSGD_hook (torch.distributed.algorithms.ddp_comm_hooks) without its built-in error
// feedback (wrap it: "ef(powersgd:rank=4)"). Biased, stateful (Q per bucket).
//
// Parameters: rank=<r, default 4>, warm_start=<bool, default true>,
//   min_rate=<min compression rate, default 2 (PyTorch's default)>, seed=<default 0>.
// Each tensor of the bucket layout with >= 2 dimensions is a matrix M (rows = shape[0],
//   cols = numel / rows, row-major as in the bucket) with rank r' = min(r, rows, cols);
//   it is compressed when (rows + cols) r' min_rate < rows cols (PyTorch's test);
//   1-D tensors and the others are "uncompressed".
// step(), in order (exactly the collectives of plan()):
//  1. all-reduce (Sum, F32) of the uncompressed tensors concatenated in layout order,
//     then divided by p;                                  [skipped when there are none]
//  2. Q_i orthogonalized (modified Gram-Schmidt, zero columns stay zero); P_i = M_i Q_i;
//  3. all-reduce (Sum, F32) of all P_i concatenated;      [skipped when none compressed]
//  4. P_i orthogonalized; Q_i = M_i^T P_i;
//  5. all-reduce (Sum, F32) of all Q_i concatenated; Q_i /= p (kept as the state);
//  6. M_i = P_i Q_i^T (the average over ranks of the low-rank contributions).
// Wire layout: P_i is rows x r' and Q_i is cols x r', both COLUMN-major (column c
//   contiguous), concatenated over compressed matrices in layout order.
// Wire bytes per rank: 4 (sum of uncompressed numel + sum over compressed (rows+cols) r').
// Q initialisation (identical on every rank): element j of the concatenated Q buffer =
//   rng::normal(stream_key(seed, bucket index, s, 0xffffffffffffffff), j), s = the
//   bucket's step counter (0 on the first step); with warm_start it is drawn once and
//   then carried over (the averaged Q of step 5), otherwise drawn every step.
// State (save_state/load_state): per bucket index, its step counter and Q.
// Non-finite input: NaN/Inf propagate through the sums (identically on every rank); a
//   bucket whose averaged Q is not finite gets a fresh Q at its next step.
#pragma once

#include "registry.h"

#include <map>
#include <vector>

namespace gcu::compress {

struct PowerSgdParams {
  int64_t rank = 4;
  bool warm_start = true;
  double min_rate = 2.0;
  uint64_t seed = 0;
};

// Which tensors of a layout are compressed, and where their P, Q and values live.
struct PowerSgdPlan {
  struct Matrix {
    int64_t offset, rows, cols, rank;  // offset into the bucket
    int64_t p_offset, q_offset;        // into the concatenated P and Q buffers
  };
  std::vector<Matrix> matrices;
  std::vector<std::pair<int64_t, int64_t>> uncompressed;  // (offset, numel)
  int64_t uncompressed_numel = 0, p_numel = 0, q_numel = 0;
  static PowerSgdPlan of(const PowerSgdParams& prm, const BucketLayout& layout);
};

class PowerSgdCompressor final : public Compressor {
 public:
  explicit PowerSgdCompressor(PowerSgdParams p);
  std::string spec() const override;
  SchemeTraits traits() const override { return {true, false, true}; }
  std::vector<CollectiveCall> plan(const BucketLayout& layout, int world) const override;
  void step(GradBucket bucket, Communicator& comm) override;
  void roundtrip(int64_t bucket_index, const float* in, float* out,
                 const BucketLayout& layout) override;
  std::vector<uint8_t> save_state() const override;
  void load_state(const std::vector<uint8_t>& state) override;
  // The Q a bucket's next step starts from (nullptr before its first step or without
  // warm start): for tests and the CUDA version.
  const std::vector<float>* warm_q(int64_t bucket_index) const;

 private:
  // Reads the gradient from src and writes the result to data (src == data for step()).
  void run(int64_t index, const float* src, float* data, const BucketLayout& layout,
           Communicator* comm);
  struct BucketState {
    uint64_t steps = 0;
    std::vector<float> q;  // empty: draw a fresh one
  };
  PowerSgdParams prm_;
  std::map<int64_t, BucketState> state_;
  std::vector<float> p_, u_;
};

// Modified Gram-Schmidt on the columns of a column-major rows x cols matrix, in place;
// a column whose remaining norm is 0 becomes 0.
void orthogonalize_columns(float* a, int64_t rows, int64_t cols);

void register_powersgd(Registry& r);

}  // namespace gcu::compress
