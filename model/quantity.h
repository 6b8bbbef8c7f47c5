// Quantities with units as users type them on the command line: link speeds ("25Gbps",
// "300GB/s", "3.2Tbit/s", a plain number = Gbit/s) and durations ("420ms", "1.5s", a plain
// number = seconds). Parsed into the model's units (units.h): Gbit/s (1e9 bits per second)
// and seconds. Decimal prefixes (k, M, G, T = 1e3 .. 1e12) as network vendors quote link
// speeds; bytes are 8 bits. The table of accepted spellings is docs/model.md "Units".
#pragma once

#include "model/units.h"

#include <string>

namespace gcu::model {

// Thrown with a message naming the text and the accepted forms.
struct QuantityError : ModelError {
  using ModelError::ModelError;
};

// "25", "25Gbps", "25 Gbit/s", "25G", "300GB/s", "300GBps", "3.2Tbit/s", "400Mbps",
// "100Mb/s", "1.6Tbps", "12.5GB/s" (case of the prefix letter ignored except b/B:
// lower-case b = bits, upper-case B = bytes). Result in Gbit/s; finite and > 0.
Gbps parse_bandwidth_gbps(const std::string& text);

// "420ms", "0.42s", "0.42", "420 ms", "250us", "250µs", "1.5min". Finite and > 0.
Seconds parse_duration_s(const std::string& text);

// "25 Gbit/s", "2.4 Tbit/s", "400 Mbit/s": the rate in the unit that keeps 1-3 digits
// before the point, at most 3 significant digits.
std::string format_gbps(Gbps gbps);

}  // namespace gcu::model
