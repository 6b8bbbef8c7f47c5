// fuzz/parts_fuzz.cpp: a profile's parts combined (model/parts.h; `gcu simulate -p MODEL
// --system SYSTEM`). The input is a model part and a system part separated by a NUL byte;
// each is JSON text. Invariants: bad input is a ProfileError; a combined profile that
// reads splits into parts that combine back into the same profile.
#include "fuzz/fuzz_util.h"
#include "model/parts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::model;
  const std::string text = gcu::fuzz::as_string(data, size);
  const size_t nul = text.find('\0');
  const std::string m = text.substr(0, nul), s = nul == std::string::npos ? std::string() : text.substr(nul + 1);
  Profile p;
  try {
    p = profile_from_json(combine_parts(parse_json_text(m), parse_json_text(s)));
  } catch (const ProfileError&) {
    return 0;
  }
  const ProfileParts parts = split_profile(p);
  Profile again;
  try {
    again = profile_from_json(combine_parts(parts.model, parts.system));
  } catch (const ProfileError& e) {
    GCU_FUZZ_CHECK(false, std::string("a split profile does not combine: ") + e.what());
  }
  GCU_FUZZ_CHECK(profile_to_json(again) == profile_to_json(p), profile_to_json(p).dump().substr(0, 2000));
  return 0;
}
