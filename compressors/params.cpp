// Scheme spec parsing (params.h).
#include "params.h"
#include "util/text.h"

#include "compressor.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gcu::compress {
namespace {
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}
}  // namespace

SchemeArgs SchemeArgs::parse(const std::string& spec) {
  SchemeArgs a;
  const auto colon = spec.find(':');
  a.name_ = trim(spec.substr(0, colon));
  if (a.name_.empty()) throw CompressorError("scheme spec " + util::quote(spec) + ": missing scheme name");
  if (colon == std::string::npos) return a;
  const std::string rest = spec.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    const auto comma = rest.find(',', pos);
    const std::string item = trim(rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (!item.empty()) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        throw CompressorError("scheme spec " + util::quote(spec) + ": expected key=value, got " + util::quote(item));
      const std::string key = trim(item.substr(0, eq));
      if (a.kv_.count(key))
        throw CompressorError("scheme spec " + util::quote(spec) + ": parameter '" + key + "' given twice");
      a.kv_[key] = trim(item.substr(eq + 1));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return a;
}

std::string SchemeArgs::get_string(const std::string& key, const std::string& fallback) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  used_.insert(key);
  return it->second;
}

double SchemeArgs::get_double(const std::string& key, double fallback) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  used_.insert(key);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw CompressorError(name_ + ": " + key + "=" + it->second + " is not a number");
  return v;
}

int64_t SchemeArgs::get_int(const std::string& key, int64_t fallback) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  used_.insert(key);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || errno == ERANGE)
    throw CompressorError(name_ + ": " + key + "=" + it->second + " is not an integer");
  return v;
}

bool SchemeArgs::get_bool(const std::string& key, bool fallback) const {
  auto it = kv_.find(key);
  if (it == kv_.end()) return fallback;
  used_.insert(key);
  const std::string& v = it->second;
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw CompressorError(name_ + ": " + key + "=" + v + " is not a boolean (true/false, on/off, 1/0)");
}

double SchemeArgs::get_fraction(const std::string& key, double fallback) const {
  const double v = get_double(key, fallback);
  if (!(v > 0.0 && v <= 1.0))
    throw CompressorError(name_ + ": " + key + "=" + std::to_string(v) + " is out of range (0, 1]");
  return v;
}

int64_t SchemeArgs::get_positive_int(const std::string& key, int64_t fallback) const {
  const int64_t v = get_int(key, fallback);
  if (v < 1)
    throw CompressorError(name_ + ": " + key + "=" + std::to_string(v) + " must be >= 1");
  return v;
}

uint64_t SchemeArgs::get_seed(const std::string& key) const {
  const int64_t v = get_int(key, 0);
  if (v < 0)
    throw CompressorError(name_ + ": " + key + "=" + std::to_string(v) + " must be >= 0");
  return static_cast<uint64_t>(v);
}

void SchemeArgs::require_all_used(const std::string& accepted) const {
  for (const auto& [k, v] : kv_)
    if (!used_.count(k))
      throw CompressorError(name_ + ": unknown parameter '" + k + "' (accepted: " +
                            (accepted.empty() ? std::string("none") : accepted) + ")");
}

std::string format_param(double v) {
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace gcu::compress
