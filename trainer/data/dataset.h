// trainer/data/dataset.h: the trainer's data pipeline. Fashion-MNIST (from Debian's
// dataset-fashion-mnist package, unpacked once into a cache directory in the layout
// torch::data::datasets::MNIST reads) sharded per rank, and synthetic batches for
// timing runs. The training loop only sees BatchSource::next_batch().
//
// Sharding (see ShardedLoader): every epoch all ranks draw the same permutation of the
// training set from (seed, epoch); rank r of w takes positions r, r+w, r+2w, ... of it,
// truncated so that every rank has the same number of samples. Hence the union of the
// ranks' i-th batches (batch b each) is exactly the i-th batch of a single-process run
// with world_size 1 and batch w*b: handy for "DDP equals big-batch SGD" checks.
#pragma once

#include "trainer/models/registry.h"  // Batch, Net

#include <torch/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace gcu::trainer {

// Missing or corrupt data, bad loader options. The message names the path or value.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An endless stream of training batches.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // The next batch, already on the source's device. Never ends: wraps to a new epoch.
  virtual Batch next_batch() = 0;
  virtual int64_t batch_size() const = 0;
  // The epoch (0-based) of the last batch returned; synthetic sources return 0.
  virtual int64_t epoch() const = 0;
  // Batches per epoch for this rank.
  virtual int64_t batches_per_epoch() const = 0;
};

// ---- Fashion-MNIST ------------------------------------------------------------------

// Where the gzipped files of the Debian package are: $GCU_FASHION_MNIST_SRC if set,
// else /usr/share/datasets/fashion-mnist.
std::filesystem::path fashion_mnist_package_dir();
// Where the unpacked files go: $GCU_DATA_DIR/fashion-mnist if set, else
// $XDG_CACHE_HOME/gcu/fashion-mnist, else $HOME/.cache/gcu/fashion-mnist.
std::filesystem::path fashion_mnist_cache_dir();

// Makes sure `cache_dir` holds train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, unpacking missing ones from
// `package_dir`/<name>.gz (each through a temporary file, then renamed: safe when
// several ranks do it at once). Returns cache_dir. Throws DataError "Fashion-MNIST not
// found at <dir>: install it with apt-get install dataset-fashion-mnist" when a file
// is missing from both places.
std::filesystem::path prepare_fashion_mnist(
    const std::filesystem::path& package_dir = fashion_mnist_package_dir(),
    const std::filesystem::path& cache_dir = fashion_mnist_cache_dir());

// Fashion-MNIST normalisation constants (training-set pixel mean and std in [0, 1]).
inline constexpr double kFashionMnistMean = 0.2860;
inline constexpr double kFashionMnistStd = 0.3530;

// One split held in memory as raw pixels (47 MB for the training set).
struct FashionMnist {
  torch::Tensor images;  // uint8 [N, 1, 28, 28]
  torch::Tensor labels;  // int64 [N], values 0..9
  int64_t size() const { return labels.size(0); }
};

// Loads one split (train: 60000 images, test: 10000) from a prepared directory
// (default: prepare_fashion_mnist()). Throws DataError naming the directory.
FashionMnist load_fashion_mnist(bool train, const std::filesystem::path& dir);
FashionMnist load_fashion_mnist(bool train);

// uint8 pixels [N, 1, 28, 28] -> normalised float images (x/255 - mean) / std, first
// padded with background pixels (0) to `image` x `image` when image > 28 (e.g. 32 for
// VGG), and the grey channel repeated `channels` times (e.g. 3 for the default
// ResNet/VGG stems). Throws DataError for image < 28 or channels < 1.
torch::Tensor normalize_images(const torch::Tensor& pixels_u8, int64_t image = 28,
                               int64_t channels = 1);

struct LoaderOptions {
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t batch_size = 64;    // per rank
  uint64_t seed = 0;          // shuffle seed, the same on all ranks
  int64_t image = 28;         // output image size (zero padding above 28)
  torch::Device device = torch::kCPU;
  int64_t channels = 1;       // output channels (the grey channel repeated)
};

// Per-rank shuffled training batches over an in-memory split (see the file comment).
// Incomplete last batches are dropped. Throws DataError for rank/world/batch values
// that are out of range or a shard smaller than one batch.
class ShardedLoader : public BatchSource {
 public:
  ShardedLoader(FashionMnist data, LoaderOptions options);
  Batch next_batch() override;
  int64_t batch_size() const override { return options_.batch_size; }
  int64_t epoch() const override { return epoch_; }
  int64_t batches_per_epoch() const override { return batches_per_epoch_; }
  int64_t shard_size() const { return shard_size_; }
  // Dataset indices of this rank's shard in the given epoch, in visiting order.
  torch::Tensor shard_indices(int64_t epoch) const;
  // Jumps to a position (for resuming from a checkpoint): the next batch returned is
  // batch `batch_in_epoch` of epoch `epoch`.
  void seek(int64_t epoch, int64_t batch_in_epoch);
  int64_t batch_in_epoch() const { return next_batch_in_epoch_; }

 private:
  void start_epoch(int64_t epoch);

  FashionMnist data_;
  LoaderOptions options_;
  int64_t shard_size_ = 0;
  int64_t batches_per_epoch_ = 0;
  int64_t epoch_ = 0;
  int64_t next_batch_in_epoch_ = 0;
  torch::Tensor order_;  // this epoch's shard indices
};

// Fills options.image and options.channels from the net's input shape (image models);
// throws DataError for token models, which have no Fashion-MNIST input.
void match_input_geometry(const Net& net, LoaderOptions& options);

// Convenience: the training-set loader for a rank (loads and prepares the data).
std::unique_ptr<ShardedLoader> make_fashion_mnist_loader(const LoaderOptions& options);

// In-order pass over an evaluation split (typically the 10000 test images), in batches
// of `batch_size` (the last one may be smaller). If world_size > 1, rank r evaluates the
// contiguous slice r of w (sizes differ by at most 1); sum correct counts across ranks.
class EvalIterator {
 public:
  EvalIterator(FashionMnist data, int64_t batch_size, torch::Device device = torch::kCPU,
               int64_t image = 28, int64_t rank = 0, int64_t world_size = 1,
               int64_t channels = 1);
  // Fills `batch` and returns true, or returns false at the end of the pass.
  bool next(Batch& batch);
  void reset() { position_ = begin_; }
  int64_t size() const { return end_ - begin_; }  // samples this rank evaluates

 private:
  FashionMnist data_;
  int64_t batch_size_;
  torch::Device device_;
  int64_t image_;
  int64_t channels_;
  int64_t begin_ = 0, end_ = 0, position_ = 0;
};

// ---- Synthetic data -----------------------------------------------------------------

// Synthetic batches for timing runs: the same random input every step (made once by
// net.make_synthetic_batch with `seed` plus rank, already on `device`), with fresh random
// labels every step, drawn from (seed, rank, step). No I/O and almost no per-step cost,
// and nothing the net can memorize: with one fixed labelled batch the loss fell to 0
// within ~50 steps at lr 0.05 and the CNN's forward got 20% faster as it did, so timings
// drifted over a run. seek(step) resumes the label stream.
// fresh_labels = false keeps the first labels too: one fixed batch, for overfit checks.
class SyntheticSource : public BatchSource {
 public:
  SyntheticSource(const Net& net, int64_t batch_size, torch::Device device,
                  uint64_t seed = 0, int64_t rank = 0, bool fresh_labels = true);
  Batch next_batch() override;
  int64_t batch_size() const override { return batch_size_; }
  int64_t epoch() const override { return 0; }
  int64_t batches_per_epoch() const override { return 1; }
  void seek(int64_t step) { step_ = step; }

 private:
  int64_t batch_size_;
  int64_t classes_;
  uint64_t stream_;  // seed and rank mixed
  int64_t step_ = 0;
  bool fresh_labels_;
  Batch batch_;
};

}  // namespace gcu::trainer
