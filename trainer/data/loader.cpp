// trainer/data/loader.cpp: per-rank sharded training batches, evaluation passes and
// synthetic batches (see dataset.h for the sharding rule).
#include "trainer/data/dataset.h"
#include "trainer/torch_compat.h"

#include <torch/torch.h>

namespace gcu::trainer {
namespace {

// Per-epoch shuffle seed: identical on all ranks, different for every (seed, epoch).
uint64_t epoch_seed(uint64_t seed, int64_t epoch) {
  uint64_t x = seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(epoch + 1);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;  // splitmix64 finaliser
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void check_rank(int64_t rank, int64_t world_size) {
  if (world_size < 1) {
    throw DataError("world size " + std::to_string(world_size) + " must be >= 1");
  }
  if (rank < 0 || rank >= world_size) {
    throw DataError("rank " + std::to_string(rank) + " is outside [0, " +
                    std::to_string(world_size) + ")");
  }
}

}  // namespace

ShardedLoader::ShardedLoader(FashionMnist data, LoaderOptions options)
    : data_(std::move(data)), options_(options) {
  check_rank(options_.rank, options_.world_size);
  if (options_.batch_size < 1) {
    throw DataError("batch size " + std::to_string(options_.batch_size) + " must be >= 1");
  }
  if (options_.image < 28) {
    throw DataError("image size " + std::to_string(options_.image) + " must be >= 28");
  }
  if (options_.channels < 1) {
    throw DataError("channel count " + std::to_string(options_.channels) + " must be >= 1");
  }
  shard_size_ = data_.size() / options_.world_size;
  batches_per_epoch_ = shard_size_ / options_.batch_size;
  if (batches_per_epoch_ < 1) {
    throw DataError("a shard of " + std::to_string(shard_size_) + " samples (" +
                    std::to_string(data_.size()) + " over " +
                    std::to_string(options_.world_size) + " ranks) is smaller than one batch of " +
                    std::to_string(options_.batch_size));
  }
  start_epoch(0);
}

torch::Tensor ShardedLoader::shard_indices(int64_t epoch) const {
  auto gen = compat::make_cpu_generator(epoch_seed(options_.seed, epoch));
  const auto perm = torch::randperm(data_.size(), gen, torch::kInt64);
  return perm.slice(0, options_.rank, shard_size_ * options_.world_size, options_.world_size)
      .contiguous();
}

void ShardedLoader::start_epoch(int64_t epoch) {
  epoch_ = epoch;
  next_batch_in_epoch_ = 0;
  order_ = shard_indices(epoch);
}

void ShardedLoader::seek(int64_t epoch, int64_t batch_in_epoch) {
  if (epoch < 0 || batch_in_epoch < 0 || batch_in_epoch > batches_per_epoch_) {
    throw DataError("cannot seek to epoch " + std::to_string(epoch) + ", batch " +
                    std::to_string(batch_in_epoch) + " (an epoch has " +
                    std::to_string(batches_per_epoch_) + " batches)");
  }
  start_epoch(epoch);
  next_batch_in_epoch_ = batch_in_epoch;
}

Batch ShardedLoader::next_batch() {
  if (next_batch_in_epoch_ >= batches_per_epoch_) start_epoch(epoch_ + 1);
  const int64_t begin = next_batch_in_epoch_ * options_.batch_size;
  const auto idx = order_.slice(0, begin, begin + options_.batch_size);
  ++next_batch_in_epoch_;
  Batch batch;
  batch.input =
      normalize_images(data_.images.index_select(0, idx), options_.image, options_.channels)
          .to(options_.device);
  batch.target = data_.labels.index_select(0, idx).to(options_.device);
  return batch;
}

void match_input_geometry(const Net& net, LoaderOptions& options) {
  const auto shape = net.input_shape(1);
  if (net.input_kind() != InputKind::kImage || shape.size() != 4 || shape[2] != shape[3]) {
    throw DataError("model '" + net.spec() +
                    "' does not take square images: use synthetic data for it");
  }
  options.channels = shape[1];
  options.image = shape[2];
}

std::unique_ptr<ShardedLoader> make_fashion_mnist_loader(const LoaderOptions& options) {
  return std::make_unique<ShardedLoader>(load_fashion_mnist(/*train=*/true), options);
}

EvalIterator::EvalIterator(FashionMnist data, int64_t batch_size, torch::Device device,
                           int64_t image, int64_t rank, int64_t world_size,
                           int64_t channels)
    : data_(std::move(data)),
      batch_size_(batch_size),
      device_(device),
      image_(image),
      channels_(channels) {
  check_rank(rank, world_size);
  if (batch_size_ < 1) {
    throw DataError("evaluation batch size " + std::to_string(batch_size_) + " must be >= 1");
  }
  if (image_ < 28) throw DataError("image size " + std::to_string(image_) + " must be >= 28");
  if (channels_ < 1) {
    throw DataError("channel count " + std::to_string(channels_) + " must be >= 1");
  }
  begin_ = data_.size() * rank / world_size;
  end_ = data_.size() * (rank + 1) / world_size;
  position_ = begin_;
}

bool EvalIterator::next(Batch& batch) {
  if (position_ >= end_) return false;
  const int64_t stop = std::min(position_ + batch_size_, end_);
  batch.input =
      normalize_images(data_.images.slice(0, position_, stop), image_, channels_).to(device_);
  batch.target = data_.labels.slice(0, position_, stop).to(device_);
  position_ = stop;
  return true;
}

SyntheticSource::SyntheticSource(const Net& net, int64_t batch_size, torch::Device device,
                                 uint64_t seed, int64_t rank, bool fresh_labels)
    : batch_size_(batch_size),
      classes_(net.num_classes()),
      stream_(seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(rank)),
      fresh_labels_(fresh_labels) {
  if (batch_size < 1) {
    throw DataError("batch size " + std::to_string(batch_size) + " must be >= 1");
  }
  batch_ = net.make_synthetic_batch(batch_size, device, stream_);
}

Batch SyntheticSource::next_batch() {
  if (!fresh_labels_) return batch_;
  // splitmix64 of (stream, step): independent label draws per step, reproducible on resume.
  uint64_t z = stream_ + 0xBF58476D1CE4E5B9ULL * static_cast<uint64_t>(++step_);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  auto gen = compat::make_cpu_generator(z);
  Batch out;
  out.input = batch_.input;
  out.target = torch::randint(0, classes_, batch_.target.sizes(), gen, torch::kInt64)
                   .to(batch_.target.device());
  return out;
}

}  // namespace gcu::trainer
