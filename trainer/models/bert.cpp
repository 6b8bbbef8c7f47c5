// trainer/models/bert.cpp: BERT-style encoder (work in progress).
#include "trainer/models/builders.h"

namespace gcu::trainer::detail {
std::shared_ptr<Net> make_bert(const ModelArgs& args) {
  throw ModelError(args.name() + ": not implemented yet");
}
}  // namespace gcu::trainer::detail
