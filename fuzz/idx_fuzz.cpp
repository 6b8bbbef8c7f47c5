// fuzz/idx_fuzz.cpp: the Fashion-MNIST / IDX reader (trainer/data/fashion_mnist.cpp,
// load_fashion_mnist on the test split). Input byte 0 picks the file the rest becomes
// (even: t10k-images-idx3-ubyte, odd: t10k-labels-idx1-ubyte); the other test file is a
// valid one (all-zero images, labels 0..9) and the training files are the same size
// checks' business. Invariants: a bad file is a DataError naming the directory; a file
// that loads has 10000 images and labels in 0..9.
#include "fuzz/fuzz_util.h"
#include "trainer/data/dataset.h"

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {
constexpr int64_t kTest = 10000;

void write_be32(std::ofstream& f, uint32_t v) {
  const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  f.write(b, 4);
}
void write_valid_images(const fs::path& p, int64_t n) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  write_be32(f, 2051);
  write_be32(f, uint32_t(n));
  write_be32(f, 28);
  write_be32(f, 28);
  const std::string zeros(static_cast<size_t>(n) * 784, '\0');
  f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
}
void write_valid_labels(const fs::path& p, int64_t n) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  write_be32(f, 2049);
  write_be32(f, uint32_t(n));
  for (int64_t i = 0; i < n; ++i) f.put(char(i % 10));
}
fs::path dir() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("gcu-idx-fuzz." + std::to_string(::getpid()));
    fs::create_directories(p);
    // The training split is never read by load_fashion_mnist(false, ...), but must exist.
    std::ofstream(p / "train-images-idx3-ubyte").put('\0');
    std::ofstream(p / "train-labels-idx1-ubyte").put('\0');
    return p;
  }();
  return d;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  torch::set_num_threads(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const fs::path d = dir();
  const bool labels = (data[0] & 1) != 0;
  const fs::path fuzzed = d / (labels ? "t10k-labels-idx1-ubyte" : "t10k-images-idx3-ubyte");
  static bool images_valid = false, labels_valid = false;
  if (labels && !images_valid) {
    write_valid_images(d / "t10k-images-idx3-ubyte", kTest);
    images_valid = true;
  }
  if (!labels && !labels_valid) {
    write_valid_labels(d / "t10k-labels-idx1-ubyte", kTest);
    labels_valid = true;
  }
  {
    std::ofstream out(fuzzed, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  (labels ? labels_valid : images_valid) = false;
  try {
    const auto split = gcu::trainer::load_fashion_mnist(false, d);
    GCU_FUZZ_CHECK(split.size() == kTest, "wrong size " + std::to_string(split.size()));
    GCU_FUZZ_CHECK(split.images.size(0) == kTest, "images/labels disagree");
    GCU_FUZZ_CHECK(split.labels.min().item<int64_t>() >= 0 && split.labels.max().item<int64_t>() <= 9,
                   "labels outside 0..9 accepted (truncated or corrupt labels file?)");
  } catch (const gcu::trainer::DataError&) {
  }
  return 0;
}
