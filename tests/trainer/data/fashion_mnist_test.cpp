// Tests for trainer/data/fashion_mnist.cpp: unpacking, reading, normalisation, errors.
#include "data/test_data.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

namespace gcu::trainer {
namespace {

fs::path fresh_temp_dir(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() /
                       ("gcu-data-test-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(FashionMnist, SplitsHaveTheRightSizesAndLabels) {
  GCU_REQUIRE_FASHION_MNIST();
  const auto& train = testing::test_split(true);
  const auto& test = testing::test_split(false);
  EXPECT_EQ(train.size(), 60000);
  EXPECT_EQ(test.size(), 10000);
  EXPECT_EQ(train.images.sizes().vec(), (std::vector<int64_t>{60000, 1, 28, 28}));
  EXPECT_EQ(train.images.scalar_type(), torch::kUInt8);
  EXPECT_EQ(test.labels.scalar_type(), torch::kInt64);
  for (const auto* split : {&train, &test}) {
    EXPECT_EQ(split->labels.min().item<int64_t>(), 0);
    EXPECT_EQ(split->labels.max().item<int64_t>(), 9);
    // Fashion-MNIST is balanced: 6000 / 1000 images per class.
    const auto counts = torch::bincount(split->labels);
    EXPECT_EQ(counts.min().item<int64_t>(), split->size() / 10);
    EXPECT_EQ(counts.max().item<int64_t>(), split->size() / 10);
  }
}

TEST(FashionMnist, NormalisationCentresTheTrainingSet) {
  GCU_REQUIRE_FASHION_MNIST();
  const auto x = normalize_images(testing::test_split(true).images.slice(0, 0, 10000));
  EXPECT_NEAR(x.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(x.std().item<double>(), 1.0, 0.02);
}

TEST(FashionMnist, PaddingKeepsTheImageCentred) {
  const auto pixels = torch::full({2, 1, 28, 28}, 255, torch::kUInt8);
  const auto x = normalize_images(pixels, 32);
  EXPECT_EQ(x.sizes().vec(), (std::vector<int64_t>{2, 1, 32, 32}));
  const double background = (0.0 - kFashionMnistMean) / kFashionMnistStd;
  const double white = (1.0 - kFashionMnistMean) / kFashionMnistStd;
  EXPECT_NEAR(x[0][0][0][0].item<double>(), background, 1e-5);
  EXPECT_NEAR(x[0][0][2][2].item<double>(), white, 1e-5);
  EXPECT_NEAR(x[0][0][29][29].item<double>(), white, 1e-5);
  EXPECT_NEAR(x[0][0][30][30].item<double>(), background, 1e-5);
  EXPECT_THROW(normalize_images(pixels, 27), DataError);
}

TEST(FashionMnist, MissingPackageGivesInstallHint) {
  const auto cache = fresh_temp_dir("missing");
  try {
    prepare_fashion_mnist("/nonexistent/fashion-mnist", cache);
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Fashion-MNIST not found at /nonexistent/fashion-mnist"),
              std::string::npos) << msg;
    EXPECT_NE(msg.find("apt-get install dataset-fashion-mnist"), std::string::npos) << msg;
  }
  EXPECT_THROW(load_fashion_mnist(true, cache), DataError);
  fs::remove_all(cache);
}

TEST(FashionMnist, UnpacksIntoAnEmptyCache) {
  GCU_REQUIRE_FASHION_MNIST();
  if (!fs::exists(fashion_mnist_package_dir() / "t10k-labels-idx1-ubyte.gz")) {
    GTEST_SKIP() << "package files not present (only a prepared cache)";
  }
  const auto cache = fresh_temp_dir("unpack");
  const auto dir = prepare_fashion_mnist(fashion_mnist_package_dir(), cache);
  EXPECT_EQ(dir, cache);
  EXPECT_EQ(fs::file_size(cache / "t10k-labels-idx1-ubyte"), 10008u);  // 8-byte header
  EXPECT_EQ(fs::file_size(cache / "train-images-idx3-ubyte"), 16u + 60000u * 784u);
  for (const auto& entry : fs::directory_iterator(cache)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
  // Identical to what the shared test cache holds.
  const auto test = load_fashion_mnist(false, cache);
  EXPECT_TRUE(torch::equal(test.labels, testing::test_split(false).labels));
  fs::remove_all(cache);
}

TEST(FashionMnist, CacheDirectoryFollowsEnvironment) {
  const char* old = std::getenv("GCU_DATA_DIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("GCU_DATA_DIR", "/some/where", 1);
  EXPECT_EQ(fashion_mnist_cache_dir(), fs::path("/some/where/fashion-mnist"));
  if (old != nullptr) {
    ::setenv("GCU_DATA_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("GCU_DATA_DIR");
  }
}

}  // namespace
}  // namespace gcu::trainer
