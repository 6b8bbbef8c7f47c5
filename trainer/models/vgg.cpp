// trainer/models/vgg.cpp: torchvision-exact VGG-19 (work in progress).
#include "trainer/models/builders.h"

namespace gcu::trainer::detail {
std::shared_ptr<Net> make_vgg19(const ModelArgs& args, bool) {
  throw ModelError(args.name() + ": not implemented yet");
}
}  // namespace gcu::trainer::detail
