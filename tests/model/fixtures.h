// Tiny profiles for the model tests and a BERT-base-like profile for tests and the
// benchmark (bench/model/). Numbers are chosen to make hand computation easy; they are
// inputs, not results.
#pragma once

#include "compressors/registry.h"
#include "model/profile.h"

#include <string>
#include <vector>

namespace gcu::model::testing {

// Whether the compressor registry knows `spec` (tests of schemes added later skip).
inline bool scheme_registered(const std::string& spec) {
  try {
    compress::make_compressor(spec);
    return true;
  } catch (const compress::CompressorError&) {
    return false;
  }
}

// A profile with `k` equal tensors of `elems` FP32 elements each (backward order),
// one compute entry, flat links, ring only, gamma 1.
inline Profile tiny_profile(int k, int64_t elems, int nodes, int gpus_per_node) {
  Profile p;
  p.cluster.nodes = nodes;
  p.cluster.gpus_per_node = gpus_per_node;
  p.cluster.intra = {100.0, 5e-6, {}};
  p.cluster.inter = {10.0, 5e-5, {}};
  p.cluster.algorithms = {"ring"};
  p.cluster.gamma = 1.0;
  p.cluster.overlap_contention = 1.0;
  p.model.name = "tiny";
  for (int i = 0; i < k; ++i) p.model.tensors.push_back({"t" + std::to_string(i), {elems}});
  p.model.parameters = p.model.numel();
  p.model.compute.push_back({32, 0.010, 0.020, 0.002, 0.0, {}});
  p.convergence.baseline_iterations = 1000;
  return p;
}

// BERT-base with a 2-class head: 201 tensors, 109,483,778 parameters, in backward order
// (classifier first, embeddings last).
inline std::vector<TensorInfo> bert_base_tensors() {
  std::vector<TensorInfo> fwd;
  const int64_t h = 768, f = 3072;
  fwd.push_back({"embeddings.word", {30522, h}});
  fwd.push_back({"embeddings.position", {512, h}});
  fwd.push_back({"embeddings.token_type", {2, h}});
  fwd.push_back({"embeddings.ln.weight", {h}});
  fwd.push_back({"embeddings.ln.bias", {h}});
  for (int l = 0; l < 12; ++l) {
    const std::string pre = "layer." + std::to_string(l) + ".";
    for (const char* m : {"query", "key", "value", "attn_out"}) {
      fwd.push_back({pre + m + ".weight", {h, h}});
      fwd.push_back({pre + m + ".bias", {h}});
    }
    fwd.push_back({pre + "attn_ln.weight", {h}});
    fwd.push_back({pre + "attn_ln.bias", {h}});
    fwd.push_back({pre + "intermediate.weight", {f, h}});
    fwd.push_back({pre + "intermediate.bias", {f}});
    fwd.push_back({pre + "output.weight", {h, f}});
    fwd.push_back({pre + "output.bias", {h}});
    fwd.push_back({pre + "out_ln.weight", {h}});
    fwd.push_back({pre + "out_ln.bias", {h}});
  }
  fwd.push_back({"pooler.weight", {h, h}});
  fwd.push_back({"pooler.bias", {h}});
  fwd.push_back({"classifier.weight", {2, h}});
  fwd.push_back({"classifier.bias", {2}});
  return {fwd.rbegin(), fwd.rend()};
}

// BERT-base on 24 nodes x 4 GPUs at 10 Gbps (the published V100 setup's shape); compute
// numbers are assumptions for timing only.
inline Profile bert_base_profile() {
  Profile p;
  p.cluster.nodes = 24;
  p.cluster.gpus_per_node = 4;
  p.cluster.intra = {100.0, 5e-6, {}};
  p.cluster.inter = {10.0, 5e-5, {}};
  p.cluster.algorithms = {"ring", "tree"};
  p.cluster.gamma = 1.07;
  p.cluster.overlap_contention = 1.3;
  p.model.name = "bert-base";
  p.model.tensors = bert_base_tensors();
  p.model.parameters = p.model.numel();
  p.model.compute.push_back({12, 0.070, 0.140, 0.012, 0.0, {}});
  p.model.compute.push_back({24, 0.130, 0.260, 0.012, 0.0, {}});
  p.compressors["fp16"] = {{0.0001, 2e-11}, {0.0001, 2e-11, 0}, 0};
  p.convergence.baseline_iterations = 10000;
  return p;
}

}  // namespace gcu::model::testing
