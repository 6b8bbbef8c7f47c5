// The model's side of a validation cell: the model library's Predictor (gcu_model) for
// the cell's scheme, mode, per-rank batch, ranks and link, and the mapping of its
// IterationResult onto the trainer's components (docs/validate-schema.md, "Components"):
//
//   forward, optimizer, data   <- IterationResult forward_s, optimizer_s, data_s
//   backward                   <- the end of backward on the timeline: the trainer times
//                                 loss.backward(), which in overlap mode is slowed by gamma
//                                 (and contention) while buckets are reduced beside it;
//                                 IterationResult::backward_s is the unslowed work
//   exposed_comm               <- backward_comm_s - that end (the trainer's comm_exposed_s:
//                                 from the end of backward until the last bucket is done)
//   encode, decode, collective <- encode_s, decode_s, comm_s (sums over buckets)
//   total                      <- total_s
//
// Placement: each rank in its own namespace is its own "node" (nodes = ranks, one GPU
// each), so the link is the profile's inter level; a link rate replaces the link's beta in
// every size range and keeps the latencies (docs/model.md §1.4).
#pragma once

#include "validate/grid.h"
#include "validate/measure.h"

#include "model/iteration.h"
#include "model/profile.h"

#include <memory>
#include <string>

namespace gcu::validate {

class CellPredictor {
 public:
  // Throws ValidateError naming the cell (unknown scheme, no codec fit, no compute...).
  // link_in_profile: the profile already holds the cell's link (validate/link_fits.h).
  CellPredictor(const model::Profile& profile, const Cell& cell, bool link_in_profile = false);
  // rate_gbps: the link rate to predict with (0 = the profile's own link, for the
  // unlimited link of the placement it was calibrated in); ignored when the profile holds
  // the link.
  // compute_scale: every compute time (forward, backward, optimizer, data, encode, decode)
  // takes this many times as long (the model's compute_speedup = 1 / compute_scale).
  Breakdown predict(model::Gbps rate_gbps, double compute_scale = 1) const;
  // dT/ds of the predicted total, s the compute_scale, by a central difference at s = 1
  // (speed_adjust.h): seconds of total per unit of machine slowness.
  double compute_sensitivity_s(model::Gbps rate_gbps) const;
  bool link_in_profile() const { return link_in_profile_; }
  // The cell's link measured its own gamma and comm_contention (link_gamma.h): predict
  // with them instead of the profile's (0 = the profile's).
  void set_link_gamma(double gamma, double comm_contention) {
    link_gamma_ = gamma;
    link_comm_contention_ = comm_contention;
  }
  double link_gamma() const { return link_gamma_; }
  // Empty when the profile has the cell's batch size; else how its compute was obtained
  // (model/profile.h compute_for_batch: "batch 32 interpolated between 16 and 64", ...).
  const std::string& compute_basis() const { return compute_basis_; }

 private:
  std::unique_ptr<model::Predictor> p_;
  bool link_in_profile_ = false;
  double link_gamma_ = 0, link_comm_contention_ = 0;
  std::string compute_basis_;
};

}  // namespace gcu::validate
