// Quoting user-supplied text in messages: at most ~200 bytes, cut at a UTF-8 character
// boundary, control characters and invalid bytes shown as escapes, so that an error
// message is always short, valid UTF-8 and one line (docs/robustness.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gcu::util {

// Most bytes of user input quoted in a message.
inline constexpr size_t kQuoteMaxBytes = 200;

// `s` made printable: control characters as \n, \t, \xHH; invalid UTF-8 bytes as \xHH;
// cut after at most `max_bytes` bytes of output at a character boundary, followed by
// "... (N bytes)" when cut. No surrounding quotes.
std::string printable(std::string_view s, size_t max_bytes = kQuoteMaxBytes);

// printable(s) in double quotes (not named "quoted": std::quoted would win by ADL): "abc".
std::string quote(std::string_view s, size_t max_bytes = kQuoteMaxBytes);

// Length in bytes of the longest prefix of `s` no longer than `max_bytes` that ends on a
// UTF-8 character boundary.
size_t utf8_prefix(std::string_view s, size_t max_bytes);

// The candidate closest to `word` by edit distance (insertions, deletions, substitutions
// and swaps of neighbours), when it is close enough to be a typo: at most 1 edit for
// words of up to 4 bytes, else at most 2. "" when none is.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gcu::util
