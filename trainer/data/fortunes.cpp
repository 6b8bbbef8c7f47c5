// trainer/data/fortunes.cpp: the fortunes character corpus and its window loaders
// (fortunes.h).
#include "trainer/data/fortunes.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace gcu::trainer {
namespace fs = std::filesystem;

fs::path fortunes_dir() {
  if (const char* d = std::getenv("GCU_FORTUNES_DIR"); d && *d) return d;
  return "/usr/share/games/fortunes";
}

int64_t fortune_char_id(unsigned char c) {
  if (c == '\n') return 1;
  if (c == '\t') c = ' ';
  if (c >= 32 && c <= 126) return 2 + (c - 32);
  return 0;
}

CharCorpus load_fortunes(const fs::path& dir, int64_t min_chars) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw DataError("fortunes not found at " + dir.string() + ": install it with apt-get install fortunes (or set "
                    "GCU_FORTUNES_DIR)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (e.is_regular_file() && !e.is_symlink() && name.find('.') == std::string::npos) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<int64_t> ids;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw DataError("fortunes: cannot read " + f.string());
    for (std::istreambuf_iterator<char> it(in), end; it != end; ++it)
      ids.push_back(fortune_char_id(static_cast<unsigned char>(*it)));
  }
  if (ids.empty())
    throw DataError("fortunes: no text in " + dir.string() + " (" + std::to_string(files.size()) +
                    " fortune files, all empty): install it with apt-get install fortunes");
  const int64_t n = static_cast<int64_t>(ids.size());
  const int64_t n_train = n * 9 / 10;
  if (n_train < min_chars || n - n_train < min_chars)
    throw DataError("fortunes: " + std::to_string(n) + " characters in " + dir.string() + " are too few (need " +
                    std::to_string(min_chars) + " per split, 90/10)");
  auto all = torch::from_blob(ids.data(), {n}, torch::kInt64).clone();
  return {all.slice(0, 0, n_train), all.slice(0, n_train, n)};
}

namespace {

class CharWindowLoader : public BatchSource {
 public:
  CharWindowLoader(torch::Tensor ids, int64_t seq, int64_t batch, uint64_t seed, int64_t rank)
      : ids_(std::move(ids)), seq_(seq), batch_(batch), seed_(seed), rank_(rank) {
    if (seq < 1 || batch < 1) throw DataError("char loader: seq and batch must be >= 1");
    if (ids_.size(0) <= seq) throw DataError("char loader: text of " + std::to_string(ids_.size(0)) +
                                             " characters is shorter than a window of " + std::to_string(seq) + " + 1");
  }
  Batch next_batch() override {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed_ * 1000003ull + rank_ * 7919ull + step_++);
    const auto starts = torch::randint(ids_.size(0) - seq_, {batch_}, gen, torch::kInt64);
    return window_batch(starts);
  }
  int64_t batch_size() const override { return batch_; }
  int64_t epoch() const override { return 0; }
  int64_t batches_per_epoch() const override { return ids_.size(0) / (batch_ * seq_) + 1; }

  Batch window_batch(const torch::Tensor& starts) const {
    // Most recent character first (see fortunes.h): position 0 precedes the target.
    const auto offs = torch::arange(seq_ - 1, -1, -1, torch::kInt64);
    const auto idx = starts.unsqueeze(1) + offs.unsqueeze(0);
    return {ids_.index({idx}), ids_.index({starts + seq_})};
  }

 private:
  torch::Tensor ids_;
  int64_t seq_, batch_;
  uint64_t seed_;
  int64_t rank_;
  uint64_t step_ = 0;
};

}  // namespace

std::unique_ptr<BatchSource> make_char_window_loader(const torch::Tensor& ids, int64_t seq, int64_t batch_size,
                                                     uint64_t seed, int64_t rank) {
  return std::make_unique<CharWindowLoader>(ids, seq, batch_size, seed, rank);
}

Batch char_eval_batch(const torch::Tensor& ids, int64_t seq, int64_t n) {
  CharWindowLoader l(ids, seq, std::max<int64_t>(1, n), 0, 0);
  const int64_t span = ids.size(0) - seq;
  const auto starts = torch::div(torch::arange(n, torch::kInt64) * span, std::max<int64_t>(1, n), "floor");
  return l.window_batch(starts);
}

}  // namespace gcu::trainer
