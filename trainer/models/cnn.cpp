// trainer/models/cnn.cpp: the small CNN for Fashion-MNIST ("cnn").
//   conv1 3x3 channels->c1, ReLU, maxpool 2 -> conv2 3x3 c1->c2, ReLU, maxpool 2
//   -> fc1 (c2*(image/4)^2 -> hidden), ReLU -> fc2 (hidden -> classes)
// Defaults (c1=16, c2=32, hidden=128, 1x28x28, 10 classes): 206,922 parameters. No
// batch norm and no dropout, so data-parallel runs are exactly comparable with
// single-process SGD (no buffers to synchronise).
#include "trainer/models/builders.h"

#include <torch/torch.h>

namespace gcu::trainer::detail {
namespace {

class Cnn : public Net {
 public:
  Cnn(int64_t channels, int64_t image, int64_t c1, int64_t c2, int64_t hidden, int64_t classes)
      : channels_(channels), image_(image), classes_(classes) {
    conv1_ = register_module(
        "conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, c1, 3).padding(1)));
    conv2_ = register_module(
        "conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(c1, c2, 3).padding(1)));
    const int64_t side = image / 4;
    fc1_ = register_module("fc1", torch::nn::Linear(c2 * side * side, hidden));
    fc2_ = register_module("fc2", torch::nn::Linear(hidden, classes));
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    auto x = torch::max_pool2d(torch::relu(conv1_->forward(input)), 2);
    x = torch::max_pool2d(torch::relu(conv2_->forward(x)), 2);
    x = torch::relu(fc1_->forward(x.flatten(1)));
    return fc2_->forward(x);
  }

  std::vector<int64_t> input_shape(int64_t batch) const override {
    return {batch, channels_, image_, image_};
  }
  InputKind input_kind() const override { return InputKind::kImage; }
  int64_t num_classes() const override { return classes_; }

 private:
  int64_t channels_, image_, classes_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};

}  // namespace

std::shared_ptr<Net> make_cnn(const ModelArgs& args) {
  const int64_t classes = args.get_int("classes", 10, 2);
  const int64_t channels = args.get_int("channels", 1);
  const int64_t image = args.get_int("image", 28, 4);
  const int64_t c1 = args.get_int("c1", 16);
  const int64_t c2 = args.get_int("c2", 32);
  const int64_t hidden = args.get_int("hidden", 128);
  args.require_all_used("classes, channels, image, c1, c2, hidden");
  return std::make_shared<Cnn>(channels, image, c1, c2, hidden, classes);
}

}  // namespace gcu::trainer::detail
