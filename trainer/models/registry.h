// trainer/models/registry.h: the network interface of the trainer (gcu::trainer::Net)
// and the registry that builds one from a spec string such as "cnn",
// "resnet50:classes=10,channels=1,image=28" or "bert:layers=2,hidden=128,heads=2,seq=64".
//
// Models (see each .cpp for the architecture):
//   cnn                       small CNN for Fashion-MNIST (2 conv + 2 fc, ~207k params)
//   resnet18/resnet50/resnet101  torchvision-exact ResNets (BN buffers included)
//   vgg19, vgg19_bn           torchvision-exact VGG-19 (image >= 32)
//   bert                      BERT-style encoder, HF-BERT parameter layout; defaults =
//                             BERT-base (12 layers, hidden 768, 12 heads) with 2 labels
//   torchscript:FILE.pt|...   the user's own TorchScript model (scripted_spec.h, torchscript.cpp)
// Common spec keys for image models: classes, channels, image (height = width, pixels).
// BERT keys: layers, hidden, heads, intermediate, vocab, positions, type_vocab, classes
// (= number of labels), seq (input length), dropout.
#pragma once

#include "trainer/models/model_error.h"

#include <torch/nn/module.h>
#include <torch/types.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::trainer {

// One mini-batch: input (images NCHW float, or token ids int64 [batch, seq]) and target
// (class indices int64 [batch]).
struct Batch {
  torch::Tensor input;
  torch::Tensor target;
};

enum class InputKind { kImage, kTokens };

// One parameter tensor as registered (named_parameters order).
struct ParamInfo {
  std::string name;            // e.g. "layer1.0.conv1.weight"
  std::vector<int64_t> shape;  // e.g. {64, 64, 3, 3}
  int64_t numel = 0;
};

// A classification network: forward() maps a batch of inputs to logits [batch, classes].
class Net : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& input) = 0;

  // Shape of one input batch: {batch, C, H, W} for images, {batch, seq} for tokens.
  virtual std::vector<int64_t> input_shape(int64_t batch) const = 0;
  virtual InputKind input_kind() const = 0;
  virtual int64_t num_classes() const = 0;
  // Token models: the vocabulary size (ids are drawn in [0, vocab)); 0 for image models.
  virtual int64_t vocab_size() const { return 0; }
  // The element type of an image-like input (float32 for the built-in models).
  virtual torch::ScalarType input_dtype() const { return torch::kFloat32; }

  // The training loss of a forward's output against a batch's targets: cross-entropy
  // over [batch, classes] logits for the built-in models; a TorchScript model may name
  // another (scripted_spec.h).
  virtual torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target);
  // forward + loss on a batch.
  torch::Tensor loss_on(const Batch& batch) { return loss(forward(batch.input), batch.target); }

  // Random inputs of input_shape(batch) (standard normal images, or uniform token ids)
  // and uniform targets, drawn from a private generator seeded with `seed` on the CPU and
  // then moved to `device`: the same seed gives the same batch on every device. No I/O.
  Batch make_synthetic_batch(int64_t batch, const torch::Device& device,
                             uint64_t seed = 0) const;

  // Parameters in registration order (the order of named_parameters()); gradients
  // become ready roughly in the reverse of this order during backward.
  std::vector<ParamInfo> parameter_list() const;
  int64_t num_parameters() const;

  // The canonical spec this net was built from (e.g. "resnet50:channels=1,classes=10,image=28").
  const std::string& spec() const { return spec_; }
  void set_spec(std::string spec) { spec_ = std::move(spec); }

 private:
  std::string spec_;
};

// Builds a network from a spec "name[:key=value,...]". Throws ModelError for an unknown
// model (the message lists known_models()), an unknown key (listing the accepted keys)
// or a bad value. The net is on the CPU, in training mode, randomly initialised from
// the global torch seed (call torch::manual_seed first for reproducibility).
std::shared_ptr<Net> make_net(const std::string& spec);

// The trainable parameters of the TorchScript module in `path` (named_parameters order,
// a tied one once), without running it: what `gcu profile from-trace --network
// torchscript:FILE.pt` fills a trace's buckets with. Throws ModelError when it does not load.
std::vector<ParamInfo> scripted_parameter_list(const std::string& path);

// Model names accepted by make_net, e.g. {"bert", "cnn", "resnet18", ...}.
std::vector<std::string> known_models();

// The parameters in BACKWARD order (reverse registration order), as a JSON array of
// {"name": "...", "shape": [..], "numel": n}: the per-tensor layout a model profile uses.
nlohmann::json parameter_shapes_json(const Net& net);

}  // namespace gcu::trainer
