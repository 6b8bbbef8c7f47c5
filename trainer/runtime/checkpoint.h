// Checkpoints: everything a rank needs to continue a run exactly where it stopped.
// Each rank writes its own file, <prefix>.rank<r> (compressor state such as error
// feedback residuals differs between ranks): a 32-byte gcu header (checkpoint_header())
// followed by a LibTorch archive:
//   model/*        parameters and buffers (Module::save)
//   optimizer/*    optimizer state (momentum buffers, Adam moments, step counts)
//   compressor     Compressor::save_state() bytes (residuals, PowerSGD's Q, counters)
//   iter, epoch, batch_in_epoch, train_time_s, scheme, world_size
// Written under the output-file policy (util/output_file.h: temporary file, fsync,
// rename), so a crash or a signal never leaves a truncated checkpoint.
// The header's length and digest are checked before LibTorch sees a byte: LibTorch 1.13's
// archive reader trusts its input (a mutated archive made it allocate > 2 GB, another
// crashed it), so a truncated, corrupted or foreign file is an error here. A file crafted
// with a matching digest still reaches LibTorch: like torch.load, resume only from
// checkpoints you trust.
// Random numbers need no saving: the trainer reseeds from (seed, iteration) every step.
#pragma once

#include "compressors/compressor.h"

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gcu::trainer {

struct TrainState {
  int64_t iter = 0;            // iterations completed
  int64_t epoch = 0;           // data position: the next batch is batch_in_epoch of epoch
  int64_t batch_in_epoch = 0;
  double train_time_s = 0;     // training time so far (excluding evaluation)
  std::string scheme;          // compressor spec, checked on resume
  int64_t world_size = 1;      // checked on resume
};

std::string checkpoint_path(const std::string& prefix, int rank);

// The container: "GCUCKPT1", payload length (u64 LE), payload digest (u64 LE,
// checkpoint_digest()), 8 reserved zero bytes, then the payload (a LibTorch archive).
inline constexpr size_t kCheckpointHeaderBytes = 32;
// A 64-bit digest of the payload against corruption (not cryptographic).
uint64_t checkpoint_digest(std::string_view payload);
std::string checkpoint_header(std::string_view payload);

void save_checkpoint(const std::string& file, torch::nn::Module& model,
                     torch::optim::Optimizer& optimizer, const compress::Compressor& compressor,
                     const TrainState& state);

// Loads into model/optimizer/compressor and returns the saved state. Throws TrainError
// naming the file when it is missing or unreadable, or when its scheme or world size
// differs from `expect`'s.
TrainState load_checkpoint(const std::string& file, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer, compress::Compressor& compressor,
                           const TrainState& expect);

}  // namespace gcu::trainer
