// A codec's cost on the model's own gradients (torch-free; docs/calibrate.md,
// "codec-gradients"; codec costs inside training were larger than the codecs sweep's).
//
// The codecs step fits encode/decode time on N(0,1) buckets viewed as [n/1024, 1024]
// matrices. A real bucket differs in two ways the cost can depend on: its values (ResNet-18's
// largest bucket of synthetic-data gradients is 87% exact zeros, which piles top-k's
// radix-select histogram into one bin: 15 ms instead of 7.8 ms for 6.5 M elements) and its
// tensors' shapes (PowerSGD multiplies per tensor). This step times each codec's step() on
// the DDP buckets of the collected gradients (the LoopbackCommunicator split of codecs.h)
// and compares with the sweep's fit for the same buckets; the ratio scales the fit.
#pragma once

#include "calibrate/codecs.h"
#include "calibrate/state.h"
#include "model/profile.h"

#include <optional>
#include <string>

namespace gcu::calibrate {

// Below this (seconds per gradient, all buckets) a codec is too cheap for the ratio to
// mean anything: its factor stays 1.
inline constexpr double kMinComparableS = 20e-6;

// Times `spec` on every DDP bucket (model/buckets.h, `ddp`) of every snapshot of `g`,
// `passes` times after one untimed pass, on a loopback of `world` ranks; the figures are
// medians over snapshots x passes of the per-gradient sums. `sweep_fit` is the codecs
// step's fit and `wire_extra_per_element_s` the part of its decode that a loopback does not
// pay (CodecState); unknown (nullopt, an old state file): decode_factor stays 1. Throws
// FitError on an empty set, compress::CompressorError on a bad spec. `device` CUDA: the
// CUDA scheme on device copies of the buckets (as the sweep, codecs.h).
CodecGradientState time_codec_on_gradients(const std::string& spec, const GradientSet& g,
                                           const model::CodecFit& sweep_fit,
                                           std::optional<double> wire_extra_per_element_s, int world, int passes = 2,
                                           const model::DdpConfig& ddp = {},
                                           compress::Device device = compress::Device::CPU);

// `fit` with encode scaled by s.encode_factor and decode (all but the wire extra) by
// s.decode_factor.
model::CodecFit scaled_fit(const model::CodecFit& fit, std::optional<double> wire_extra_per_element_s,
                           const CodecGradientState& s);

// "3 buckets: encode 22.1 ms (sweep fit 16.4 ms, x1.35), decode ..." for logs and reports.
std::string describe(const CodecGradientState& s);

}  // namespace gcu::calibrate
