// trainer/models/resnet.cpp: torchvision-exact ResNet-18/50/101 (work in progress).
#include "trainer/models/builders.h"

namespace gcu::trainer::detail {
std::shared_ptr<Net> make_resnet(const ModelArgs& args, int depth) {
  throw ModelError(args.name() + ": not implemented yet (depth " + std::to_string(depth) + ")");
}
}  // namespace gcu::trainer::detail
