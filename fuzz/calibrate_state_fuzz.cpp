// fuzz/calibrate_state_fuzz.cpp: a `gcu calibrate` state file (--resume, the
// <output>.state.json document of calibrate/profile_builder.h) turned into a profile:
// JSON parse, the typed state reader, build_profile (fits of the collective sweeps, codecs, errors, convergence)
// and the profile validator. Invariants: bad input is a JSON parse error, a FitError /
// std::invalid_argument / nlohmann type error naming the problem, or a ProfileError from
// the validator; never a crash, a sanitizer report or an unbounded allocation.
#include "calibrate/fit.h"
#include "calibrate/profile_builder.h"
#include "calibrate/state.h"
#include "fuzz/fuzz_util.h"
#include "model/profile_json.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu;
  calibrate::Json state;
  try {
    state = calibrate::Json::parse(gcu::fuzz::as_string(data, size));
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  calibrate::BuildInfo info;
  info.device = "fuzz";
  info.date = "2026-01-01T00:00:00Z";
  info.command = "gcu calibrate --fuzz";
  try {
    // The typed, strict reader (calibrate/state.h) first, as `gcu calibrate --resume` does.
    const calibrate::CalibrationState st = calibrate::state_from_json(state, "fuzz.state.json");
    const auto built = calibrate::build_profile(st, info);
    model::validate_profile(built.profile);
    (void)model::profile_to_json(built.profile).dump();
  } catch (const std::exception&) {
    // FitError, ProfileError, CompressorError, nlohmann type errors: `gcu calibrate`
    // prints what() and exits non-zero. Crashes and sanitizer reports are findings.
  }
  return 0;
}
