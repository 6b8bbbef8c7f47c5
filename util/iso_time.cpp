// ISO 8601 UTC timestamps (iso_time.h).
#include "util/iso_time.h"

namespace gcu::util {

namespace {
constexpr const char* kFormat = "%Y-%m-%dT%H:%M:%SZ";
}

std::string iso_utc(std::time_t t) {
  std::tm tm{};
  char b[32];
  return gmtime_r(&t, &tm) && std::strftime(b, sizeof b, kFormat, &tm) ? b : "";
}

std::optional<std::time_t> parse_iso_utc(const std::string& s) {
  std::tm tm{};
  const char* end = s.size() < 64 ? strptime(s.c_str(), kFormat, &tm) : nullptr;
  if (!end || *end != '\0') return std::nullopt;
  const std::time_t t = timegm(&tm);
  if (t == std::time_t(-1)) return std::nullopt;
  return t;
}

}  // namespace gcu::util
