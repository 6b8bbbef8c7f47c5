// Compression-error measurement (SPEC §1 "Convergence and TTA", §3): how far a scheme's
// C(g) is from g over a sequence of gradient buffers, with and without error feedback.
// Pure C++ on float buffers (no LibTorch); calibrate/ feeds it real gradients, the TTA
// model reads the result. One rank's view (roundtrip(), no communication).
//
// Definitions, for buffers g_1..g_T (zero-norm buffers are skipped and counted apart):
//   rel_error      = mean_t ||C(g_t) - g_t||^2 / ||g_t||^2          (no error feedback)
//   rel_error_max  = max_t  of the same ratio
//   rel_error_sum  = sum_t ||C(g_t) - g_t||^2 / sum_t ||g_t||^2      (norm-weighted)
//   cosine         = mean_t <C(g_t), g_t> / (||C(g_t)|| ||g_t||)     (0 when C(g_t) = 0)
//   delta          = 1 - rel_error: contraction estimate, ||C(x) - x||^2 <= (1 - delta)||x||^2
//                    on average (a biased scheme with EF behaves roughly like a delay 1/delta)
//   delta_min      = 1 - rel_error_max (worst buffer)
//   variance_factor w (unbiased schemes only, NaN otherwise): E||C(x) - x||^2 = w ||x||^2,
//                    estimated as rel_error; such a scheme costs about (1 + w/p) iterations
//   With error feedback (a fresh "ef(<spec>)", residual e_1 = 0, e_{t+1} = g_t + e_t - C(g_t + e_t)):
//   rel_error_ef   = mean_t ||C(g_t + e_t) - g_t||^2 / ||g_t||^2   (applied update vs true gradient)
//   residual_ratio = mean_t ||e_{t+1}||^2 / ||g_t||^2  (NaN when ef_builtin: residual not visible)
// Schemes with built-in error feedback (traits().error_feedback, e.g. efsignsgd) are not
// wrapped again: both columns then measure the scheme as it is (ef_builtin = true).
// Several buckets per iteration: call add() once per bucket with its bucket index; the
// statistics then average over (iteration, bucket) pairs.
#pragma once

#include "compressor.h"

#include <memory>
#include <string>
#include <vector>

namespace gcu::compress {

struct ErrorStats {
  std::string spec;
  int64_t samples = 0;       // buffers measured
  int64_t zero_buffers = 0;  // skipped: ||g|| = 0
  double rel_error = 0, rel_error_max = 0, rel_error_sum = 0, cosine = 0;
  double delta = 1, delta_min = 1;
  double variance_factor = 0;  // NaN for biased schemes
  double rel_error_ef = 0, residual_ratio = 0;
  bool biased = false, ef_builtin = false;
};

class ErrorMeter {
 public:
  // Makes two fresh compressors from `spec` (plain and error-feedback). CPU schemes.
  explicit ErrorMeter(const std::string& spec);
  ~ErrorMeter();
  void add(const float* g, const BucketLayout& layout, int64_t bucket_index = 0);
  void add(const std::vector<float>& g, int64_t bucket_index = 0);  // flat layout
  ErrorStats stats() const;

 private:
  std::string spec_;
  std::unique_ptr<Compressor> plain_, ef_;
  bool ef_builtin_ = false, biased_ = false;
  std::vector<float> out_;
  int64_t samples_ = 0, zeros_ = 0;
  double sum_rel_ = 0, max_rel_ = 0, sum_err_ = 0, sum_norm_ = 0, sum_cos_ = 0;
  double sum_rel_ef_ = 0, sum_res_ = 0;
};

// Convenience: every buffer of `grads` in order, flat layouts, bucket index 0.
ErrorStats measure_error(const std::string& spec, const std::vector<std::vector<float>>& grads);

}  // namespace gcu::compress
