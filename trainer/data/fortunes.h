// trainer/data/fortunes.h: the second real task, a character-level language model on the
// text of Debian's `fortunes` package (/usr/share/games/fortunes). Next-character
// prediction with the existing classifier interface: the input is a window of `seq`
// character ids, the target the id of the character that follows it (so the BERT-style
// encoder, bert:vocab=97,classes=97,seq=..., classifies the next character; its
// bidirectional attention only sees the window, never the target). The window is fed
// most recent character first (input[b][0] is the character just before the target),
// because the encoder classifies from its first token's pooled state. Perplexity =
// exp(held-out cross-entropy in nats per character).
//
// Corpus: every regular fortune text file of the directory (names without a dot; the
// .dat index files and the .u8 links are skipped), in name order, concatenated. The
// '%' separator lines are kept (they are part of the text's statistics). Vocabulary:
// fixed, independent of the text: id 0 = any other byte, 1 = '\n', 2 + (c - 32) for the
// printable ASCII range 32..126 (97 ids); tabs become spaces.
// Split: the first 90% of the characters train, the last 10% are held out.
#pragma once

#include "trainer/data/dataset.h"

#include <filesystem>
#include <memory>

namespace gcu::trainer {

inline constexpr int64_t kFortunesVocab = 97;

// $GCU_FORTUNES_DIR if set, else /usr/share/games/fortunes.
std::filesystem::path fortunes_dir();

// Character id of a byte (see the file comment).
int64_t fortune_char_id(unsigned char c);

struct CharCorpus {
  torch::Tensor train;     // int64 ids [N_train]
  torch::Tensor held_out;  // int64 ids [N_held_out]
};

// Reads and encodes the corpus. Throws DataError "fortunes not found at <dir>: install
// it with apt-get install fortunes" when the directory is missing, and DataError naming
// the directory when it holds no text or too little for `min_chars` per split.
CharCorpus load_fortunes(const std::filesystem::path& dir = fortunes_dir(), int64_t min_chars = 64);

// Endless training batches of random windows: window starts are drawn from (seed, rank,
// batch number), so the same seed gives the same data order for every scheme.
std::unique_ptr<BatchSource> make_char_window_loader(const torch::Tensor& ids, int64_t seq, int64_t batch_size,
                                                     uint64_t seed, int64_t rank);

// A fixed held-out batch of n windows at evenly spaced starts (the same every call).
Batch char_eval_batch(const torch::Tensor& ids, int64_t seq, int64_t n);

}  // namespace gcu::trainer
