// Compression-error measurement (docs/model.md §4, docs/calibrate.md): how far a scheme's
// C(g) is from g over a sequence of gradient buffers, with and without error feedback.
// Pure C++ on float buffers (no LibTorch); calibrate/ feeds it real gradients, the TTA
// model reads the result. One rank's view (roundtrip(), no communication).
//
// Definitions, for buffers g_1..g_T (zero-norm buffers are skipped and counted apart).
// "Scale-optimal" error of C at x: min over lambda of ||lambda C(x) - x||^2 / ||x||^2
// = 1 - cos^2(C(x), x), in [0, 1]; it equals the plain ratio for compressors whose
// output is already optimally scaled (top-k and other sparsifiers, scaled sign, PowerSGD
// projections) and is about w/(1+w) for an unbiased compressor of variance factor w
// (C/(1+w) is the delta = 1/(1+w) compressor theory pairs with error feedback).
//   rel_error      = mean_t ||C(g_t) - g_t||^2 / ||g_t||^2          (no error feedback;
//                    can exceed 1 for unbiased schemes: it is their w)
//   rel_error_max  = max_t  of the same ratio
//   rel_error_sum  = sum_t ||C(g_t) - g_t||^2 / sum_t ||g_t||^2      (norm-weighted)
//   cosine         = mean_t <C(g_t), g_t> / (||C(g_t)|| ||g_t||)     (0 when C(g_t) = 0)
//   delta          = 1 - mean_t scale-optimal error at g_t, in [0, 1]: contraction
//                    estimate, ||C(x) - x||^2 <= (1 - delta)||x||^2 on average (a biased
//                    scheme with EF behaves roughly like a delay 1/delta)
//   delta_min      = the same for the worst buffer
//   variance_factor w (unbiased schemes only, NaN otherwise): E||C(x) - x||^2 = w ||x||^2,
//                    estimated as rel_error; such a scheme costs about (1 + w/p) iterations
//   With error feedback (a fresh "ef(<spec>)"; residual e_1 = 0; the compressor sees the
//   compensated input x_t = g_t + e_t and keeps e_{t+1} = x_t - C(x_t)):
//   rel_error_ef   = mean_t scale-optimal error of C at x_t, in [0, 1]: the compression
//                    error of the inputs the compressor really gets with EF on; the TTA
//                    model's delta = 1 - rel_error_ef is in [0, 1] (0 only if C(x) is
//                    always orthogonal to x: never converges)
//   rel_error_ef_raw = mean_t ||C(x_t) - x_t||^2 / ||x_t||^2 (= ||e_{t+1}||^2/||x_t||^2;
//                    equals rel_error_ef for optimally scaled outputs; > 1 only for a
//                    non-contractive scheme such as unbiased randomk or terngrad)
//   update_error_ef = mean_t ||C(x_t) - g_t||^2 / ||g_t||^2 (= ||e_t - e_{t+1}||^2/||g_t||^2):
//                    the applied update against the true gradient. NOT a contraction
//                    figure: it contains the delayed residual e_t, which grows to about
//                    ||g||/delta for aggressive sparsifiers, so it exceeds 1 routinely
//                    (this used to be rel_error_ef, and 1 - it went negative).
//   residual_ratio = mean_t ||e_{t+1}||^2 / ||g_t||^2
// Schemes with built-in error feedback (traits().error_feedback, e.g. efsignsgd) are not
// wrapped again: the plain columns measure the scheme as it is, and the EF columns use a
// residual the meter tracks itself (e_{t+1} = x_t - output, the standard EF recursion,
// which is what efsignsgd keeps) to know x_t (ef_builtin = true).
// Several buckets per iteration: call add() once per bucket with its bucket index; the
// statistics then average over (iteration, bucket) pairs.
#pragma once

#include "compressor.h"

#include <map>
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
  double rel_error_ef = 0, rel_error_ef_raw = 0, update_error_ef = 0, residual_ratio = 0;
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
  std::vector<float> out_, x_;
  std::map<int64_t, std::vector<float>> residual_;  // e_t per bucket (the EF recursion)
  int64_t samples_ = 0, zeros_ = 0;
  double sum_rel_ = 0, max_rel_ = 0, sum_err_ = 0, sum_norm_ = 0, sum_cos_ = 0, sum_opt_ = 0, max_opt_ = 0;
  double sum_rel_ef_ = 0, sum_raw_ef_ = 0, sum_upd_ef_ = 0, sum_res_ = 0;
};

// Convenience: every buffer of `grads` in order, flat layouts, bucket index 0.
ErrorStats measure_error(const std::string& spec, const std::vector<std::vector<float>>& grads);

}  // namespace gcu::compress
