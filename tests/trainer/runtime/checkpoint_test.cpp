// Tests for checkpoints (trainer/runtime/checkpoint.h): a round trip restores the model,
// the optimizer state (the next step is identical), the compressor state (error
// feedback residuals) and the counters; a mismatched scheme or world size, a missing,
// truncated or corrupted file give a TrainError naming the file.
#include "trainer/runtime/checkpoint.h"

#include "compressors/local_group.h"
#include "compressors/registry.h"
#include "trainer/runtime/optim.h"
#include "trainer/runtime/train_options.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gcu::trainer {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path = fs::temp_directory_path() / ("gcu_ckpt_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(path); }
  ~Dir() { fs::remove_all(path); }
  std::string operator/(const std::string& n) const { return (path / n).string(); }
};

struct Trainee {
  torch::nn::Linear net{nullptr};
  std::unique_ptr<torch::optim::Optimizer> opt;
  std::unique_ptr<compress::Compressor> comp;
  explicit Trainee(uint64_t seed) {
    torch::manual_seed(seed);
    net = torch::nn::Linear(6, 3);
    OptimizerConfig c;
    c.momentum = 0.9;
    opt = make_optimizer(net->parameters(), c);
    comp = compress::make_compressor("ef(topk:k=0.25)");
  }
  // One training step with a fixed input; the compressor sees the flattened weight grad.
  void step(int t) {
    auto x = torch::arange(12, torch::kFloat).reshape({2, 6}) * (0.1 * (t + 1));
    opt->zero_grad();
    net->forward(x).pow(2).sum().backward();
    auto g = net->weight.grad().reshape({-1}).contiguous();
    const auto layout = compress::BucketLayout::flat(g.numel());
    compress::LocalGroup group(1);
    group.run([&](compress::Communicator& comm) {
      comp->step({0, g.data_ptr<float>(), &layout}, comm);
    });
    net->weight.mutable_grad().copy_(g.view_as(net->weight));
    opt->step();
  }
  std::vector<float> params() const {
    std::vector<float> v;
    for (auto& p : net->parameters()) {
      auto c = p.detach().reshape({-1}).contiguous();
      v.insert(v.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    }
    return v;
  }
};

TrainState state_for(const Trainee& s) {
  TrainState st;
  st.iter = 7;
  st.epoch = 2;
  st.batch_in_epoch = 31;
  st.train_time_s = 12.5;
  st.scheme = s.comp->spec();
  st.world_size = 4;
  return st;
}

// A checkpoint of a trainee after one step in `d`: its path, and its bytes.
std::string one_step_checkpoint(const Dir& d, Trainee& a, std::string* bytes) {
  const std::string file = d / "ck.rank0";
  save_checkpoint(file, *a.net, *a.opt, *a.comp, state_for(a));
  const auto size = fs::file_size(file);
  bytes->assign(size, '\0');
  std::ifstream(file, std::ios::binary).read(bytes->data(), static_cast<std::streamsize>(size));
  return file;
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
// load_checkpoint(path) must throw a TrainError naming the file and containing `needle`.
void expect_load_error(const std::string& path, const Trainee& a, const std::string& needle) {
  Trainee b(1);
  try {
    load_checkpoint(path, *b.net, *b.opt, *b.comp, state_for(a));
    ADD_FAILURE() << "no error for " << path;
  } catch (const TrainError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  }
}

TEST(Checkpoint, RoundTripRestoresModelOptimizerCompressorAndCounters) {
  Dir d;
  Trainee a(1);
  a.step(0);
  a.step(1);
  const auto saved_state = a.comp->save_state();
  ASSERT_FALSE(saved_state.empty()) << "error feedback keeps a residual";
  const std::string file = d / "ck.rank0";
  save_checkpoint(file, *a.net, *a.opt, *a.comp, state_for(a));
  EXPECT_FALSE(fs::exists(file + ".tmp"));

  Trainee b(2);  // different initial weights, empty momentum and residuals
  ASSERT_NE(b.params(), a.params());
  const TrainState got = load_checkpoint(file, *b.net, *b.opt, *b.comp, state_for(a));
  EXPECT_EQ(got.iter, 7);
  EXPECT_EQ(got.epoch, 2);
  EXPECT_EQ(got.batch_in_epoch, 31);
  EXPECT_DOUBLE_EQ(got.train_time_s, 12.5);
  EXPECT_EQ(got.scheme, a.comp->spec());
  EXPECT_EQ(got.world_size, 4);
  EXPECT_EQ(b.params(), a.params());
  EXPECT_EQ(b.comp->save_state(), saved_state);
  // Momentum buffers and residuals restored: the next step is bit-identical.
  a.step(2);
  b.step(2);
  EXPECT_EQ(b.params(), a.params());
}

TEST(Checkpoint, MismatchedSchemeOrWorldSizeIsRejected) {
  Dir d;
  Trainee a(1);
  a.step(0);
  const std::string file = d / "ck.rank0";
  save_checkpoint(file, *a.net, *a.opt, *a.comp, state_for(a));
  Trainee b(1);
  auto expect = state_for(a);
  expect.scheme = "powersgd:rank=4";
  try {
    load_checkpoint(file, *b.net, *b.opt, *b.comp, expect);
    ADD_FAILURE() << "scheme mismatch accepted";
  } catch (const TrainError& e) {
    EXPECT_NE(std::string(e.what()).find("powersgd:rank=4"), std::string::npos) << e.what();
  }
  expect = state_for(a);
  expect.world_size = 2;
  try {
    load_checkpoint(file, *b.net, *b.opt, *b.comp, expect);
    ADD_FAILURE() << "world size mismatch accepted";
  } catch (const TrainError& e) {
    EXPECT_NE(std::string(e.what()).find("4 ranks"), std::string::npos) << e.what();
  }
}

TEST(Checkpoint, MissingTruncatedOrCorruptedFileGivesClearError) {
  Dir d;
  Trainee a(1);
  a.step(0);
  std::string bytes;
  one_step_checkpoint(d, a, &bytes);
  expect_load_error(d / "nope.rank0", a, "does not exist");
  write_bytes(d / "truncated.rank0", bytes.substr(0, bytes.size() / 2));
  expect_load_error(d / "truncated.rank0", a, "cannot read checkpoint");
  write_bytes(d / "garbage.rank0", std::string(bytes.size(), 'x'));
  expect_load_error(d / "garbage.rank0", a, "cannot read checkpoint");
  write_bytes(d / "empty.rank0", "");
  expect_load_error(d / "empty.rank0", a, "cannot read checkpoint");
}

// fuzz/corpus/checkpoint/regress-oom-libtorch-reader: LibTorch's reader allocates what the
// zip directory declares (> 2 GB for the finding); the archive is checked against the file
// size first.
TEST(Checkpoint, ZipDirectoryBeyondTheFileIsRejectedBeforeLibTorchReadsIt) {
  Dir d;
  Trainee a(1);
  a.step(0);
  std::string bytes;
  const std::string file = one_step_checkpoint(d, a, &bytes);
  expect_load_error(std::string(GCU_SOURCE_DIR) + "/fuzz/corpus/checkpoint/regress-oom-libtorch-reader", a,
                    "not a valid checkpoint archive");

  // Every central-directory entry declaring 2 GB - 1 of data (sizes at +20 and +24).
  std::string big = bytes;
  int mutated = 0;
  for (size_t i = 0; i + 46 <= big.size(); ++i)
    if (big.compare(i, 4, "PK\x01\x02") == 0) {
      for (size_t k : {size_t{20}, size_t{24}}) big.replace(i + k, 4, "\xff\xff\xff\x7f");
      ++mutated;
    }
  ASSERT_GT(mutated, 0);
  // With a header and digest that match the mutated archive: the zip checks must catch it.
  const std::string payload = big.substr(kCheckpointHeaderBytes);
  write_bytes(d / "huge.rank0", checkpoint_header(payload) + payload);
  expect_load_error(d / "huge.rank0", a, "not a valid checkpoint archive");

  Trainee c(1);  // the unmutated file still loads
  EXPECT_NO_THROW(load_checkpoint(file, *c.net, *c.opt, *c.comp, state_for(a)));
}

// The checkpoint fuzzer crashed LibTorch 1.13's unpickler with a mutated archive whose zip
// structure was intact: every byte after the header is covered by the digest, so a flipped
// byte anywhere is an error before LibTorch reads the archive.
TEST(Checkpoint, AnyFlippedByteIsRejectedBeforeLibTorchReadsIt) {
  Dir d;
  Trainee a(1);
  a.step(0);
  std::string bytes;
  one_step_checkpoint(d, a, &bytes);
  ASSERT_EQ(bytes.compare(0, 8, "GCUCKPT1"), 0);
  const size_t size = bytes.size();
  for (size_t at : {size_t{3}, size_t{12}, size_t{20}, kCheckpointHeaderBytes + 1, size / 2, size - 1}) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x20);
    const std::string path = d / ("flip" + std::to_string(at) + ".rank0");
    write_bytes(path, bad);
    expect_load_error(path, a, "not a valid checkpoint archive");
  }
  write_bytes(d / "appended.rank0", bytes + "x");
  expect_load_error(d / "appended.rank0", a, "truncated or appended to");
}

}  // namespace
}  // namespace gcu::trainer

namespace gcu::trainer {
namespace {
// A checkpoint of a model with other widths: Module::load() would silently reshape the
// parameters (set_()); load_checkpoint must refuse it, naming the file and the tensor.
TEST(Checkpoint, ForeignModelIsRejectedNamingTheTensor) {
  Dir d;
  Trainee a(1);
  a.step(0);
  const std::string file = d / "ck.rank0";
  save_checkpoint(file, *a.net, *a.opt, *a.comp, state_for(a));
  torch::nn::Linear other(6, 5);
  OptimizerConfig c;
  c.momentum = 0.9;
  auto opt = make_optimizer(other->parameters(), c);
  auto comp = compress::make_compressor("ef(topk:k=0.25)");
  try {
    load_checkpoint(file, *other, *opt, *comp, state_for(a));
    ADD_FAILURE() << "a checkpoint of another model was accepted";
  } catch (const TrainError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(file), std::string::npos) << m;
    EXPECT_NE(m.find("another model"), std::string::npos) << m;
    EXPECT_NE(m.find("has shape [3] there, [5] in this run"), std::string::npos) << m;
  }
}
}  // namespace
}  // namespace gcu::trainer
