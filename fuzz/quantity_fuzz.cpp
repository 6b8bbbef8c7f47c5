// fuzz/quantity_fuzz.cpp: the unit parsers of `gcu simulate` (model/quantity.h: --bandwidth,
// --intra-bandwidth, crossover --range, --step-time) and the codec-bench reader
// (model/network/describe.h, data/hardware/codecs-h100.json). An input starting with '{' is
// a codec-bench document; any other input is a rate and a duration. Invariants: bad input
// is a QuantityError / NetworkError; a parsed rate or duration is finite and > 0, and
// format_gbps of a rate parses back within its 3 significant digits; a parsed codec bench
// has finite, non-negative lines keyed by canonical specs.
#include "fuzz/fuzz_util.h"
#include "model/network/describe.h"
#include "model/quantity.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::model;
  const std::string text = gcu::fuzz::as_string(data, size);
  if (!text.empty() && text[0] == '{') {
    try {
      const net::CodecBench b = net::parse_codec_bench(text, "fuzz");
      GCU_FUZZ_CHECK(!b.schemes.empty() && std::isfinite(b.memory_bytes_per_s) && b.memory_bytes_per_s > 0, text);
      for (const auto& [spec, line] : b.schemes)
        GCU_FUZZ_CHECK(std::isfinite(line.fixed_s) && line.fixed_s >= 0 && std::isfinite(line.per_element_s) &&
                           line.per_element_s >= 0,
                       spec);
    } catch (const net::NetworkError&) {
    }
    return 0;
  }
  try {
    const double gbps = parse_bandwidth_gbps(text);
    GCU_FUZZ_CHECK(std::isfinite(gbps) && gbps > 0, text);
    const std::string shown = format_gbps(gbps);  // "25 Gbit/s": 3 significant digits
    const std::string compact = shown.substr(0, shown.find(' ')) + shown.substr(shown.find(' ') + 1);
    double again = 0;
    try {
      again = parse_bandwidth_gbps(compact);
    } catch (const QuantityError& e) {
      GCU_FUZZ_CHECK(false, text + " -> " + shown + ": " + e.what());
    }
    GCU_FUZZ_CHECK(std::fabs(again - gbps) <= 6e-3 * gbps, text + " -> " + shown);
  } catch (const QuantityError&) {
  }
  try {
    const double s = parse_duration_s(text);
    GCU_FUZZ_CHECK(std::isfinite(s) && s > 0, text);
  } catch (const QuantityError&) {
  }
  return 0;
}
