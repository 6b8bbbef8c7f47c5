// Encode/decode cost fit of any registered scheme spec from the profile's measured fits
// ("compressors.<spec>"), including parameter values that were not measured
// (docs/profile-schema.md, "Parameter values that were not measured"):
//  1. the exact fit of the canonical spec when the profile has one;
//  2. ef(X): the cost of X (resolved by these rules) plus the error-feedback overhead:
//     measured (ef(Y) - Y per-element costs, for the pairs the profile has), else assumed
//     from the memory bandwidth of the FP16 baseline's cast (ef_overhead_from_cast);
//  3. otherwise the fits of the same scheme whose other parameters are equal and which
//     differ in ONE numeric parameter: each coefficient piecewise linear in that parameter
//     (in log10 for fractions, values in (0, 1): k, sample; linearly for counts: rank,
//     levels, bits), linear from the two nearest points outside the measured range, never
//     below zero; one such fit alone is used as it is.
// Extrapolation, a single point and an assumed ef overhead give an assumption line;
// interpolation and a measured ef overhead give a note. Collective floors (allreduce_floor,
// allgather_floor): ef(X) keeps X's; a value derived by rule 3 takes the nearest measured
// value's that has one, with an assumption line.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include <map>
#include <string>
#include <vector>

namespace gcu::model {

struct ResolvedCodec {
  CodecFit fit;
  std::vector<std::string> notes;        // how a non-measured fit was derived
  std::vector<std::string> assumptions;  // numbers beyond the measurements
};

// `canonical_spec` as the registry prints it (Compressor::spec()). Throws ModelError
// naming the field to add (compressors."<spec>") when no fit of the scheme's family can
// be used, and compress::CompressorError for an unknown scheme.
ResolvedCodec resolve_codec_fit(const std::string& canonical_spec, const std::map<std::string, CodecFit>& fits);

// ---- pure helpers ----------------------------------------------------------------------
struct ParamPoint {
  double x = 0;  // the parameter's value
  CodecFit fit;
};
// Every coefficient piecewise linear through `pts` (any order, distinct x, at least one)
// in x, or in log10(x) when log_scale; outside [min x, max x] the line through the two
// nearest points; clamped at 0. One point: its fit. measured_n: the nearest point's.
CodecFit interpolate_fit(std::vector<ParamPoint> pts, double x, bool log_scale);

// Error feedback's own work per element (compressors/error_feedback.cpp), fp32 traffic:
// compensate x = g + e and keep x in e (read g, e; write g, e: 16 B) before the inner
// encode; e -= c after the inner decode (read e, c; write e: 12 B). The FP16 cast's encode
// reads 4 B and writes 2 B per element: the overhead is assumed to run at that speed.
inline constexpr double kEfEncodeBytesPerElement = 16;
inline constexpr double kEfDecodeBytesPerElement = 12;
inline constexpr double kCastEncodeBytesPerElement = 6;
// The assumed ef(...) overhead: per_element_s of encode and decode, from the cast's
// encode per_element_s scaled by the bytes above; fixed and per-rank terms are 0.
CodecFit ef_overhead_from_cast(Seconds cast_encode_per_element_s);

}  // namespace gcu::model
