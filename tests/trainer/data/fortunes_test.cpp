// Tests for trainer/data/fortunes.cpp: the character corpus on a small fixture, the
// window loaders, and the errors for a missing directory and an empty corpus.
#include "trainer/data/fortunes.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gcu::trainer {
namespace {
namespace fs = std::filesystem;

TEST(Fortunes, EncodesTheFixtureAndSplits90To10) {
  const CharCorpus c = load_fortunes(GCU_FORTUNES_FIXTURE, 16);  // tiny (244 bytes); tiny.dat skipped
  EXPECT_EQ(c.train.size(0) + c.held_out.size(0), 244);
  EXPECT_EQ(c.train.size(0), 244 * 9 / 10);
  EXPECT_EQ(c.train[0].item<int64_t>(), fortune_char_id('T'));
  EXPECT_EQ(fortune_char_id('\n'), 1);
  EXPECT_EQ(fortune_char_id('\t'), fortune_char_id(' '));
  EXPECT_EQ(fortune_char_id(200), 0);
  EXPECT_LT(c.train.max().item<int64_t>(), kFortunesVocab);
}

TEST(Fortunes, WindowsPredictTheNextCharacterAndRepeatPerSeed) {
  const CharCorpus c = load_fortunes(GCU_FORTUNES_FIXTURE, 16);
  auto a = make_char_window_loader(c.train, 8, 4, 3, 0), b = make_char_window_loader(c.train, 8, 4, 3, 0);
  const Batch x = a->next_batch(), y = b->next_batch();
  ASSERT_EQ(x.input.sizes(), (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(torch::equal(x.input, y.input));
  // The target follows the window: find the window in the text and check the next id.
  const auto w = x.input[0].flip({0});  // fed most recent first
  bool found = false;
  for (int64_t s = 0; s + 8 < c.train.size(0) && !found; ++s)
    if (torch::equal(c.train.slice(0, s, s + 8), w) && c.train[s + 8].item<int64_t>() == x.target[0].item<int64_t>())
      found = true;
  EXPECT_TRUE(found);
  const Batch e1 = char_eval_batch(c.held_out, 8, 5), e2 = char_eval_batch(c.held_out, 8, 5);
  EXPECT_TRUE(torch::equal(e1.input, e2.input));
}

TEST(Fortunes, MissingDirectorySaysHowToInstall) {
  try {
    load_fortunes("/nonexistent/fortunes");
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("apt-get install fortunes"), std::string::npos) << e.what();
  }
}

TEST(Fortunes, EmptyCorpusIsAnError) {
  const fs::path d = fs::temp_directory_path() / "gcu_fortunes_empty_test";
  fs::create_directories(d);
  std::ofstream(d / "empty").close();
  EXPECT_THROW(load_fortunes(d), DataError);
  std::ofstream(d / "short") << "abc\n";
  EXPECT_THROW(load_fortunes(d), DataError);  // too few characters per split
  fs::remove_all(d);
}

}  // namespace
}  // namespace gcu::trainer
