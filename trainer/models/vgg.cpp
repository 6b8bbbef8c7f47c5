// trainer/models/vgg.cpp: VGG-19 and VGG-19-BN exactly as torchvision.models builds
// them ("vgg19", "vgg19_bn"): features (16 conv3x3 + ReLU, 5 max-pools), adaptive
// average pool to 7x7, classifier 25088-4096-4096-classes with ReLU and dropout 0.5.
// With 1000 classes and 3 channels: 143,667,240 parameters (vgg19_bn: 143,678,248).
// The five pools need image >= 32 (pad Fashion-MNIST to 32: LoaderOptions::image).
#include "trainer/models/builders.h"

#include <torch/torch.h>

namespace gcu::trainer::detail {
namespace {

namespace nn = torch::nn;

class Vgg : public Net {
 public:
  Vgg(bool batch_norm, int64_t channels, int64_t image, int64_t classes, double dropout)
      : channels_(channels), image_(image), classes_(classes) {
    // torchvision cfg "E"; 0 = max-pool.
    const int64_t cfg[] = {64,  64,  0,   128, 128, 0,   256, 256, 256, 256, 0,
                           512, 512, 512, 512, 0,   512, 512, 512, 512, 0};
    features_ = nn::Sequential();
    int64_t in = channels;
    for (const int64_t out : cfg) {
      if (out == 0) {
        features_->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
        continue;
      }
      features_->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1)));
      if (batch_norm) features_->push_back(nn::BatchNorm2d(out));
      features_->push_back(nn::ReLU(nn::ReLUOptions(true)));
      in = out;
    }
    register_module("features", features_);
    classifier_ = register_module(
        "classifier",
        nn::Sequential(nn::Linear(512 * 7 * 7, 4096), nn::ReLU(nn::ReLUOptions(true)),
                       nn::Dropout(dropout), nn::Linear(4096, 4096),
                       nn::ReLU(nn::ReLUOptions(true)), nn::Dropout(dropout),
                       nn::Linear(4096, classes)));
    init_weights();
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    auto x = features_->forward(input);
    x = torch::adaptive_avg_pool2d(x, {7, 7}).flatten(1);
    return classifier_->forward(x);
  }

  std::vector<int64_t> input_shape(int64_t batch) const override {
    return {batch, channels_, image_, image_};
  }
  InputKind input_kind() const override { return InputKind::kImage; }
  int64_t num_classes() const override { return classes_; }

 private:
  // torchvision: convs kaiming_normal_(fan_out, relu) with zero bias, BN 1/0, linears
  // normal(0, 0.01) with zero bias.
  void init_weights() {
    torch::NoGradGuard no_grad;
    for (auto& module : modules(/*include_self=*/false)) {
      if (auto* c = module->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
        nn::init::zeros_(c->bias);
      } else if (auto* b = module->as<nn::BatchNorm2d>()) {
        nn::init::ones_(b->weight);
        nn::init::zeros_(b->bias);
      } else if (auto* l = module->as<nn::Linear>()) {
        nn::init::normal_(l->weight, 0.0, 0.01);
        nn::init::zeros_(l->bias);
      }
    }
  }

  int64_t channels_, image_, classes_;
  nn::Sequential features_{nullptr}, classifier_{nullptr};
};

}  // namespace

std::shared_ptr<Net> make_vgg19(const ModelArgs& args, bool batch_norm) {
  const int64_t classes = args.get_int("classes", 1000, 2);
  const int64_t channels = args.get_int("channels", 3);
  const int64_t image = args.get_int("image", 224, 32);
  const double dropout = args.get_double("dropout", 0.5, 0.0, 1.0);
  args.require_all_used("classes, channels, image (>= 32), dropout");
  return std::make_shared<Vgg>(batch_norm, channels, image, classes, dropout);
}

}  // namespace gcu::trainer::detail
