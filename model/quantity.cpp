// Units as typed (quantity.h).
#include "model/quantity.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gcu::model {
namespace {

std::string quantity_shown(const std::string& s) { return s.size() > 60 ? s.substr(0, 57) + "..." : s; }

// The number at the start of `s` and the unit after it (spaces between allowed).
bool quantity_split_number(const std::string& s, double* value, std::string* unit) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || errno == ERANGE || !std::isfinite(v)) return false;
  // strtod accepts "inf", "nan", hex floats: only plain decimals here.
  for (const char* c = begin; c != end; ++c)
    if (!(std::isdigit(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-' || *c == '+' || *c == 'e' ||
          *c == 'E'))
      return false;
  std::string rest(end);
  size_t i = 0;
  while (i < rest.size() && rest[i] == ' ') ++i;
  *value = v;
  *unit = rest.substr(i);
  return true;
}

double quantity_prefix_factor(char c) {
  switch (std::tolower(static_cast<unsigned char>(c))) {
    case 'k': return 1e3;
    case 'm': return 1e6;
    case 'g': return 1e9;
    case 't': return 1e12;
    default: return 0;
  }
}

}  // namespace

Gbps parse_bandwidth_gbps(const std::string& text) {
  const auto fail = [&]() -> QuantityError {
    return QuantityError("bandwidth '" + quantity_shown(text) +
                         "': expected a rate such as 25 (Gbit/s), 25Gbps, 25Gbit/s, 400Mbps, 3.2Tbit/s or 300GB/s "
                         "(b = bits, B = bytes)");
  };
  double v = 0;
  std::string unit;
  if (!quantity_split_number(text, &v, &unit)) throw fail();
  double bits_per_unit = 0;
  if (unit.empty()) {
    bits_per_unit = 1e9;
  } else {
    const double prefix = quantity_prefix_factor(unit[0]);
    if (prefix == 0) throw fail();
    const std::string rest = unit.substr(1);
    if (rest.empty() || rest == "bps" || rest == "bit/s" || rest == "b/s" || rest == "bits/s" || rest == "bit")
      bits_per_unit = prefix;  // "25G" = 25 Gbit/s
    else if (rest == "Bps" || rest == "B/s" || rest == "byte/s" || rest == "bytes/s")
      bits_per_unit = 8 * prefix;
    else
      throw fail();
  }
  const double gbps = v * bits_per_unit / 1e9;
  if (!(gbps > 0) || !std::isfinite(gbps))
    throw QuantityError("bandwidth '" + quantity_shown(text) + "': expected a rate > 0");
  return gbps;
}

Seconds parse_duration_s(const std::string& text) {
  const auto fail = [&]() -> QuantityError {
    return QuantityError("duration '" + quantity_shown(text) + "': expected a time such as 420ms, 0.42s, 0.42 (s), 250us or 1.5min");
  };
  double v = 0;
  std::string unit;
  if (!quantity_split_number(text, &v, &unit)) throw fail();
  double factor = 0;
  if (unit.empty() || unit == "s" || unit == "sec") factor = 1;
  else if (unit == "ms") factor = 1e-3;
  else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") factor = 1e-6;  // micro sign, Greek mu
  else if (unit == "ns") factor = 1e-9;
  else if (unit == "min") factor = 60;
  else if (unit == "h") factor = 3600;
  else throw fail();
  const double s = v * factor;
  if (!(s > 0) || !std::isfinite(s)) throw QuantityError("duration '" + quantity_shown(text) + "': expected a time > 0");
  return s;
}

std::string format_gbps(Gbps gbps) {
  double v = gbps;
  const char* unit = "Gbit/s";
  if (gbps >= 1000) v = gbps / 1000, unit = "Tbit/s";
  else if (gbps < 1) v = gbps * 1000, unit = "Mbit/s";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", v, unit);
  return buf;
}

}  // namespace gcu::model
