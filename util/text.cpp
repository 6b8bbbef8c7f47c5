// Quoting user text in messages (text.h).
#include "util/text.h"

#include <cstdio>

namespace gcu::util {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid.
size_t utf8_len(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3;
  else if (c >= 0xF0 && c <= 0xF4) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
  if (c == 0xED && c1 > 0x9F) return 0;  // surrogates
  if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
  if (c == 0xF4 && c1 > 0x8F) return 0;  // above U+10FFFF
  return n;
}

std::string escape_byte(unsigned char c) {
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      return buf;
    }
  }
}

}  // namespace

size_t utf8_prefix(std::string_view s, size_t max_bytes) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = utf8_len(s, i);
    const size_t step = n == 0 ? 1 : n;
    if (i + step > max_bytes) break;
    i += step;
  }
  return i;
}

std::string printable(std::string_view s, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = utf8_len(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    const std::string piece = n == 0 || (n == 1 && (c < 0x20 || c == 0x7F)) ? escape_byte(c)
                                                                              : std::string(s.substr(i, n));
    if (out.size() + piece.size() > max_bytes) break;
    out += piece;
    i += n == 0 ? 1 : n;
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::string quote(std::string_view s, size_t max_bytes) { return "\"" + printable(s, max_bytes) + "\""; }

}  // namespace gcu::util
