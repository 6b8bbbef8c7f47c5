// Internals of the network generators (model/network/*.cpp), not part of network.h: the
// key=value arguments of one spec (Args), the layer builder that attaches each leaf
// layer's work (Builder), and the functions the registry (registry.cpp) dispatches to.
//
// Work conventions (the note "layer costs"; reference: data/layer_costs.py, which
// generated the shipped profiles' ready times; all per sample, elements not bytes):
//   linear / conv2d  forward 2 x MACs; backward 2 x MACs x passes, passes = 2 (weight
//                    gradient + input gradient), 1 for the network's first layer (its input
//                    needs no gradient); activations = input x passes + output; weights
//                    read + gradient written = 2 x weight elements; kernels 1 + passes.
//   attention core   softmax(QK^T/sqrt(d)) V, no parameters: forward 2 x 2 x seq x seq x
//                    hidden (QK^T and AV, causal masking NOT halved), backward 2 x forward;
//                    activations 4 x heads x seq^2 + 6 x seq x hidden; 6 kernels.
//   norm (layer, rms, batch) forward 4 x elements, backward 8 x elements; activations
//                    4 x elements; no weight traffic counted (as layer_costs.py); 2 kernels.
//   embedding        a gather: no FLOPs; backward writes the dense table gradient:
//                    weight elements = the table, activations 2 x tokens x dim; 2 kernels.
// Element-wise activations (GELU, ReLU, SiLU x up), residual adds, pooling, dropout and
// the loss are not layers (as in layer_costs.py's LEAVES).
#pragma once

#include "model/network/network.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gcu::model::net::detail {

// Bounds that keep any spec (a fuzzer's included) from allocating without limit.
inline constexpr int64_t kMaxTensors = 1000000;
inline constexpr double kMaxParameters = 1e13;
inline constexpr size_t kMaxSpecBytes = 4096;

[[noreturn]] void fail(const std::string& label, const std::string& message);  // NetworkError "label: message"

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// "key=value,key=value" (spaces around keys and values ignored) -> pairs in the order
// given. Throws NetworkError (prefixed by `label`) for an item without '=', an empty key
// or value, or a key given twice.
KeyValues parse_key_values(const std::string& label, const std::string& text);

// The arguments of one family spec. Unknown keys are refused at construction (the message
// lists the family's keys); each getter checks its value and records it for canonical().
class Args {
 public:
  Args(std::string label, std::string family, const KeyValues& given, std::vector<std::string> known);
  bool has(const std::string& key) const;
  // An integer in [lo, hi]; `def` when the key is not given (nullopt: the key is required).
  int64_t integer(const std::string& key, std::optional<int64_t> def, int64_t lo, int64_t hi);
  bool flag(const std::string& key, bool def);  // true|false
  // One of `allowed`; `def` when not given.
  std::string choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed);
  [[noreturn]] void fail(const std::string& message) const { detail::fail(label_, message); }
  const std::string& label() const { return label_; }
  // "family:key=value,..." with every key as resolved, in the order resolved.
  std::string canonical() const;

 private:
  const std::string* given(const std::string& key) const;
  std::string label_, family_;
  KeyValues given_, resolved_;
};

// Appends leaf layers in forward execution order with their work (conventions above) and
// keeps the tensor and parameter counts under the bounds.
class Builder {
 public:
  explicit Builder(std::string label) : label_(std::move(label)) {}
  // y = x W^T + b on `tokens` rows. Weight [out, in] (nn.Linear) or [in, out] when
  // `conv1d` (HuggingFace's Conv1D, GPT-2). `tied`: the weight is that parameter, owned by
  // an earlier layer (listed in `uses`). `bias_name` overrides "<name>.bias".
  void linear(const std::string& name, int64_t in, int64_t out, double tokens, bool bias,
              bool conv1d = false, const std::string& tied = "", const std::string& bias_name = "");
  // Square kernel on a square input of side `in_hw`; returns the output side.
  int64_t conv2d(const std::string& name, int64_t in_ch, int64_t out_ch, int64_t kernel,
                 int64_t stride, int64_t pad, int64_t in_hw, bool bias);
  // weight [channels] (+ bias [channels]) over `elements` per sample.
  void norm(const std::string& name, int64_t channels, double elements, bool bias);
  void embedding(const std::string& name, int64_t rows, int64_t dim, double tokens);
  void attention(const std::string& name, int64_t seq, int64_t hidden, int64_t heads);
  // Any layer (tensor lists); checks the bounds.
  void add(Layer layer);
  int64_t parameters() const { return params_; }
  std::vector<Layer> take() { return std::move(layers_); }

 private:
  TensorInfo tensor(const std::string& name, std::vector<int64_t> shape);
  std::string label_;
  std::vector<Layer> layers_;
  int64_t params_ = 0;
  int64_t tensors_ = 0;
};

// A family: its help and its generator (the registry's table, registry.cpp).
FamilyInfo transformer_family();
Network build_transformer(const std::string& label, const KeyValues& kv);
FamilyInfo resnet_family();
Network build_resnet(const std::string& label, const KeyValues& kv);
FamilyInfo vgg_family();
Network build_vgg(const std::string& label, const KeyValues& kv);
FamilyInfo tensors_family();
Network read_tensor_list_file(const std::string& path);

struct Preset {
  std::string name, spec, source;
  std::string title;  // "GPT-2 (124M)": the description's start
};
const std::vector<Preset>& preset_table();
const Preset* find_preset(const std::string& name);

// Builds "family:kv" (the family's table entry); `label` prefixes errors.
Network build_family(const std::string& label, const std::string& family, const KeyValues& kv);
std::vector<std::string> family_names();

}  // namespace gcu::model::net::detail
