// fuzz/sweep_fuzz.cpp: the sweep and scheme-list parsers of `gcu simulate`
// (simulate/sweep_spec.cpp). Input lines: 1: --sweep text, 2: --schemes text,
// 3: a number list. Invariants: errors are simulate::SimulateError; integer axes only
// yield whole numbers; split_schemes loses no non-empty scheme text.
#include "fuzz/fuzz_util.h"
#include "simulate/error.h"
#include "simulate/sweep_spec.h"

#include <cmath>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::simulate;
  std::stringstream in(gcu::fuzz::as_string(data, size));
  std::string sweep, schemes, numbers;
  std::getline(in, sweep);
  std::getline(in, schemes);
  std::getline(in, numbers);
  {
    try {
      const SweepSpec s = parse_sweep(sweep);
      GCU_FUZZ_CHECK(!s.values.empty(), "empty sweep accepted: " + sweep);
      if (sweep_axis_is_integer(s.axis))
        for (double v : s.values)
          GCU_FUZZ_CHECK(v == std::floor(v), "non-integer value on an integer axis: " + sweep);
    } catch (const SimulateError&) {
    }
  }
  try {
    const auto list = split_schemes({schemes});
    for (const auto& s : list) GCU_FUZZ_CHECK(!s.empty(), "empty scheme from: " + schemes);
  } catch (const SimulateError&) {
  }
  try {
    (void)parse_number_list(numbers, "fuzz");
  } catch (const SimulateError&) {
  }
  return 0;
}
