// A measured profile's compute moved to another GPU layer by layer (move.h).
#include "model/network/move.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace gcu::model::net {
namespace {

std::string move_num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out;
  for (const int64_t d : s) out += (out.empty() ? "" : "x") + std::to_string(d);
  return "[" + out + "]";
}

void check_same_tensors(const Model& m, const Network& n) {
  const auto t = n.tensors_backward();
  if (t.size() != m.tensors.size())
    throw NetworkError("the profile's model has " + std::to_string(m.tensors.size()) + " tensors, network " + n.spec +
                       " has " + std::to_string(t.size()) + ": describe the profile's own network with --model");
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name != m.tensors[i].name || t[i].shape != m.tensors[i].shape)
      throw NetworkError("the profile's tensor " + std::to_string(i) + " (backward order) is " + m.tensors[i].name +
                         " " + shape_text(m.tensors[i].shape) + ", network " + n.spec + "'s is " + t[i].name + " " +
                         shape_text(t[i].shape) + ": describe the profile's own network with --model");
}

}  // namespace

const hw::Gpu& gpu_named_in(const hw::Catalog& c, const std::string& device) {
  const std::string d = hw::lower_case(device);
  const hw::Gpu* best = nullptr;
  size_t best_len = 0;
  for (const auto& g : c.gpus) {
    std::vector<std::string> names = g.aliases;
    names.push_back(g.name);
    for (const auto& a : names) {
      const std::string k = hw::lower_case(a);
      if (k.size() > best_len && d.find(k) != std::string::npos) best = &g, best_len = k.size();
    }
  }
  if (!best)
    throw hw::HardwareError("the profile's device '" + device.substr(0, 80) +
                            "' names no GPU of the catalog: give --from-gpu NAME (`gcu hardware gpus`)");
  return *best;
}

MovedCompute move_compute(const Model& m, const Network& n, const hw::Gpu& from, const hw::Gpu& to,
                          const MoveOptions& o) {
  check_same_tensors(m, n);
  if (!n.has_work) throw NetworkError("network " + n.spec + " gives no per-layer work: a profile cannot be moved by it");
  RooflineOptions rf = o.roofline, rt = o.roofline;
  rf.precision = o.from_precision;
  rt.precision = o.to_precision;
  // Each tensor's owning layer.
  std::map<std::string, size_t> owner;
  for (size_t i = 0; i < n.layers.size(); ++i)
    for (const auto& t : n.layers[i].params) owner.emplace(t.name, i);

  MovedCompute out;
  for (size_t e = 0; e < m.compute.size(); ++e) {
    const ComputeEntry& src = m.compute[e];
    const double batch = src.batch_size;
    std::vector<LayerSeconds> lf, lt;
    Seconds fwd_f = 0, fwd_t = 0, bwd_f = 0, bwd_t = 0;
    int cb = 0, mb = 0;
    for (const Layer& l : n.layers) {
      lf.push_back(layer_seconds(l, batch, from, rf));
      lt.push_back(layer_seconds(l, batch, to, rt));
      fwd_f += lf.back().forward_s, fwd_t += lt.back().forward_s;
      bwd_f += lf.back().backward_s, bwd_t += lt.back().backward_s;
      (lt.back().compute_bound ? cb : mb)++;
    }
    ComputeEntry c = src;
    c.forward_s = src.forward_s * fwd_t / fwd_f;
    c.optimizer_s = src.optimizer_s * from.memory_bytes_per_s / to.memory_bytes_per_s;
    if (src.ready_s.empty()) {
      c.backward_s = src.backward_s * bwd_t / bwd_f;
    } else {
      // Walk backward (reverse execution); an interval ends where a layer's last gradient is ready.
      std::map<std::string, Seconds> ready_of;
      for (size_t k = 0; k < m.tensors.size(); ++k) ready_of[m.tensors[k].name] = src.ready_s[k];
      std::map<std::string, Seconds> moved_ready;
      Seconds prev_src = 0, prev_dst = 0, group_f = 0, group_t = 0;
      for (size_t i = n.layers.size(); i-- > 0;) {
        group_f += lf[i].backward_s, group_t += lt[i].backward_s;
        if (n.layers[i].params.empty()) continue;
        Seconds end = prev_src;
        for (const auto& t : n.layers[i].params) end = std::max(end, ready_of.at(t.name));
        const Seconds moved = (end - prev_src) * (group_f > 0 ? group_t / group_f : 1.0);
        for (const auto& t : n.layers[i].params) moved_ready[t.name] = prev_dst + moved;
        prev_src = end, prev_dst += moved;
        group_f = group_t = 0;
      }
      // What backward does after the last gradient is ready (and the parameterless layers
      // run last): moved by the whole backward's ratio.
      const Seconds tail = std::max(0.0, src.backward_s - prev_src) * bwd_t / bwd_f;
      c.backward_s = prev_dst + tail;
      Seconds run = 0;
      for (size_t k = 0; k < m.tensors.size(); ++k) {
        run = std::max(run, std::min(moved_ready.at(m.tensors[k].name), c.backward_s));
        c.ready_s[k] = run;
      }
    }
    if (e == 0) {
      out.backward_factor = c.backward_s / src.backward_s;
      out.compute_bound_layers = cb, out.memory_bound_layers = mb;
    }
    out.compute.push_back(std::move(c));
  }
  out.assumptions.push_back(
      "compute: the profile's measured compute on " + from.name + " (" + precision_name(o.from_precision) +
      ") moved to " + to.name + " (" + precision_name(o.to_precision) + ") layer by layer by the ratio of their "
      "rooflines (network " + n.spec + "; on " + to.name + " " + std::to_string(out.compute_bound_layers) +
      " layers compute-bound, " + std::to_string(out.memory_bound_layers) + " memory-bound): backward x" +
      move_num(out.backward_factor) + " at batch " + std::to_string(m.compute.empty() ? 0 : m.compute[0].batch_size) +
      "; optimizer by memory bandwidth (x" + move_num(from.memory_bytes_per_s / to.memory_bytes_per_s) +
      "), data time unchanged; an estimate");
  return out;
}

}  // namespace gcu::model::net
