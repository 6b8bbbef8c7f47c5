// --predict-rate link-fits (docs/validation.md, cause 18): a shaped link predicted with the
// collective costs measured through it, per collective kind and size range, instead of one
// rate for every call. Through a tbf-shaped link Gloo's all-gather of 1-4 MiB gets about
// half the all-reduce's rate between 2 ranks, while 100-400 KB messages get more than it:
// one rate cannot be right for both.
//
// The link's sweep (calibrate's collectives step run through the link by `gcu validate`,
// links/r<N>-<link>.json.state.json) is fitted as calibrate fits the unshaped one. For each
// collective kind, messages at or above the sweep's smallest size (and kLinkFitsMinBytes)
// take the link's fitted ranges; all-reduces from kLinkFitsMinBytesAllReduce up to there
// take the straight line between the sweep's neighbouring sizes (cause 20); smaller ones
// keep the profile's ranges with their per-byte cost at the link's measured all-reduce
// rate, which is what --predict-rate measured does for every size. A kind the sweep did
// not measure keeps the profile's ranges at that rate throughout.
#pragma once

#include "calibrate/state.h"
#include "model/profile.h"
#include "validate/grid.h"
#include "validate/predict.h"
#include "validate/validate.h"

#include <memory>
#include <vector>

namespace gcu::validate {

// Messages below these (per rank) keep the profile's ranges at the measured rate even when
// the link sweep reached them. All-reduce: from 128 KiB the sweep's own times are what the
// trainer's buckets pay (the CNN's 827 KB bucket within 2% at 1gbit, 500mbit and 200mbit;
// through the profile's ranges at the measured rate +1-2 ms: the unshaped link's fixed
// cost added to the wire time, cause 16); below it the sweep's sizes, timed 10 ms apart,
// came out cheaper than PowerSGD's and top-k's small collectives pay in training. Other
// kinds: from 1 MiB (the CNN's 100-400 KB all-gathers pay more than the sweep's; cause 18).
inline constexpr double kLinkFitsMinBytesAllReduce = 128 << 10;
inline constexpr double kLinkFitsMinBytes = 1 << 20;

// `base` with both link levels replaced as above (cells run one rank per namespace, i.e.
// the inter level). Throws ValidateError when the state has no fitted all-reduce sweep.
model::Profile profile_for_link(const model::Profile& base, const calibrate::CalibrationState& link_state,
                               double rate_gbps);

// For every cell on a shaped link whose sweep was kept (LinkRate::state_path) and measured:
// its predictor re-made from profile_for_link, holding the link. One profile per (ranks, link).
void apply_link_fits(const model::Profile& base, const std::vector<Cell>& cells, const std::vector<LinkRate>& links,
                     std::vector<std::unique_ptr<CellPredictor>>& preds);

}  // namespace gcu::validate
