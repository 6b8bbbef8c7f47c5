// Units used throughout model/. One convention end to end:
//   time in seconds (Seconds, names ending in _s), sizes in bytes (Bytes, _bytes),
//   link speed in Gbps = 1e9 BITS per second (Gbps, _gbps), per-byte cost in seconds
//   per byte (beta_s_per_byte). 1 MiB = 2^20 bytes (PyTorch's bucket_cap_mb is MiB).
// Plain aliases, not strong types: the formulas are one-liners and the names carry the
// unit; conversions live here and nowhere else.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace gcu::model {

using Seconds = double;
using Bytes = double;  // double: wire sizes are scaled by what-if factors (wire_scale)
using Gbps = double;   // 1e9 bits per second

constexpr double kMiB = 1024.0 * 1024.0;
constexpr Bytes kFp32Bytes = 4;
constexpr double kInf = std::numeric_limits<double>::infinity();

// beta = seconds per byte of a link of `gbps` Gbps: 8 bits per byte / (gbps * 1e9 bit/s).
constexpr double beta_s_per_byte_from_gbps(Gbps gbps) { return 8.0 / (gbps * 1e9); }
// Inverse of the above.
constexpr Gbps gbps_from_beta(double beta_s_per_byte) { return 8.0 / (beta_s_per_byte * 1e9); }

// Thrown for inputs the model cannot handle; the message names the offending value
// (and the profile field, where one is involved).
struct ModelError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace gcu::model
