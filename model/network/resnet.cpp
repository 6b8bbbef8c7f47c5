// The ResNet family: "resnet:depth=18|34|50|101|152[,classes=1000,image=224]" with
// torchvision's parameter names, shapes and order (torchvision.models.resnet: BasicBlock for
// 18 and 34, Bottleneck v1.5, the stride on the 3x3 conv, for 50 and up; as data/archs.py).
// Layers: every Conv2d, BatchNorm2d and the fc, in execution order (a block's downsample runs
// after its main path, as in torchvision's forward). Work per layer: family.h.
#include "model/network/family.h"

#include <array>

namespace gcu::model::net::detail {
namespace resnet_impl {

struct Depth {
  int64_t depth;
  bool bottleneck;
  std::array<int64_t, 4> blocks;
};
constexpr std::array<Depth, 5> kDepths = {{{18, false, {2, 2, 2, 2}},
                                           {34, false, {3, 4, 6, 3}},
                                           {50, true, {3, 4, 6, 3}},
                                           {101, true, {3, 4, 23, 3}},
                                           {152, true, {3, 8, 36, 3}}}};
constexpr int64_t kMaxImage = 8192, kMaxClasses = 100000000;

// One BatchNorm2d after a conv: C channels over a side x side map.
void bn(Builder& b, const std::string& name, int64_t channels, int64_t side) {
  b.norm(name, channels, static_cast<double>(channels) * static_cast<double>(side) * static_cast<double>(side), true);
}

// One block of stage `stage`; returns the output side. `inplanes` is updated.
int64_t block(Builder& b, const std::string& p, bool bottleneck, int64_t& inplanes, int64_t planes, int64_t stride,
              int64_t side) {
  const int64_t expansion = bottleneck ? 4 : 1;
  const bool downsample = stride != 1 || inplanes != planes * expansion;
  int64_t s = side;
  if (bottleneck) {
    s = b.conv2d(p + "conv1", inplanes, planes, 1, 1, 0, s, false);
    bn(b, p + "bn1", planes, s);
    s = b.conv2d(p + "conv2", planes, planes, 3, stride, 1, s, false);
    bn(b, p + "bn2", planes, s);
    s = b.conv2d(p + "conv3", planes, planes * 4, 1, 1, 0, s, false);
    bn(b, p + "bn3", planes * 4, s);
  } else {
    s = b.conv2d(p + "conv1", inplanes, planes, 3, stride, 1, s, false);
    bn(b, p + "bn1", planes, s);
    s = b.conv2d(p + "conv2", planes, planes, 3, 1, 1, s, false);
    bn(b, p + "bn2", planes, s);
  }
  if (downsample) {
    const int64_t ds = b.conv2d(p + "downsample.0", inplanes, planes * expansion, 1, stride, 0, side, false);
    bn(b, p + "downsample.1", planes * expansion, ds);
  }
  inplanes = planes * expansion;
  return s;
}

}  // namespace resnet_impl

FamilyInfo resnet_family() {
  return {"resnet", "resnet:depth=18|34|50|101|152[,classes=1000,image=224]",
          "torchvision ResNet (BasicBlock for depth 18 and 34, Bottleneck v1.5 for 50, 101, 152). depth: "
          "required. classes: fc outputs (default 1000). image: side of the square RGB input in pixels "
          "(default 224); one sample is one image."};
}

Network build_resnet(const std::string& label, const KeyValues& kv) {
  using namespace resnet_impl;
  Args a(label, "resnet", kv, {"depth", "classes", "image"});
  const int64_t depth = a.integer("depth", std::nullopt, 18, 152);
  const Depth* d = nullptr;
  for (const auto& x : kDepths)
    if (x.depth == depth) d = &x;
  if (d == nullptr) a.fail("depth=" + std::to_string(depth) + " must be one of 18, 34, 50, 101, 152");
  const int64_t classes = a.integer("classes", 1000, 1, kMaxClasses);
  const int64_t image = a.integer("image", 224, 1, kMaxImage);

  Builder b(label);
  int64_t side = b.conv2d("conv1", 3, 64, 7, 2, 3, image, false);
  bn(b, "bn1", 64, side);
  side = (side + 2 * 1 - 3) / 2 + 1;  // maxpool 3x3, stride 2, padding 1
  int64_t inplanes = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int64_t i = 0; i < d->blocks[stage]; ++i) {
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(i) + ".";
      side = block(b, p, d->bottleneck, inplanes, planes, (stage > 0 && i == 0) ? 2 : 1, side);
    }
  }
  b.linear("fc", inplanes, classes, 1, true);  // after the global average pool

  Network n;
  n.spec = a.canonical();
  n.family = "resnet";
  n.description = "resnet: ResNet-" + std::to_string(depth) + " (torchvision), " + std::to_string(classes) +
                  " classes, " + std::to_string(image) + "x" + std::to_string(image) + " input";
  n.sample = "1 image 3x" + std::to_string(image) + "x" + std::to_string(image);
  n.batch_size = 32;  // torchvision's reference recipe, per GPU
  n.layers = b.take();
  n.notes = {"BatchNorm layers are norm layers; ReLU, max pool and average pool are not layers (no parameters, "
             "element-wise)"};
  return n;
}

}  // namespace gcu::model::net::detail
