// trainer/data/fashion_mnist.cpp: finding, unpacking and reading Fashion-MNIST.
// The Debian package dataset-fashion-mnist ships the four IDX files gzipped under
// /usr/share/datasets/fashion-mnist; they are unpacked once into a cache directory with
// the names torch::data::datasets::MNIST reads, then read with that reader.
#include "trainer/data/dataset.h"
#include "util/output_file.h"

#include <torch/torch.h>
#include <zlib.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <random>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace gcu::trainer {
namespace {

constexpr std::array<const char*, 4> kFiles = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte"};

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::string not_found_message(const fs::path& package_dir, const fs::path& cache_dir,
                              const std::string& file) {
  return "Fashion-MNIST not found at " + package_dir.string() + " (missing " + file +
         ".gz) nor unpacked in " + cache_dir.string() +
         ": install it with apt-get install dataset-fashion-mnist (or set "
         "GCU_FASHION_MNIST_SRC to the directory holding the .gz files)";
}

// Gunzips `source` to `target` under the output-file policy (util/output_file.h): a
// temporary file in the target's directory, renamed into place (atomic: concurrent ranks
// never see a partial file), removed on errors and signals.
void gunzip_to(const fs::path& source, const fs::path& target) {
  gzFile in = gzopen(source.c_str(), "rb");
  if (in == nullptr) throw DataError("cannot open " + source.string() + " for reading");
  try {
    util::AtomicFile out(target.string());
    std::vector<char> buffer(1 << 20);
    for (;;) {
      const int n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()));
      if (n < 0) {
        int code = 0;
        throw DataError("corrupt gzip file " + source.string() + ": " + gzerror(in, &code));
      }
      if (n == 0) break;
      out.write(std::string_view(buffer.data(), static_cast<size_t>(n)));
    }
    out.commit();
  } catch (const util::FileError& e) {
    gzclose(in);
    throw DataError(std::string(e.what()) + " (is the cache directory writable? disk full?)");
  } catch (...) {
    gzclose(in);
    throw;
  }
  gzclose(in);
}

}  // namespace

fs::path fashion_mnist_package_dir() {
  const auto src = env_or_empty("GCU_FASHION_MNIST_SRC");
  return src.empty() ? fs::path("/usr/share/datasets/fashion-mnist") : fs::path(src);
}

fs::path fashion_mnist_cache_dir() {
  if (const auto dir = env_or_empty("GCU_DATA_DIR"); !dir.empty()) {
    return fs::path(dir) / "fashion-mnist";
  }
  if (const auto xdg = env_or_empty("XDG_CACHE_HOME"); !xdg.empty()) {
    return fs::path(xdg) / "gcu" / "fashion-mnist";
  }
  if (const auto home = env_or_empty("HOME"); !home.empty()) {
    return fs::path(home) / ".cache" / "gcu" / "fashion-mnist";
  }
  return fs::temp_directory_path() / "gcu" / "fashion-mnist";
}

fs::path prepare_fashion_mnist(const fs::path& package_dir, const fs::path& cache_dir) {
  bool created = false;
  for (const char* name : kFiles) {
    const fs::path target = cache_dir / name;
    if (fs::exists(target)) continue;
    const fs::path source = package_dir / (std::string(name) + ".gz");
    if (!fs::exists(source)) throw DataError(not_found_message(package_dir, cache_dir, name));
    if (!created) {
      std::error_code ec;
      fs::create_directories(cache_dir, ec);
      if (ec) {
        throw DataError("cannot create the data cache directory " + cache_dir.string() +
                        ": " + ec.message() + " (set GCU_DATA_DIR to a writable directory)");
      }
      created = true;
    }
    gunzip_to(source, target);
  }
  return cache_dir;
}

FashionMnist load_fashion_mnist(bool train, const fs::path& dir) {
  for (const char* name : kFiles) {
    if (!fs::exists(dir / name)) {
      throw DataError("Fashion-MNIST file " + (dir / name).string() +
                      " is missing: call prepare_fashion_mnist() or install "
                      "dataset-fashion-mnist (apt-get install dataset-fashion-mnist)");
    }
  }
  // LibTorch's reader checks the headers but not the lengths: a truncated file leaves
  // the rest of the tensor uninitialised (garbage pixels, labels outside 0..9).
  const int64_t n = train ? 60000 : 10000;
  const std::string split = train ? "train" : "t10k";
  const std::pair<std::string, int64_t> sizes[] = {{split + "-images-idx3-ubyte", 16 + n * 28 * 28},
                                                   {split + "-labels-idx1-ubyte", 8 + n}};
  for (const auto& [name, expected] : sizes) {
    std::error_code ec;
    const auto got = fs::file_size(dir / name, ec);
    if (ec || static_cast<int64_t>(got) != expected)
      throw DataError("cannot read Fashion-MNIST from " + dir.string() + ": " + name + " has " +
                      (ec ? ec.message() : std::to_string(got) + " bytes") + ", expected " +
                      std::to_string(expected) + " (truncated or not Fashion-MNIST?)");
  }
  using Mnist = torch::data::datasets::MNIST;
  FashionMnist out;
  try {
    Mnist reader(dir.string(), train ? Mnist::Mode::kTrain : Mnist::Mode::kTest);
    // The reader returns float pixels in [0, 1]; keep raw bytes (4x less memory).
    out.images = reader.images().mul(255.0).round_().to(torch::kUInt8);
    out.labels = reader.targets().to(torch::kInt64);
    if (out.labels.numel() > 0 && (out.labels.min().item<int64_t>() < 0 || out.labels.max().item<int64_t>() > 9))
      throw DataError("cannot read Fashion-MNIST from " + dir.string() + ": labels outside 0..9 in " + split +
                      "-labels-idx1-ubyte");
  } catch (const c10::Error& e) {
    throw DataError("cannot read Fashion-MNIST from " + dir.string() + ": " +
                    e.what_without_backtrace());
  }
  return out;
}

FashionMnist load_fashion_mnist(bool train) {
  return load_fashion_mnist(train, prepare_fashion_mnist());
}

torch::Tensor normalize_images(const torch::Tensor& pixels_u8, int64_t image,
                               int64_t channels) {
  if (image < 28) {
    throw DataError("image size " + std::to_string(image) + " is below Fashion-MNIST's 28");
  }
  if (channels < 1) {
    throw DataError("channel count " + std::to_string(channels) + " must be >= 1");
  }
  auto x = pixels_u8;
  if (image > 28) {
    const int64_t before = (image - 28) / 2;
    const int64_t after = image - 28 - before;
    x = torch::constant_pad_nd(x, {before, after, before, after}, 0);
  }
  x = x.to(torch::kFloat32).div_(255.0).sub_(kFashionMnistMean).div_(kFashionMnistStd);
  return channels == 1 ? x : x.repeat({1, channels, 1, 1});
}

}  // namespace gcu::trainer
