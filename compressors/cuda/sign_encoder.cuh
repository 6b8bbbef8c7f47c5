// The sign encoder shared by signsgd.cu and efsignsgd.cu: sign bits of x packed into
// U64 words (compressors/bitpack.h layout) + one scale word (mean |x|, NaN when not
// finite), on the thread's current stream. C++17; .cu files only.
#pragma once

#include "device_array.h"

#include <cstdint>

namespace gcu::cuda {

class SignEncoder {
 public:
  // Words of x[0, n): (n + 63) / 64 sign words then the scale word; device pointer owned
  // by the encoder (valid until the next encode()).
  uint64_t* encode(const float* x, int64_t n);
  uint64_t* words() const { return send_.get(); }

 private:
  DeviceArray<uint64_t> send_;
  DeviceArray<double> partial_, sum_;
  DeviceArray<unsigned char> temp_;
};

}  // namespace gcu::cuda
