// The VGG family: "vgg:depth=11|13|16|19[,bn=false,classes=1000,image=224]" with
// torchvision's names (torchvision.models.vgg): features.IDX counts every module of the
// features Sequential (Conv2d, [BatchNorm2d,] ReLU, MaxPool2d), classifier.0/3/6 the three
// Linear layers (ReLU and Dropout in between). The adaptive average pool makes the first
// classifier input 512 x 7 x 7 at any image size. Work per layer: family.h.
#include "model/network/family.h"

#include <array>
#include <vector>

namespace gcu::model::net::detail {
namespace vgg_impl {

constexpr int64_t kPool = 0;  // 'M' in torchvision's cfgs
struct Config {
  int64_t depth;
  std::vector<int64_t> cfg;
};
const std::array<Config, 4>& configs() {
  static const std::array<Config, 4> c = {{
      {11, {64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool}},
      {13, {64, 64, kPool, 128, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool}},
      {16, {64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool, 512, 512, 512, kPool, 512, 512, 512, kPool}},
      {19, {64, 64, kPool, 128, 128, kPool, 256, 256, 256, 256, kPool, 512, 512, 512, 512, kPool, 512, 512, 512,
            512, kPool}},
  }};
  return c;
}
constexpr int64_t kMinImage = 32, kMaxImage = 8192, kMaxClasses = 100000000;

}  // namespace vgg_impl

FamilyInfo vgg_family() {
  return {"vgg", "vgg:depth=11|13|16|19[,bn=false,classes=1000,image=224]",
          "torchvision VGG (configurations A, B, D, E). depth: required. bn: BatchNorm after each conv "
          "(vgg16_bn; default false). classes: last classifier outputs (default 1000). image: side of the "
          "square RGB input, at least 32 (default 224); one sample is one image."};
}

Network build_vgg(const std::string& label, const KeyValues& kv) {
  using namespace vgg_impl;
  Args a(label, "vgg", kv, {"depth", "bn", "classes", "image"});
  const int64_t depth = a.integer("depth", std::nullopt, 11, 19);
  const Config* cfg = nullptr;
  for (const auto& c : configs())
    if (c.depth == depth) cfg = &c;
  if (cfg == nullptr) a.fail("depth=" + std::to_string(depth) + " must be one of 11, 13, 16, 19");
  const bool batch_norm = a.flag("bn", false);
  const int64_t classes = a.integer("classes", 1000, 1, kMaxClasses);
  const int64_t image = a.integer("image", 224, kMinImage, kMaxImage);

  Builder b(label);
  int64_t idx = 0, channels = 3, side = image;
  for (const int64_t v : cfg->cfg) {
    if (v == kPool) {
      side /= 2;  // MaxPool2d(2, 2)
      ++idx;
      continue;
    }
    const std::string conv = "features." + std::to_string(idx);
    side = b.conv2d(conv, channels, v, 3, 1, 1, side, true);
    ++idx;
    if (batch_norm) {
      b.norm("features." + std::to_string(idx), v,
             static_cast<double>(v) * static_cast<double>(side) * static_cast<double>(side), true);
      ++idx;
    }
    ++idx;  // ReLU
    channels = v;
  }
  b.linear("classifier.0", 512 * 7 * 7, 4096, 1, true);
  b.linear("classifier.3", 4096, 4096, 1, true);
  b.linear("classifier.6", 4096, classes, 1, true);

  Network n;
  n.spec = a.canonical();
  n.family = "vgg";
  n.description = "vgg: VGG-" + std::to_string(depth) + (batch_norm ? " with batch norm" : "") + " (torchvision), " +
                  std::to_string(classes) + " classes, " + std::to_string(image) + "x" + std::to_string(image) +
                  " input";
  n.sample = "1 image 3x" + std::to_string(image) + "x" + std::to_string(image);
  n.batch_size = 32;  // torchvision's reference recipe, per GPU
  n.layers = b.take();
  n.notes = {"ReLU, max pool, the adaptive average pool and dropout are not layers (no parameters)"};
  return n;
}

}  // namespace gcu::model::net::detail
