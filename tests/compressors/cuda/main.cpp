// Entry point of compressors_cuda_tests: registers the CUDA schemes explicitly (they are
// not part of gcu_compressors: compressors/cuda/register_cuda.h), then runs the tests.
#include "compressors/cuda/register_cuda.h"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  gcu::compress::cuda::register_cuda();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
