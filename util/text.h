// Quoting user-supplied text in messages: at most ~200 bytes, cut at a UTF-8 character
// boundary, control characters and invalid bytes shown as escapes, so that an error
// message is always short, valid UTF-8 and one line (docs/robustness.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

}  // namespace gcu::util
