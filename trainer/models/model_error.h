// trainer/models/model_error.h: the error of a bad model spec (torch-free, so spec parsing
// such as scripted_spec.h needs no LibTorch).
#pragma once

#include <stdexcept>

namespace gcu::trainer {

// Bad model spec (unknown model, unknown key, bad value, a TorchScript file that does not
// load or rejects its input): the message names the value.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gcu::trainer
