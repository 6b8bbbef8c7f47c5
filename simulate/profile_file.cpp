// Profile files (profile_file.h).
#include "simulate/profile_file.h"

#include "model/parts.h"
#include "simulate/error.h"
#include "util/output_file.h"

namespace gcu::simulate {

namespace {
model::Json read_json_file(const std::string& path) {
  std::string text;
  try {
    text = util::read_file(path);
  } catch (const util::FileError& e) {
    throw model::ProfileError("", "a readable profile file", e.what(), path);
  }
  try {
    return model::parse_json_text(text);
  } catch (const model::ProfileError& e) {
    throw e.with_file(path);
  }
}

std::string device_of(const model::Json& j) {
  return j.contains("provenance") && j["provenance"].is_object() && j["provenance"].contains("device") &&
                 j["provenance"]["device"].is_string()
             ? j["provenance"]["device"].get<std::string>()
             : std::string();
}
}  // namespace

LoadedProfile load_profile_file(const std::string& path, const std::vector<std::string>& overrides) {
  LoadedProfile out;
  out.path = path;
  out.json = read_json_file(path);
  // A part is not a profile: say what to combine it with.
  std::string kind;
  try {
    kind = model::document_kind(out.json);
  } catch (const model::ProfileError&) {
    kind = "profile";  // the profile reader names the schema problem
  }
  if (kind == "model")
    throw model::ProfileError("/schema", "a profile (a model part needs a system: -p MODEL --system SYSTEM)",
                              "a model part", path);
  if (kind == "system")
    throw model::ProfileError("/schema", "a profile (a system part needs a model: -p MODEL --system SYSTEM)",
                              "a system part", path);
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

CombinedProfile load_combined(const std::string& model_path, const std::string& system_path,
                              const std::vector<std::string>& overrides) {
  const model::Json m = read_json_file(model_path), sys = read_json_file(system_path);
  CombinedProfile out;
  out.model_device = device_of(m);
  out.system_device = device_of(sys);
  out.loaded.path = model_path + " + " + system_path;
  try {
    out.loaded.json = model::combine_parts(m, sys);
  } catch (const model::ProfileError& e) {
    throw e.with_file((e.file().rfind("model", 0) == 0 ? model_path : system_path) + " (" + e.file() + ")");
  }
  for (const auto& o : overrides) {
    try {
      model::apply_override(out.loaded.json, o);
    } catch (const model::ProfileError& e) {
      throw e.with_file(out.loaded.path);
    }
  }
  try {
    out.loaded.profile = model::profile_from_json(out.loaded.json);
  } catch (const model::ProfileError& e) {
    // The field says which part it came from.
    const std::string& f = e.path();
    const bool from_model = f.rfind("/model", 0) == 0 || f.rfind("/ddp", 0) == 0 || f.rfind("/convergence", 0) == 0;
    throw e.with_file(from_model ? model_path : f.rfind("/provenance", 0) == 0 ? out.loaded.path : system_path);
  }
  return out;
}

LoadedProfile load_for_described_system(const std::string& path, const std::vector<std::string>& overrides) {
  const model::Json j = read_json_file(path);
  std::string kind;
  try {
    kind = model::document_kind(j);
  } catch (const model::ProfileError&) {
    kind = "profile";
  }
  if (kind != "model") return load_profile_file(path, overrides);
  model::Json placeholder = {{"schema", model::kSystemPartSchema},
                             {"cluster",
                              {{"nodes", 1},
                               {"gpus_per_node", 1},
                               {"levels",
                                {{"intra", {{"bandwidth_gbps", 1}, {"alpha_s", 0}}},
                                 {"inter", {{"bandwidth_gbps", 1}, {"alpha_s", 0}}}}}}}};
  LoadedProfile out;
  out.path = path;
  try {
    out.json = model::combine_parts(j, placeholder);
    for (const auto& o : overrides) model::apply_override(out.json, o);
    out.profile = model::profile_from_json(out.json);
  } catch (const model::ProfileError& e) {
    throw e.with_file(path);
  }
  return out;
}

void save_profile_file(const model::Profile& p, const std::string& path) {
  util::write_file_atomic(path, model::profile_to_json(p).dump(1) + "\n");
}

}  // namespace gcu::simulate
