// --predict-rate link-fits: a shaped link predicted with the collective costs measured
// through it, per collective kind and size range, instead of one rate for every call.
// Through a tbf-shaped link Gloo's all-gather of 1-4 MiB gets about half the all-reduce's
// rate between 2 ranks, while 100-400 KB messages get more than it: one rate cannot be
// right for both.
//
// The link's sweep (calibrate's collectives step run through the link by `gcu validate`,
// links/r<N>-<link>.json.state.json) is fitted as calibrate fits the unshaped one. For each
// collective kind, messages at or above the sweep's smallest size (and kLinkFitsMinBytes)
// take the link's fitted ranges; all-reduces from kLinkFitsMinBytesAllReduce up to there
// take the straight line between the sweep's neighbouring sizes (what the trainer's
// buckets pay there); smaller ones keep the profile's ranges with their per-byte cost at
// the link's measured all-reduce rate, which is what --predict-rate measured does for
// every size. A kind the sweep did
// not measure keeps the profile's ranges at that rate throughout.
#pragma once

#include "calibrate/state.h"
#include "model/profile.h"
#include "validate/grid.h"
#include "validate/predict.h"
#include "validate/validate.h"

#include <memory>
#include <utility>
#include <vector>

namespace gcu::validate {

// Messages below these (per rank) keep the profile's ranges at the measured rate even when
// the link sweep reached them. All-reduce: from 128 KiB the sweep's own times are what the
// trainer's buckets pay (the CNN's 827 KB bucket within 2% at 1gbit, 500mbit and 200mbit;
// through the profile's ranges at the measured rate +1-2 ms: the unshaped link's fixed
// cost added to the wire time); below it the sweep's sizes, timed 10 ms apart,
// came out cheaper than PowerSGD's and top-k's small collectives pay in training. Other
// kinds: from 1 MiB (the CNN's 100-400 KB all-gathers pay more than the sweep's).
inline constexpr double kLinkFitsMinBytesAllReduce = 128 << 10;
inline constexpr double kLinkFitsMinBytes = 1 << 20;

// Long flows. Through a tbf-shaped link Gloo's all-gather between 2 ranks moves
// a bucket stream (the trainer's back-to-back buckets, 11 MB per rank per iteration for
// QSGD on ResNet-18) at ~2/3 of the all-reduce's rate: 15.0-15.7 MB/s against 22-24 at
// 200 Mbit/s on all eleven 2-rank ResNet-18 grids, 71-77 MB/s against 116-118 at 1 Gbit/s.
// The sweep's calls of 1-4 MiB per rank come out anywhere between that and the full rate
// (a call that starts on drained queues runs at the full rate), its largest sizes at the
// stream's rate on every timing tried (after a 10 ms gap, back to back, free-running:
// 15.8-16.4 MB/s at 200 Mbit/s from 4 MiB per rank). The piecewise line fitted from 1 MiB
// follows the many bursty mid sizes. So on a shaped link every all-gather from `from`
// (1 MiB per rank) up costs the rate of the sweep's two largest sizes, T = n (t1 + t2) /
// (n1 + n2). The all-reduce (Gloo's ring moves in segments and keeps its rate: `none`'s
// bucket streams within 2% of its line) and the other kinds keep their lines.

// The rule above on one kind's ranges; `top`: the sweep's two largest sizes (per-rank
// bytes, seconds). True when the ranges from `from` up were replaced; false (unchanged)
// with fewer than two top sizes at or above `from`.
bool long_flow_rate(std::vector<model::SizeRangeFit>& ranges, compress::CollectiveKind k, int world, double from,
                    const std::vector<std::pair<double, double>>& top);

// `base` with both link levels replaced as above (cells run one rank per namespace, i.e.
// the inter level). Throws ValidateError when the state has no fitted all-reduce sweep.
model::Profile profile_for_link(const model::Profile& base, const calibrate::CalibrationState& link_state,
                               double rate_gbps);

// For every cell on a shaped link whose sweep was kept (LinkRate::state_path) and measured:
// its predictor re-made from profile_for_link, holding the link. One profile per (ranks, link).
void apply_link_fits(const model::Profile& base, const std::vector<Cell>& cells, const std::vector<LinkRate>& links,
                     std::vector<std::unique_ptr<CellPredictor>>& preds);

}  // namespace gcu::validate
