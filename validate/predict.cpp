// Cell predictions mapped onto the trainer's components (predict.h).
#include "validate/predict.h"
#include "validate/speed_adjust.h"

namespace gcu::validate {

CellPredictor::CellPredictor(const model::Profile& profile, const Cell& cell, bool link_in_profile)
    : link_in_profile_(link_in_profile) {
  model::Setup s;
  s.scheme = cell.scheme;
  s.nodes = cell.ranks;
  s.gpus_per_node = 1;
  s.batch_size = cell.batch;
  s.model = model::IterationModel::Event;
  s.mode = cell.mode == "after" ? model::CompressionMode::AfterBackward : model::CompressionMode::Overlapped;
  try {
    p_ = std::make_unique<model::Predictor>(profile, s);
  } catch (const std::exception& e) {
    throw ValidateError("cannot predict " + cell.label() + ": " + e.what());
  }
  // A batch size the profile has no compute entry for: say how its compute was obtained.
  if (!p_->compute().exact) {
    const std::string& n = p_->compute().note;
    compute_basis_ = n.substr(0, n.find("; "));
  }
}

double CellPredictor::compute_sensitivity_s(model::Gbps rate_gbps) const {
  const double h = kSpeedSensitivityStep;
  return (at(predict(rate_gbps, 1 + h), Component::Total) - at(predict(rate_gbps, 1 - h), Component::Total)) / (2 * h);
}

Breakdown CellPredictor::predict(model::Gbps rate_gbps, double compute_scale) const {
  model::Conditions c;
  c.compute_speedup = 1 / compute_scale;
  c.gamma = link_gamma_;
  c.comm_contention = link_comm_contention_;
  if (!link_in_profile_) {
    c.inter_bandwidth_gbps = rate_gbps;
    c.intra_bandwidth_gbps = rate_gbps;
  }
  const model::IterationResult r = p_->predict(c, /*timeline=*/true);
  double bwd_end = r.backward_s;  // after-backward mode: nothing slows it
  for (const auto& e : r.timeline)
    if (e.lane == model::Lane::Compute && e.name.rfind("backward", 0) == 0) bwd_end = e.duration_s;
  Breakdown b{};
  at(b, Component::Forward) = r.forward_s;
  at(b, Component::Backward) = bwd_end;
  at(b, Component::Exposed) = std::max(0.0, r.backward_comm_s - bwd_end);
  at(b, Component::Encode) = r.encode_s;
  at(b, Component::Decode) = r.decode_s;
  at(b, Component::Collective) = r.comm_s;
  at(b, Component::Optimizer) = r.optimizer_s;
  at(b, Component::Data) = r.data_s;
  at(b, Component::Total) = r.total_s;
  return b;
}

}  // namespace gcu::validate
