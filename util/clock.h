// util/clock.h: the monotonic clock in seconds, for measurements and deadlines.
#pragma once

#include <chrono>

namespace gcu::util {

// Seconds on std::chrono::steady_clock (arbitrary origin): subtract two readings.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace gcu::util
