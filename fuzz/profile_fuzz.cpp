// fuzz/profile_fuzz.cpp: the profile reader (model/profile_json.cpp) and validator
// (model/profile_validate.cpp) on arbitrary bytes. Invariants: bad input is a
// model::ProfileError; a profile that validates round-trips through profile_to_json
// (to_json -> from_json succeeds and writes the same document again).
#include "fuzz/fuzz_util.h"
#include "model/profile_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::model;
  const std::string text = gcu::fuzz::as_string(data, size);
  Profile p;
  try {
    p = profile_from_string(text);
  } catch (const ProfileError&) {
    return 0;
  }
  const std::string once = profile_to_json(p).dump();
  Profile again;
  try {
    again = profile_from_json(profile_to_json(p));
  } catch (const ProfileError& e) {
    GCU_FUZZ_CHECK(false, std::string("a valid profile does not read back: ") + e.what());
  }
  const std::string twice = profile_to_json(again).dump();
  GCU_FUZZ_CHECK(once == twice, "profile_to_json is not stable:\n" + once + "\n" + twice);
  return 0;
}
