// fuzz/model_spec_fuzz.cpp: model specs of `gcu train --model` / `gcu calibrate --model`
// ("resnet18:classes=10,image=32", trainer/models/registry.cpp). The spec parser
// (detail::ModelArgs) and its typed getters run on every input; the real factory
// (make_net) runs when every value is small (< 64), so that the fuzzer does not spend
// its time allocating the parameters of huge networks a user could legitimately ask for.
// Invariants: bad specs are ModelError (or c10::Error from LibTorch's own shape checks);
// the canonical spec of a built net builds again into the same canonical spec. TorchScript
// specs ("torchscript:FILE|input=..") are parsed, never loaded.
#include "fuzz/fuzz_util.h"
#include "trainer/models/builders.h"
#include "trainer/models/scripted_spec.h"

#include <c10/util/Exception.h>
#include <torch/torch.h>

#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  torch::set_num_threads(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::trainer;
  const std::string spec = gcu::fuzz::as_string(data, size);
  // A TorchScript spec: parsed and composed only (a fuzzer never loads a file); its
  // canonical form parses back into itself.
  if (is_scripted_spec(spec)) {
    ScriptedSpec s;
    try {
      s = parse_scripted_spec(spec);
    } catch (const ModelError&) {
      return 0;
    }
    const std::string canonical = s.canonical();
    try {
      GCU_FUZZ_CHECK(parse_scripted_spec(canonical).canonical() == canonical,
                     "torchscript canonical spec not stable: " + canonical);
    } catch (const ModelError& e) {
      GCU_FUZZ_CHECK(false, "torchscript canonical spec '" + canonical + "' does not parse: " + e.what());
    }
    return 0;
  }
  gcu::trainer::detail::ModelArgs args;
  try {
    args = gcu::trainer::detail::ModelArgs::parse(spec);
  } catch (const ModelError&) {
    return 0;
  }
  // The getters on every key the input names, in the ways the factories use them.
  bool small = true;
  const auto colon = spec.find(':');
  if (colon != std::string::npos) {
    size_t pos = colon + 1;
    while (pos <= spec.size()) {
      const size_t comma = std::min(spec.find(',', pos), spec.size());
      const std::string item = spec.substr(pos, comma - pos);
      const std::string key = item.substr(0, item.find('='));
      try {
        const int64_t v = args.get_int(key, 1, 1);
        small = small && v < 64;
      } catch (const ModelError&) {
        small = false;
        try {
          (void)args.get_double(key, 0.5, 0.0, 1.0);
        } catch (const ModelError&) {
        }
      }
      pos = comma + 1;
    }
  }
  (void)args.canonical();
  try {
    args.require_all_used("fuzz");
  } catch (const ModelError&) {
  }
  // Build only nets that stay small whatever the defaults: the CNN, and BERT with every
  // size given (its defaults = BERT-base); ResNets and VGG have >= 11 M parameters at any size.
  const auto given = [&](const char* k) { return spec.find(std::string(k) + "=") != std::string::npos; };
  const std::string& name = args.name();
  const bool cheap = name == "cnn" ||
                     (name == "bert" && given("layers") && given("hidden") && given("intermediate") && given("vocab") &&
                      given("positions"));
  if (!small || !cheap) return 0;
  std::shared_ptr<Net> net;
  try {
    net = make_net(spec);
  } catch (const ModelError&) {
    return 0;
  } catch (const c10::Error&) {
    return 0;
  }
  try {
    const auto again = make_net(net->spec());
    GCU_FUZZ_CHECK(again->spec() == net->spec(),
                   "canonical spec not stable: " + net->spec() + " -> " + again->spec());
  } catch (const ModelError& e) {
    GCU_FUZZ_CHECK(false, "canonical spec '" + net->spec() + "' does not build: " + e.what());
  }
  return 0;
}
