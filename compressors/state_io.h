// Tiny binary writer/reader for compressor checkpoints (save_state/load_state): plain
// little-endian copies of fixed-size values, with a magic tag per scheme and bounds checks
// that throw CompressorError naming the scheme instead of reading past the end.
#pragma once

#include "compressor.h"

#include <cstring>
#include <string>
#include <vector>

namespace gcu::compress {

class StateWriter {
 public:
  explicit StateWriter(const std::string& magic) { put_bytes(magic.data(), magic.size()); }
  template <class T> void put(const T& v) { put_bytes(&v, sizeof(T)); }
  void put_bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

class StateReader {
 public:
  StateReader(const std::vector<uint8_t>& in, const std::string& magic, std::string who)
      : in_(in), who_(std::move(who)) {
    if (in.size() < magic.size() || std::memcmp(in.data(), magic.data(), magic.size()) != 0)
      throw CompressorError(who_ + ": checkpoint state is not a '" + magic + "' state");
    pos_ = magic.size();
  }
  template <class T> T get() { T v; get_bytes(&v, sizeof(T)); return v; }
  void get_bytes(void* p, size_t n) {
    if (n > in_.size() - pos_)
      throw CompressorError(who_ + ": checkpoint state truncated at byte " + std::to_string(pos_) +
                            " of " + std::to_string(in_.size()));
    if (n == 0) return;  // p may be an empty vector's data() == nullptr: memcpy(nullptr, ..) is UB
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  size_t remaining() const { return in_.size() - pos_; }
  void expect_end() const {
    if (pos_ != in_.size())
      throw CompressorError(who_ + ": checkpoint state has " + std::to_string(in_.size() - pos_) +
                            " unexpected trailing bytes");
  }

 private:
  const std::vector<uint8_t>& in_;
  std::string who_;
  size_t pos_ = 0;
};

}  // namespace gcu::compress
