// fuzz/set_fuzz.cpp: `gcu simulate --set PATH=VALUE` (model::apply_override, then the
// validator) on a shipped profile. Input: one or more override lines. Invariants: a bad
// override or a profile it breaks is a model::ProfileError; split_override never
// returns a pointer that nlohmann::json rejects as syntax.
#include "fuzz/fuzz_util.h"
#include "model/profile_json.h"

#include <fstream>
#include <sstream>

namespace {
const gcu::model::Json& base_profile() {
  static const gcu::model::Json j = [] {
    std::ifstream f(GCU_FUZZ_BASE_PROFILE);
    std::stringstream ss;
    ss << f.rdbuf();
    return gcu::model::parse_json_text(ss.str());
  }();
  return j;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::model;
  std::stringstream in(gcu::fuzz::as_string(data, size));
  Json j = base_profile();
  std::string line;
  int n = 0;
  while (std::getline(in, line) && n++ < 8) {
    try {
      apply_override(j, line);
    } catch (const ProfileError&) {
      return 0;
    }
  }
  try {
    (void)profile_from_json(j);
  } catch (const ProfileError&) {
  }
  return 0;
}
