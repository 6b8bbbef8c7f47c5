// A strict reader for one JSON object of the calibration state (state.cpp): knows its
// path and file, rejects unexpected keys, and names a missing, mistyped or out-of-range
// key in its StateError. Internal to state.cpp; not part of the library's interface.
#pragma once

#include "calibrate/state.h"

#include "util/text.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace gcu::calibrate::state_json {

// One JSON object of the state being read: knows its path ("errors.topk:k=0.01") and the
// file, rejects keys it does not expect, and names a missing or mistyped key.
class Obj {
 public:
  Obj(const Json& j, std::string path, const std::string& origin, std::initializer_list<const char*> keys)
      : j_(j), path_(std::move(path)), origin_(origin) {
    if (!j.is_object())
      throw StateError(origin_ + ": '" + (path_.empty() ? std::string("(top level)") : path_) +
                       "' must be a JSON object, got " + j.type_name());
    std::string expected;
    for (const char* k : keys) expected += std::string(expected.empty() ? "" : ", ") + k;
    for (const auto& item : j.items()) {
      const std::string& k = item.key();  // not a structured binding: clang 14 cannot capture one
      if (std::find_if(keys.begin(), keys.end(), [&](const char* a) { return k == a; }) == keys.end())
        throw StateError(origin_ + ": unknown key '" + at(k) + "' (expected " + expected + ")");
    }
  }
  const Json& sub(const std::string& key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) throw StateError(origin_ + ": missing key '" + at(key) + "'");
    return *it;
  }
  const Json& array(const std::string& key) const {
    const Json& v = sub(key);
    if (!v.is_array())
      throw StateError(origin_ + ": key '" + at(key) + "' must be a JSON array, got " + v.type_name());
    return v;
  }
  bool has(const std::string& key) const { return j_.contains(key); }
  template <class T>
  T req(const std::string& key) const { return as<T>(sub(key), key); }
  // Absent or null: nullopt.
  template <class T>
  std::optional<T> opt(const std::string& key) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    return as<T>(*it, key);
  }
  std::string at(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& origin() const { return origin_; }

 private:
  // nlohmann converts a float or an out-of-range integer with a plain cast (undefined
  // behaviour for 1e300): an integer must hold an integer that fits.
  template <class T>
  static bool int_fits(const Json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    if (!v.is_number_integer()) return false;
    const int64_t i = v.get<int64_t>();
    return i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           static_cast<uint64_t>(std::max<int64_t>(i, 0)) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
  template <class T>
  struct IntVector : std::false_type {};
  template <class U>
  struct IntVector<std::vector<U>> : std::bool_constant<std::is_integral_v<U> && !std::is_same_v<U, bool>> {
    using element = U;
  };
  template <class T>
  T as(const Json& v, const std::string& key) const {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!int_fits<T>(v))
        throw StateError(origin_ + ": key '" + at(key) + "' must be an integer in range, got " +
                         util::quote(v.dump(), 60));
    } else if constexpr (IntVector<T>::value) {
      if (v.is_array())
        for (size_t i = 0; i < v.size(); ++i)
          if (!int_fits<typename IntVector<T>::element>(v[i]))
            throw StateError(origin_ + ": key '" + at(key) + "[" + std::to_string(i) +
                             "]' must be an integer in range, got " + util::quote(v[i].dump(), 60));
    }
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception& e) {
      throw StateError(origin_ + ": key '" + at(key) + "' has the wrong type (" + v.type_name() + "): " + e.what());
    }
  }
  const Json& j_;
  std::string path_;
  const std::string& origin_;
};

// {spec: {...}} read with `one` per entry; null counts as empty (a step that ran nothing).
template <class T, class F>
BySpec<T> by_spec(const Json& j, const std::string& path, const std::string& origin, F one) {
  BySpec<T> out;
  if (j.is_null()) return out;
  if (!j.is_object()) throw StateError(origin + ": '" + path + "' must be a JSON object, got " + j.type_name());
  for (const auto& [spec, v] : j.items()) out.emplace_back(spec, one(v, path + "." + spec, origin));
  return out;
}

inline Json opt_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace gcu::calibrate::state_json
