// Profile JSON writing (profile_json.h; the schema is documented in
// docs/profile-schema.md). The reader and the range checks are in profile_json.cpp and
// profile_validate.cpp.
#include "model/profile_json.h"

namespace gcu::model {

Json collective_floor_to_json(const CollectiveFloor& f) {
  Json j = {{"world", f.world}, {"elements", f.elements}, {"seconds", f.seconds}, {"per_element_s", f.per_element_s}};
  if (!f.se_s.empty()) j["se_s"] = f.se_s;
  return j;
}

// ---- writer ------------------------------------------------------------------------------
namespace {
Json level_to_json(const LinkLevel& l) {
  Json j;
  j["bandwidth_gbps"] = l.bandwidth_gbps;
  j["alpha_s"] = l.alpha_s;
  if (!l.collectives.empty()) {
    Json c = Json::object();
    for (const auto& [k, fits] : l.collectives) {
      const bool curve = l.curves.count(k) > 0 && !fits.empty();
      Json a = Json::array();
      for (const auto& s : fits) {
        Json r;
        r["min_bytes"] = s.min_bytes;
        if (std::isfinite(s.max_bytes)) r["max_bytes"] = s.max_bytes;
        if (!curve) r["alpha_s"] = s.alpha_s;
        r["beta_s_per_byte"] = s.beta_s_per_byte;
        a.push_back(std::move(r));
      }
      if (curve) c[k] = {{"alpha_s", fits.front().alpha_s}, {"ranges", std::move(a)}};
      else c[k] = std::move(a);
    }
    j["collectives"] = std::move(c);
  }
  return j;
}

Json provenance_to_json(const Provenance& v) {
  Json o = Json::object();
  if (!v.source.empty()) o["source"] = v.source;
  if (!v.device.empty()) o["device"] = v.device;
  if (!v.date.empty()) o["date"] = v.date;
  if (!v.command.empty()) o["command"] = v.command;
  if (!v.libraries.empty()) {
    Json l = Json::object();
    for (const auto& [k, ver] : v.libraries) l[k] = ver;
    o["libraries"] = std::move(l);
  }
  if (!v.assumptions.empty()) o["assumptions"] = v.assumptions;
  return o;
}

Json cluster_to_json(const Cluster& c) {
  Json o;
  o["nodes"] = c.nodes;
  o["gpus_per_node"] = c.gpus_per_node;
  o["levels"] = Json::object();
  auto present = [](const LinkLevel& l) { return l.bandwidth_gbps != 0 || !l.collectives.empty(); };
  if (present(c.intra)) o["levels"]["intra"] = level_to_json(c.intra);
  if (present(c.inter)) o["levels"]["inter"] = level_to_json(c.inter);
  o["algorithms"] = c.algorithms;
  o["gamma_stretch"] = c.gamma_stretch;
  Json in = Json::object();
  // A rate derived from the stretch is left out, so that it is derived again on reading.
  if (!c.gamma_from_stretch) in["backward_by_collective"] = c.gamma;
  in["collective_by_backward"] = c.comm_contention;
  in["backward_codec"] = c.overlap_contention;
  if (c.comm_contention_reference) in["host_link"] = level_to_json(*c.comm_contention_reference);
  if (c.interference_fit) {
    const Cluster::InterferenceFit& f = *c.interference_fit;
    in["fit"] = {{"step", f.step},
                 {"backward_alone_s", f.backward_alone_s},
                 {"backward_beside_s", f.backward_beside_s},
                 {"comm_beside_s", f.comm_beside_s},
                 {"backward_beside_model_s", f.backward_beside_model_s},
                 {"comm_beside_model_s", f.comm_beside_model_s},
                 {"gamma_at_bound", f.gamma_at_bound},
                 {"comm_contention_at_bound", f.comm_contention_at_bound}};
  }
  o["interference"] = std::move(in);
  if (!c.allreduce_element_bytes.empty()) o["allreduce_element_bytes"] = c.allreduce_element_bytes;
  return o;
}

Json model_to_json(const Model& m) {
  Json o;
  o["name"] = m.name;
  o["parameters"] = m.parameters;
  Json ts = Json::array();
  for (const auto& t : m.tensors) {
    Json x;
    x["name"] = t.name;
    x["shape"] = t.shape;
    ts.push_back(std::move(x));
  }
  o["tensors"] = std::move(ts);
  Json cs = Json::array();
  for (const auto& e : m.compute) {
    Json x;
    x["batch_size"] = e.batch_size;
    x["forward_s"] = e.forward_s;
    x["backward_s"] = e.backward_s;
    x["optimizer_s"] = e.optimizer_s;
    x["data_s"] = e.data_s;
    if (!e.ready_s.empty()) x["ready_s"] = e.ready_s;
    cs.push_back(std::move(x));
  }
  o["compute"] = std::move(cs);
  return o;
}

Json compressors_to_json(const std::map<std::string, CodecFit>& compressors) {
  Json o = Json::object();
  for (const auto& [k, c] : compressors) {
    Json x;
    x["encode"]["fixed_s"] = c.encode.fixed_s;
    x["encode"]["per_element_s"] = c.encode.per_element_s;
    x["decode"]["fixed_s"] = c.decode.fixed_s;
    x["decode"]["per_element_s"] = c.decode.per_element_s;
    x["decode"]["per_rank_element_s"] = c.decode.per_rank_element_s;
    // Written only when measured (profiles without them read as 0, as before).
    if (c.encode.per_tensor_s != 0) x["encode"]["per_tensor_s"] = c.encode.per_tensor_s;
    if (c.decode.per_tensor_s != 0) x["decode"]["per_tensor_s"] = c.decode.per_tensor_s;
    if (c.measured_n > 0) x["measured_n"] = c.measured_n;
    if (c.allreduce_floor) x["allreduce_floor"] = collective_floor_to_json(*c.allreduce_floor);
    if (c.allgather_floor) x["allgather_floor"] = collective_floor_to_json(*c.allgather_floor);
    o[k] = std::move(x);
  }
  return o;
}

Json convergence_to_json(const Convergence& c) {
  Json o;
  if (!c.source.empty()) o["source"] = c.source;
  if (!c.target.empty()) o["target"] = c.target;
  o["baseline_iterations"] = c.baseline_iterations;
  if (c.baseline_global_batch > 0) o["baseline_global_batch"] = c.baseline_global_batch;
  if (c.critical_batch_size) o["critical_batch_size"] = *c.critical_batch_size;
  Json s = Json::object();
  for (const auto& [k, f] : c.schemes) {
    Json x = Json::object();
    if (f.relative_error) x["relative_error"] = *f.relative_error;
    if (f.relative_error_ef) x["relative_error_ef"] = *f.relative_error_ef;
    if (f.error_feedback) x["error_feedback"] = *f.error_feedback;
    if (f.iterations) x["iterations"] = *f.iterations;
    if (f.reaches_target) x["reaches_target"] = *f.reaches_target;
    if (f.pilot) {
      Json q;
      q["status"] = f.pilot->status;
      if (!f.pilot->basis.empty()) q["basis"] = f.pilot->basis;
      if (f.pilot->multiplier) q["multiplier"] = *f.pilot->multiplier;
      if (f.pilot->multiplier_lo) q["multiplier_lo"] = *f.pilot->multiplier_lo;
      if (f.pilot->multiplier_hi) q["multiplier_hi"] = *f.pilot->multiplier_hi;
      if (f.pilot->widened) q["widened"] = true;
      if (!f.pilot->evidence.empty()) q["evidence"] = f.pilot->evidence;
      if (f.pilot->seeds) q["seeds"] = *f.pilot->seeds;
      if (f.pilot->baseline_seeds) q["baseline_seeds"] = *f.pilot->baseline_seeds;
      x["pilot"] = std::move(q);
    }
    s[k] = std::move(x);
  }
  o["schemes"] = std::move(s);
  const ConvergenceConstants& k = c.constants;
  o["constants"]["ef_scale"] = k.ef_scale;
  o["constants"]["variance_scale"] = k.variance_scale;
  o["constants"]["biased_scale"] = k.biased_scale;
  o["constants"]["max_biased_error"] = k.max_biased_error;
  o["constants"]["max_multiplier"] = k.max_multiplier;
  return o;
}
}  // namespace

Json profile_to_json(const Profile& p) {
  Json j;
  j["schema"] = p.schema.empty() ? std::string(kProfileSchema) : p.schema;
  j["provenance"] = provenance_to_json(p.provenance);
  j["cluster"] = cluster_to_json(p.cluster);
  j["model"] = model_to_json(p.model);
  j["ddp"]["first_bucket_bytes"] = p.ddp.first_bucket_bytes;
  j["ddp"]["bucket_cap_bytes"] = p.ddp.bucket_cap_bytes;
  j["compressors"] = compressors_to_json(p.compressors);
  j["convergence"] = convergence_to_json(p.convergence);
  return j;
}

}  // namespace gcu::model
