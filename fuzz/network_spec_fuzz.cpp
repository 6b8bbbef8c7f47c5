// fuzz/network_spec_fuzz.cpp: the network registry (model/network/network.h: family specs,
// presets with overrides) and the tensor-list reader (parse_tensor_list) on arbitrary
// input. An input whose first line is "#tensors" gives the rest to the tensor-list reader;
// any other input is a spec. Specs that would name a file ("tensors:PATH") are skipped: the
// target never touches files. Invariants: bad input is a NetworkError; a network stays
// within the bounds (1e13 parameters, 1e6 tensors), its tensors are its layers' parameters,
// its FLOPs are finite and >= 0, and its canonical spec builds the same network again.
#include "fuzz/fuzz_util.h"
#include "model/network/network.h"

#include <cmath>

namespace {

using gcu::model::net::Network;

void check_network(const Network& n, const std::string& input) {
  int64_t sum = 0;
  size_t tensors = 0;
  for (const auto& l : n.layers) {
    GCU_FUZZ_CHECK(std::isfinite(l.forward_flops) && l.forward_flops >= 0, input);
    GCU_FUZZ_CHECK(std::isfinite(l.backward_flops) && l.backward_flops >= 0, input);
    GCU_FUZZ_CHECK(std::isfinite(l.activation_elements) && l.activation_elements >= 0, input);
    for (const auto& t : l.params) {
      for (const int64_t d : t.shape) GCU_FUZZ_CHECK(d >= 1, input + "\n" + t.name);
      sum += t.numel();
      ++tensors;
    }
  }
  GCU_FUZZ_CHECK(sum == n.parameters() && sum <= int64_t{10000000000000}, input);
  GCU_FUZZ_CHECK(tensors == n.tensors_backward().size() && tensors <= 1000000, input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::model::net;
  const std::string text = gcu::fuzz::as_string(data, size);
  const auto [first, rest] = gcu::fuzz::split_first_line(text);
  if (first == "#tensors") {
    Network n;
    try {
      n = parse_tensor_list(rest, "fuzz.csv");
    } catch (const NetworkError&) {
      return 0;
    }
    check_network(n, text);
    GCU_FUZZ_CHECK(n.family == "tensors" && !n.layers.empty(), text);
    return 0;
  }
  const size_t colon = text.find(':');
  if (colon != std::string::npos && text.substr(0, colon).find("tensors") != std::string::npos) return 0;
  Network n;
  try {
    n = make_network(text);
  } catch (const NetworkError&) {
    return 0;
  }
  check_network(n, text);
  Network again;
  try {
    again = make_network(n.spec);
  } catch (const NetworkError& e) {
    GCU_FUZZ_CHECK(false, "the canonical spec " + n.spec + " does not build: " + e.what());
  }
  GCU_FUZZ_CHECK(again.spec == n.spec, n.spec + "\n" + again.spec);
  GCU_FUZZ_CHECK(again.parameters() == n.parameters() && again.layers.size() == n.layers.size(), n.spec);
  GCU_FUZZ_CHECK(again.forward_flops() == n.forward_flops(), n.spec);
  return 0;
}
