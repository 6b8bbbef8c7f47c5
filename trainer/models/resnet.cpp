// trainer/models/resnet.cpp: ResNet-18/50/101 exactly as torchvision.models builds them
// (same modules, parameter names, order and initialisation; zero_init_residual=False).
// With 1000 classes and 3 channels: ResNet-18 11,689,512, ResNet-50 25,557,032 and
// ResNet-101 44,549,160 parameters. `channels` and `classes` change only conv1 and fc,
// so "resnet18:channels=1,classes=10,image=28" runs on Fashion-MNIST (the stem's
// stride 2 and max-pool shrink 28x28 to 7x7; layer4 sees 1x1). Batch norm running
// statistics are buffers, not parameters.
#include "trainer/models/builders.h"

#include <torch/torch.h>

namespace gcu::trainer::detail {
namespace {

namespace nn = torch::nn;

nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return nn::Conv2d(
      nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

// The residual blocks share this interface so one list can hold either kind.
class Block : public nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
};

nn::Sequential make_downsample(int64_t in, int64_t out, int64_t stride) {
  return nn::Sequential(conv(in, out, 1, stride), nn::BatchNorm2d(out));
}

// torchvision BasicBlock (expansion 1): conv3x3-bn-relu-conv3x3-bn + shortcut.
class BasicBlock : public Block {
 public:
  static constexpr int64_t kExpansion = 1;
  BasicBlock(int64_t in, int64_t planes, int64_t stride) {
    conv1_ = register_module("conv1", conv(in, planes, 3, stride));
    bn1_ = register_module("bn1", nn::BatchNorm2d(planes));
    conv2_ = register_module("conv2", conv(planes, planes, 3, 1));
    bn2_ = register_module("bn2", nn::BatchNorm2d(planes));
    if (stride != 1 || in != planes) {
      downsample_ = register_module("downsample", make_downsample(in, planes, stride));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) override {
    auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = bn2_->forward(conv2_->forward(out));
    const auto identity = downsample_ ? downsample_->forward(x) : x;
    return torch::relu(out + identity);
  }

 private:
  nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  nn::Sequential downsample_{nullptr};
};

// torchvision Bottleneck (ResNet v1.5, stride on the 3x3 conv; expansion 4).
class Bottleneck : public Block {
 public:
  static constexpr int64_t kExpansion = 4;
  Bottleneck(int64_t in, int64_t planes, int64_t stride) {
    conv1_ = register_module("conv1", conv(in, planes, 1, 1));
    bn1_ = register_module("bn1", nn::BatchNorm2d(planes));
    conv2_ = register_module("conv2", conv(planes, planes, 3, stride));
    bn2_ = register_module("bn2", nn::BatchNorm2d(planes));
    conv3_ = register_module("conv3", conv(planes, planes * kExpansion, 1, 1));
    bn3_ = register_module("bn3", nn::BatchNorm2d(planes * kExpansion));
    if (stride != 1 || in != planes * kExpansion) {
      downsample_ =
          register_module("downsample", make_downsample(in, planes * kExpansion, stride));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) override {
    auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = torch::relu(bn2_->forward(conv2_->forward(out)));
    out = bn3_->forward(conv3_->forward(out));
    const auto identity = downsample_ ? downsample_->forward(x) : x;
    return torch::relu(out + identity);
  }

 private:
  nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  nn::Sequential downsample_{nullptr};
};

class ResNet : public Net {
 public:
  ResNet(bool bottleneck, const std::array<int64_t, 4>& layers, int64_t channels,
         int64_t image, int64_t classes)
      : channels_(channels), image_(image), classes_(classes) {
    conv1_ = register_module(
        "conv1", nn::Conv2d(nn::Conv2dOptions(channels, 64, 7).stride(2).padding(3).bias(false)));
    bn1_ = register_module("bn1", nn::BatchNorm2d(64));
    const int64_t expansion = bottleneck ? Bottleneck::kExpansion : BasicBlock::kExpansion;
    int64_t in = 64;
    for (int stage = 0; stage < 4; ++stage) {
      const int64_t planes = int64_t{64} << stage;
      auto list = nn::ModuleList();
      for (int64_t i = 0; i < layers[stage]; ++i) {
        const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
        std::shared_ptr<Block> block;
        if (bottleneck) {
          block = std::make_shared<Bottleneck>(in, planes, stride);
        } else {
          block = std::make_shared<BasicBlock>(in, planes, stride);
        }
        list->push_back(block);
        blocks_.push_back(block);
        in = planes * expansion;
      }
      register_module("layer" + std::to_string(stage + 1), list);
    }
    fc_ = register_module("fc", nn::Linear(512 * expansion, classes));
    init_weights();
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    auto x = torch::relu(bn1_->forward(conv1_->forward(input)));
    x = torch::max_pool2d(x, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
    for (const auto& block : blocks_) x = block->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_->forward(x);
  }

  std::vector<int64_t> input_shape(int64_t batch) const override {
    return {batch, channels_, image_, image_};
  }
  InputKind input_kind() const override { return InputKind::kImage; }
  int64_t num_classes() const override { return classes_; }

 private:
  // torchvision: kaiming_normal_(fan_out, relu) for convs, BN weight 1 and bias 0; the
  // Linear keeps its default (kaiming-uniform) initialisation.
  void init_weights() {
    torch::NoGradGuard no_grad;
    for (auto& module : modules(/*include_self=*/false)) {
      if (auto* c = module->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
      } else if (auto* b = module->as<nn::BatchNorm2d>()) {
        nn::init::ones_(b->weight);
        nn::init::zeros_(b->bias);
      }
    }
  }

  int64_t channels_, image_, classes_;
  nn::Conv2d conv1_{nullptr};
  nn::BatchNorm2d bn1_{nullptr};
  std::vector<std::shared_ptr<Block>> blocks_;
  nn::Linear fc_{nullptr};
};

}  // namespace

std::shared_ptr<Net> make_resnet(const ModelArgs& args, int depth) {
  const int64_t classes = args.get_int("classes", 1000, 2);
  const int64_t channels = args.get_int("channels", 3);
  const int64_t image = args.get_int("image", 224, 8);
  args.require_all_used("classes, channels, image");
  std::array<int64_t, 4> layers{};
  switch (depth) {
    case 18: layers = {2, 2, 2, 2}; break;
    case 50: layers = {3, 4, 6, 3}; break;
    case 101: layers = {3, 4, 23, 3}; break;
    default:
      throw ModelError("resnet: unsupported depth " + std::to_string(depth) + " (18, 50 or 101)");
  }
  return std::make_shared<ResNet>(/*bottleneck=*/depth >= 50, layers, channels, image, classes);
}

}  // namespace gcu::trainer::detail
