// A two-layer network and made-up GPUs with round figures, for hand-derived roofline and
// move cases (roofline_test.cpp, move_test.cpp).
#pragma once

#include "model/hardware.h"
#include "model/network/network.h"

namespace gcu::model::testing {

// One rate for every precision, so that a test can pick any.
inline hw::Gpu round_gpu(const char* name, double flops, double memory_bytes_per_s) {
  hw::Gpu g;
  g.name = name;
  g.bf16_flops = g.fp16_flops = g.fp32_flops = flops;
  g.memory_bytes_per_s = memory_bytes_per_s;
  g.memory_bytes = 80e9;
  return g;
}

// Layer a: a linear layer, per sample 1 GFLOP forward, 2 GFLOP backward, 1e6 activation
// elements, 1e6 weight elements, 3 backward kernels. Layer b after it: a norm, 8e4
// backward FLOPs and 4e5 activation elements per sample, 2 kernels. Backward order of
// the tensors: b.bias, b.weight, a.weight.
inline net::Network two_layer_network() {
  net::Network n;
  n.spec = "two-layers";
  net::Layer a;
  a.name = "a";
  a.kind = net::LayerKind::Linear;
  a.params = {{"a.weight", {1000, 1000}}};
  a.forward_flops = 1e9;
  a.backward_flops = 2e9;
  a.activation_elements = 1e6;
  a.weight_elements = 1e6;
  a.kernels = 3;
  net::Layer b;
  b.name = "b";
  b.kind = net::LayerKind::Norm;
  b.params = {{"b.weight", {1000}}, {"b.bias", {1000}}};
  b.backward_flops = 8e4;
  b.activation_elements = 4e5;
  b.kernels = 2;
  n.layers = {a, b};
  return n;
}

}  // namespace gcu::model::testing
