// trainer/models/torchscript.cpp: the user's own TorchScript model as a trainer Net
// ("torchscript:FILE.pt|input=3x224x224,...", scripted_spec.h).
//
// The scripted module's parameters and buffers are registered, as the very same tensors,
// into a tree of plain nn::Modules that mirrors the script's submodules, so
// named_parameters() gives the script's names ("layer1.0.conv1.weight") in the script's
// order, and everything the trainer does to a Net (gradient hooks for the ready times,
// the optimizer, broadcast, .to(device), checkpoints) acts on the tensors the script's
// forward uses. A parameter shared under two names is registered once; a frozen one
// (requires_grad false) is a buffer: it is broadcast but never all-reduced.
//
// Loading runs one forward on a batch of 2 in eval mode: an input the model rejects is a
// ModelError at start-up, and the output's shape gives the classes of cross-entropy.
#include "trainer/models/builders.h"
#include "trainer/models/scripted_spec.h"

#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

namespace gcu::trainer::detail {
namespace {

torch::ScalarType dtype_of(const std::string& name) {
  if (name == "float64") return torch::kFloat64;
  if (name == "float16") return torch::kFloat16;
  if (name == "bfloat16") return torch::kBFloat16;
  if (name == "int64") return torch::kInt64;
  return torch::kFloat32;
}

// The first line of a LibTorch error (its messages carry a C++ backtrace after it).
std::string first_line(const std::string& text) {
  const auto nl = text.find('\n');
  std::string line = text.substr(0, nl);
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

// What a failed forward says: the TorchScript interpreter's first line only says that
// an operation failed; the reason is the last "...Error: reason" line of its traceback.
std::string reason_of(const std::string& text) {
  std::string reason;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    const auto at = line.find("Error: ");
    if (at != std::string::npos && line.size() > at + 7) reason = line.substr(at + 7);
    start = end + 1;
  }
  return first_line(reason.empty() ? text : reason);
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

class ScriptedNet : public Net {
 public:
  ScriptedNet(torch::jit::Module module, ScriptedSpec spec) : module_(std::move(module)), spec_(std::move(spec)) {
    adopt_tensors();
    if (parameters().empty()) {
      throw ModelError("torchscript:" + spec_.path + " has no trainable parameter (requires_grad): nothing to train");
    }
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    const torch::IValue out = module_.forward({input});
    if (out.isTensor()) return out.toTensor();
    if (out.isTuple()) {
      const auto tuple = out.toTuple();
      const auto& items = tuple->elements();
      if (!items.empty() && items[0].isTensor()) return items[0].toTensor();
    }
    throw ModelError("torchscript:" + spec_.path + "'s forward returns " + out.tagKind() +
                     ", not a tensor (or a tuple whose first element is one): script a wrapper that returns the "
                     "logits");
  }

  void train(bool on = true) override {
    Net::train(on);
    module_.train(on);
  }

  std::vector<int64_t> input_shape(int64_t batch) const override {
    std::vector<int64_t> shape{batch};
    shape.insert(shape.end(), spec_.input_shape.begin(), spec_.input_shape.end());
    return shape;
  }
  InputKind input_kind() const override { return spec_.dtype == "int64" ? InputKind::kTokens : InputKind::kImage; }
  int64_t num_classes() const override { return spec_.classes > 0 ? spec_.classes : 1; }
  int64_t vocab_size() const override { return spec_.vocab; }
  torch::ScalarType input_dtype() const override { return dtype_of(spec_.dtype); }

  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) override {
    if (spec_.loss == "mse") return torch::mse_loss(output.to(torch::kFloat32), torch::zeros_like(output, torch::kFloat32));
    if (spec_.loss == "mean") return output.to(torch::kFloat32).mean();
    return torch::nn::functional::cross_entropy(output.to(torch::kFloat32), target);
  }

  // One forward on a batch of 2 in eval mode, without gradients: the input is accepted and
  // the output fits the loss; sets the classes of cross-entropy from the output.
  void probe() {
    const auto shape = input_shape(2);
    std::string what = "an input of shape " + dims_text(shape) + " (" + spec_.dtype + ")";
    torch::Tensor out;
    {
      torch::NoGradGuard no_grad;
      const bool was_training = is_training();
      train(false);
      try {
        out = forward(make_synthetic_batch(2, torch::kCPU, 0).input);
      } catch (const ModelError&) {
        train(was_training);
        throw;
      } catch (const std::exception& e) {
        train(was_training);
        throw ModelError("torchscript:" + spec_.path + " rejects " + what + ": " + reason_of(e.what()) +
                         " (check --input-shape and --dtype)");
      }
      train(was_training);
    }
    if (spec_.loss != "cross_entropy") return;
    if (out.dim() != 2 || out.size(0) != 2) {
      throw ModelError("torchscript:" + spec_.path + " returns shape " + dims_text(out.sizes().vec()) + " for " + what +
                       ": cross_entropy needs [batch, classes] logits; name another loss (--loss mse or mean)");
    }
    if (out.size(1) < 2) {
      throw ModelError("torchscript:" + spec_.path + " returns " + std::to_string(out.size(1)) +
                       " output per sample: cross_entropy needs >= 2 classes; name another loss (--loss mse)");
    }
    if (spec_.classes > 0 && spec_.classes != out.size(1)) {
      throw ModelError("torchscript:" + spec_.path + " returns " + std::to_string(out.size(1)) + " classes, --classes is " +
                       std::to_string(spec_.classes));
    }
    spec_.classes = out.size(1);
  }

  const ScriptedSpec& scripted() const { return spec_; }

 private:
  // The nn::Module at a dotted submodule path ("layer1.0"), created on first use.
  torch::nn::Module& holder(const std::string& path) {
    if (path.empty()) return *this;
    const auto it = holders_.find(path);
    if (it != holders_.end()) return *it->second;
    const auto dot = path.rfind('.');
    torch::nn::Module& parent = holder(dot == std::string::npos ? "" : path.substr(0, dot));
    auto child = std::make_shared<torch::nn::Module>();
    parent.register_module(path.substr(dot == std::string::npos ? 0 : dot + 1), child);
    holders_[path] = child.get();
    return *child;
  }

  void adopt(const std::string& name, const torch::Tensor& t, bool parameter) {
    if (!seen_.insert(t.unsafeGetTensorImpl()).second) return;  // shared under another name
    const auto dot = name.rfind('.');
    torch::nn::Module& m = holder(dot == std::string::npos ? "" : name.substr(0, dot));
    const std::string leaf = dot == std::string::npos ? name : name.substr(dot + 1);
    if (parameter) {
      m.register_parameter(leaf, t, /*requires_grad=*/true);
    } else {
      m.register_buffer(leaf, t);
    }
  }

  void adopt_tensors() {
    for (const auto& p : module_.named_parameters(/*recurse=*/true)) adopt(p.name, p.value, p.value.requires_grad());
    for (const auto& b : module_.named_buffers(/*recurse=*/true)) adopt(b.name, b.value, false);
  }

  torch::jit::Module module_;
  ScriptedSpec spec_;
  std::map<std::string, torch::nn::Module*> holders_;
  std::set<const c10::TensorImpl*> seen_;
};

// The module in `path` on the CPU, in training mode; ModelError when it does not load.
torch::jit::Module load_module(const std::string& path) {
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ModelError("torchscript: cannot open '" + path + "'");
  }
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    throw ModelError("torchscript: '" + path + "' does not load as a TorchScript module: " + first_line(e.what()));
  } catch (const std::exception& e) {
    throw ModelError("torchscript: '" + path + "' does not load as a TorchScript module: " + first_line(e.what()));
  }
  if (!module.find_method("forward")) throw ModelError("torchscript: '" + path + "' has no forward method");
  module.train(true);
  return module;
}

}  // namespace

std::shared_ptr<Net> make_scripted(const std::string& text) {
  const ScriptedSpec spec = parse_scripted_spec(text);
  auto net = std::make_shared<ScriptedNet>(load_module(spec.path), spec);
  net->probe();
  net->set_spec(net->scripted().canonical());
  return net;
}

}  // namespace gcu::trainer::detail

namespace gcu::trainer {

std::vector<ParamInfo> scripted_parameter_list(const std::string& path) {
  ScriptedSpec spec;
  spec.path = path;
  return detail::ScriptedNet(detail::load_module(path), spec).parameter_list();
}

}  // namespace gcu::trainer
