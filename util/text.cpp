// Quoting user text in messages (text.h).
#include "util/text.h"

#include <algorithm>
#include <cstdio>

namespace gcu::util {

namespace {
// Optimal string alignment distance.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}
}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 64) return "";
  const size_t limit = word.size() <= 4 ? 1 : 2;
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best_d <= limit ? best : "";
}
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
