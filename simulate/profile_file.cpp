// Profile files (profile_file.h).
#include "simulate/profile_file.h"

#include "simulate/error.h"
#include "util/output_file.h"

namespace gcu::simulate {

LoadedProfile load_profile_file(const std::string& path, const std::vector<std::string>& overrides) {
  LoadedProfile out;
  out.path = path;
  std::string text;
  try {
    text = util::read_file(path);
  } catch (const util::FileError& e) {
    throw model::ProfileError("", "a readable profile file", e.what(), path);
  }
  try {
    out.json = model::parse_json_text(text);
  } catch (const model::ProfileError& e) {
    throw e.with_file(path);
  }
  std::string label = path;
  for (const auto& o : overrides) {
    try {
      model::apply_override(out.json, o);
    } catch (const model::ProfileError& e) {
      throw e.with_file(path);
    }
  }
  try {
    out.profile = model::profile_from_json(out.json);
  } catch (const model::ProfileError& e) {
    // Name the override that touched the offending field, if any.
    for (const auto& o : overrides) {
      const auto [ptr, value] = model::split_override(out.json, o);
      if (!ptr.empty() && e.path().rfind(ptr, 0) == 0) throw e.with_file(path + " (with --set " + o + ")");
    }
    throw e.with_file(path);
  }
  return out;
}

void save_profile_file(const model::Profile& p, const std::string& path) {
  util::write_file_atomic(path, model::profile_to_json(p).dump(1) + "\n");
}

}  // namespace gcu::simulate
