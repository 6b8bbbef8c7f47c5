// tests/trainer/data/test_data.h: Fashion-MNIST for the trainer tests, unpacked once
// into the build tree (GCU_TEST_DATA_CACHE) and loaded once per process.
#pragma once

#include "trainer/data/dataset.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gcu::trainer::testing {

inline bool fashion_mnist_installed() {
  return std::filesystem::exists(fashion_mnist_package_dir() / "train-images-idx3-ubyte.gz") ||
         std::filesystem::exists(std::filesystem::path(GCU_TEST_DATA_CACHE) /
                                 "train-images-idx3-ubyte");
}

inline const FashionMnist& test_split(bool train) {
  static const auto dir =
      prepare_fashion_mnist(fashion_mnist_package_dir(), GCU_TEST_DATA_CACHE);
  static const FashionMnist train_set = load_fashion_mnist(true, dir);
  static const FashionMnist test_set = load_fashion_mnist(false, dir);
  return train ? train_set : test_set;
}

}  // namespace gcu::trainer::testing

// Skips the test with a message when dataset-fashion-mnist is not installed.
#define GCU_REQUIRE_FASHION_MNIST()                                                  \
  do {                                                                               \
    if (!::gcu::trainer::testing::fashion_mnist_installed()) {                       \
      GTEST_SKIP() << "dataset-fashion-mnist is not installed "                      \
                      "(apt-get install dataset-fashion-mnist)";                     \
    }                                                                                \
  } while (0)
