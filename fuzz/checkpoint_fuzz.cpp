// fuzz/checkpoint_fuzz.cpp: trainer checkpoint files (trainer/runtime/checkpoint.cpp,
// LibTorch's archive format) loaded into a small model, an SGD optimizer with momentum
// and an error-feedback compressor, as `gcu train --resume` does. The input is the
// file's bytes. Invariant: a bad file is a TrainError naming the file; never a crash.
// Most mutations die early in LibTorch's zip reader (CRC-32 checks); the seed corpus
// holds a real checkpoint written by this target (GCU_FUZZ_WRITE_SEED=<file>).
#include "compressors/registry.h"
#include "fuzz/fuzz_util.h"
#include "trainer/runtime/checkpoint.h"
#include "trainer/runtime/train_options.h"

#include <torch/torch.h>

#include <fstream>
#include <unistd.h>

namespace {
struct Fixture {
  torch::nn::Sequential model{torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2)};
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9)};
  std::unique_ptr<gcu::compress::Compressor> compressor = gcu::compress::make_compressor("ef(topk:k=0.5)");
};
std::string scratch_file() {
  return "/tmp/gcu-checkpoint-fuzz." + std::to_string(::getpid()) + ".rank0";
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  torch::set_num_threads(1);
  if (const char* seed = std::getenv("GCU_FUZZ_WRITE_SEED")) {
    Fixture f;
    // One step so that momentum buffers and the residual exist.
    auto loss = f.model->forward(torch::ones({2, 3})).sum();
    loss.backward();
    f.optimizer.step();
    const gcu::compress::BucketLayout layout{{{8}}};
    std::vector<float> x(8, 0.5f), y(8);
    x[3] = 2;
    f.compressor->roundtrip(0, x.data(), y.data(), layout);
    gcu::trainer::TrainState s;
    s.iter = 7;
    s.scheme = f.compressor->spec();
    gcu::trainer::save_checkpoint(seed, *f.model, f.optimizer, *f.compressor, s);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file = scratch_file();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  Fixture f;
  gcu::trainer::TrainState expect;
  expect.scheme = f.compressor->spec();
  try {
    (void)gcu::trainer::load_checkpoint(file, *f.model, f.optimizer, *f.compressor, expect);
  } catch (const gcu::trainer::TrainError&) {
  }
  return 0;
}
