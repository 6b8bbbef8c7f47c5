// fuzz/fuzz_util.h: helpers shared by the libFuzzer targets (docs/robustness-fuzzing.md).
// A target returns normally for every input that is rejected with one of the project's
// documented exceptions; anything else (another exception type, a crash, a sanitizer
// report, a broken invariant via GCU_FUZZ_CHECK) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace gcu::fuzz {

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Splits off the first line ("spec\nrest"): lets one input carry a text and some bytes.
inline std::pair<std::string, std::string> split_first_line(const std::string& s) {
  const auto nl = s.find('\n');
  if (nl == std::string::npos) return {s, {}};
  return {s.substr(0, nl), s.substr(nl + 1)};
}

[[noreturn]] inline void invariant_failed(const char* what, const char* file, int line,
                                          const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n  %s\n", file, line, what,
               detail.substr(0, 2000).c_str());
  std::abort();
}

}  // namespace gcu::fuzz

// An invariant the code under test promises (round trips, canonical forms): abort so
// that libFuzzer records the input as a crash.
#define GCU_FUZZ_CHECK(cond, detail)                                               \
  do {                                                                             \
    if (!(cond)) ::gcu::fuzz::invariant_failed(#cond, __FILE__, __LINE__, (detail)); \
  } while (0)
