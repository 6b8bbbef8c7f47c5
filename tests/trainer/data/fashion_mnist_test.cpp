// Tests for trainer/data/fashion_mnist.cpp: unpacking, reading, normalisation, errors.
#include "data/test_data.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
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

// IDX files of the right format but the wrong length, or with labels outside 0..9:
// LibTorch's reader would return uninitialised pixels and labels (found by fuzz/idx_fuzz).
TEST(FashionMnist, TruncatedOrCorruptIdxFilesAreRejected) {
  const auto dir = fresh_temp_dir("idx");
  fs::create_directories(dir);
  auto be32 = [](std::ofstream& f, uint32_t v) {
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    f.write(b, 4);
  };
  {
    std::ofstream f(dir / "t10k-images-idx3-ubyte", std::ios::binary);
    for (uint32_t v : {2051u, 10000u, 28u, 28u}) be32(f, v);
    const std::string zeros(10000 * 784, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte"}) std::ofstream(dir / name) << "x";
  auto write_labels = [&](int64_t n, char bad) {
    std::ofstream f(dir / "t10k-labels-idx1-ubyte", std::ios::binary | std::ios::trunc);
    be32(f, 2049);
    be32(f, 10000);
    for (int64_t i = 0; i < n; ++i) f.put(i == 77 ? bad : char(i % 10));
  };
  auto expect_error = [&](const std::string& needle) {
    try {
      load_fashion_mnist(false, dir);
      ADD_FAILURE() << "accepted; expected an error containing " << needle;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  write_labels(10000, 7);
  EXPECT_EQ(load_fashion_mnist(false, dir).size(), 10000);
  write_labels(5000, 7);
  expect_error("truncated");
  write_labels(10000, 11);
  expect_error("labels outside 0..9");
  fs::resize_file(dir / "t10k-images-idx3-ubyte", 16 + 100);
  write_labels(10000, 7);
  expect_error("t10k-images-idx3-ubyte has 116 bytes");
  fs::remove_all(dir);
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
