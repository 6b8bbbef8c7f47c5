// From a measured collective sweep to the profile's alpha/beta (torch-free):
// the piecewise robust fit of time vs PER-RANK bytes, its fit error (all sizes, and
// sizes >= 1 MiB, the goal's two figures), and the conversion to the per-step latency
// and per-byte link time the model's ring formulas take (model/collectives.h):
//   all-reduce     T = 2(p-1) a + 2(p-1)/p n b
//   all-gather     T =  (p-1) a +  (p-1)   n b   (n per rank)
//   reduce-scatter T =  (p-1) a +  (p-1)/p n b
//   broadcast      T =  (p-1) a +          n b   (pipelined ring)
// i.e. a = intercept / steps, b = slope / factor, so that the model reproduces the
// measured line exactly when the profile lists only the "ring" algorithm.
#pragma once

#include "calibrate/curve_fit.h"
#include "calibrate/fit.h"
#include "calibrate/table.h"
#include "compressors/compressor.h"
#include "model/profile.h"

#include <string>
#include <vector>

namespace gcu::calibrate {

struct CollectiveSweep {
  compress::CollectiveKind kind = compress::CollectiveKind::AllReduce;
  int world = 1;
  bool supported = true;
  std::string note;               // e.g. why it is unsupported
  std::vector<SweepRow> rows;     // nccl-tests sizes (all-gather: output bytes)
  PiecewiseFit fit;               // seconds vs per-rank bytes
  FitQuality quality;             // over all rows
  FitQuality quality_large;       // rows with per-rank bytes >= 1 MiB
  // The continuous curve through the same rows, on the piecewise fit's range edges
  // (curve_fit.h): what the profile carries (to_curve_fits).
  CurveFit curve;
  FitQuality curve_quality, curve_quality_large;
};

// Per-rank bytes of a row (all-gather rows count the output, p x per-rank).
double per_rank_bytes(compress::CollectiveKind k, int world, const SweepRow& r);

// Fits the rows and fills fit, quality, quality_large and rows[i].fit_s. `statistic`:
// "median" (default), "p10" or "min" (the undisturbed mode on an oversubscribed machine, where
// a call that waits for a descheduled peer takes a scheduler quantum longer).
// The piecewise options for collective sweeps: at most 5% error from 1 MiB per rank on
// as the fit's target, up to 5 size ranges of >= 3 sizes each.
PiecewiseOptions sweep_fit_options();
void fit_sweep(CollectiveSweep& s, const PiecewiseOptions& opt = sweep_fit_options(),
               const std::string& statistic = "median");
double row_time_s(const SweepRow& r, const std::string& statistic);

// Ring steps and bandwidth factor of the formulas above: T = steps a + factor n b.
double ring_steps(compress::CollectiveKind k, int p);
double ring_byte_factor(compress::CollectiveKind k, int p);

// The fitted segments as the profile's per-size-range fits (first from 0, last to inf),
// each range its own line (gcu.profile/1).
std::vector<model::SizeRangeFit> to_size_range_fits(const CollectiveSweep& s);
// The continuous curve as the profile's ranges of one curve (model::LinkLevel::curves):
// every range's alpha_s the curve's latency (intercept / ring steps), each beta its slope
// / the ring byte factor.
std::vector<model::SizeRangeFit> to_curve_fits(const CollectiveSweep& s);
// A curve's ranges as separate lines that cost the same at p ranks with the ring formulas
// (each range's line through the curve inside it; its alpha_s may be below 0): for
// splicing a curve with other ranges (validate's per-link fits). Ranges already lines
// (not a curve) are returned as they are.
std::vector<model::SizeRangeFit> curve_as_lines(const std::vector<model::SizeRangeFit>& curve,
                                                compress::CollectiveKind k, int p);

// A message can always travel as part of a larger one, so a fit whose range ends above the
// next range's start (noise in the sweep: a 512 KiB call timed slower than 1 MiB ones) is
// not physical. Such a range keeps its own line up to where the next range's line,
// extended down, crosses it, and follows that line from there. When the next line is
// below this one over the whole range (extended further down it could undercut the small
// sizes' latency), the range keeps its line up to the next range's starting cost and is
// held flat at that cost from there (the padding bound). Only lines fitted from
// `trusted_from_bytes` up (the sweep fit's 5% target region), or made from one here, lower
// the range below them: below 1 MiB one low size (a 256 KiB mean of 4.4 ms between 10.3
// and 6.9 ms at 4 ranks) would otherwise pull every smaller size down to it. So the cost
// never falls as the size grows into the trusted region.
// `ranges` sorted by min_bytes; a gap between two ranges is left alone. Returns one note
// per range lowered, naming the collective, the sizes and the reduction.
std::vector<std::string> make_nondecreasing(std::vector<model::SizeRangeFit>& ranges, compress::CollectiveKind k,
                                            int p, double trusted_from_bytes = model::kMiB);

// A link level from the sweeps: every supported collective as one curve (to_curve_fits;
// LinkLevel::curves), alpha_s the all-reduce curve's latency, bandwidth_gbps from its last
// (large-size) range's beta. Throws FitError when there is no fitted all-reduce sweep.
// When the largest sizes' segment shows no plausible per-byte cost (slope <= 0, or a
// bandwidth above kMaxPlausibleGbps: latency noise swamped the bytes, as with a small
// --max-bytes on a fast link), the bandwidth comes from the fit's secant over the whole
// sweep and a note says so; no per-byte cost at all is a FitError. (A curve never falls
// with size: make_nondecreasing is for ranges fitted as separate lines.)
constexpr double kMaxPlausibleGbps = 1e5;
model::LinkLevel link_level_from_sweeps(const std::vector<CollectiveSweep>& sweeps,
                                        std::vector<std::string>* notes = nullptr);

}  // namespace gcu::calibrate
