// ISO 8601 UTC timestamps, "YYYY-MM-DDTHH:MM:SSZ": what gcu writes as dates (profile
// provenance, reports) and reads back (a profile's calibration date).
#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace gcu::util {

std::string iso_utc(std::time_t t);
inline std::string iso_utc_now() { return iso_utc(std::time(nullptr)); }

// The time of exactly that form; anything else (another form, trailing text, over 64
// bytes: profiles are untrusted) is absent.
std::optional<std::time_t> parse_iso_utc(const std::string& s);

}  // namespace gcu::util
