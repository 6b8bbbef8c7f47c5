// A profile's model and system parts (parts.h).
#include "model/parts.h"

#include <algorithm>

namespace gcu::model {
namespace {

const char* const kModelKeys[] = {"model", "ddp", "convergence"};
const char* const kSystemKeys[] = {"cluster", "compressors"};

Json pick(const Json& j, const char* schema, const char* const* keys, size_t n) {
  Json out;
  out["schema"] = schema;
  if (j.contains("provenance")) out["provenance"] = j["provenance"];
  for (size_t i = 0; i < n; ++i)
    if (j.contains(keys[i])) out[keys[i]] = j[keys[i]];
  return out;
}

// The part's fields, checked: an object whose schema is the part's (or a whole profile's),
// with no field of the other part.
void check_part(const Json& j, const std::string& which, const char* schema) {
  const std::string label = which + " part";
  if (!j.is_object()) throw ProfileError("", "a JSON object", j.type_name(), label);
  const std::string kind = document_kind(j);
  if (kind != "profile" && kind != which)
    throw ProfileError("/schema", std::string("\"") + schema + "\" (or a whole profile)",
                       "a " + kind + " part", label);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k.empty() || k[0] == '_' || k == "schema" || k == "provenance") continue;
    const bool known = std::find(std::begin(kModelKeys), std::end(kModelKeys), k) != std::end(kModelKeys) ||
                       std::find(std::begin(kSystemKeys), std::end(kSystemKeys), k) != std::end(kSystemKeys);
    if (!known) throw ProfileError("/" + k, "a field of a profile part", "an unknown field", label);
    if (kind != "profile") {
      const bool mine = which == "model"
                            ? std::find(std::begin(kModelKeys), std::end(kModelKeys), k) != std::end(kModelKeys)
                            : std::find(std::begin(kSystemKeys), std::end(kSystemKeys), k) != std::end(kSystemKeys);
      if (!mine) throw ProfileError("/" + k, "a field of the " + which + " part", "a field of the other part", label);
    }
  }
}

Json string_field(const Json& prov, const char* key) {
  return prov.is_object() && prov.contains(key) ? prov[key] : Json();
}

Json merged_provenance(const Json& m, const Json& s) {
  Json out = Json::object();
  const Json ms = string_field(m, "source"), ss = string_field(s, "source");
  if (!ms.is_null() && !ss.is_null() && ms != ss && ms.is_string() && ss.is_string())
    out["source"] = "model: " + ms.get<std::string>() + "; system: " + ss.get<std::string>();
  else if (!ms.is_null()) out["source"] = ms;
  else if (!ss.is_null()) out["source"] = ss;
  const Json sd = string_field(s, "device"), md = string_field(m, "device");
  if (!sd.is_null()) out["device"] = sd;
  else if (!md.is_null()) out["device"] = md;
  for (const char* k : {"date", "command", "libraries"}) {
    const Json mv = string_field(m, k), sv = string_field(s, k);
    if (!mv.is_null()) out[k] = mv;
    else if (!sv.is_null()) out[k] = sv;
  }
  Json lines = Json::array();
  const Json ma = string_field(m, "assumptions"), sa = string_field(s, "assumptions");
  if (ma.is_array())
    for (const auto& l : ma) lines.push_back(l);
  if (sa.is_array())
    for (const auto& l : sa)
      if (std::find(lines.begin(), lines.end(), l) == lines.end()) lines.push_back(l);
  if (!lines.empty()) out["assumptions"] = std::move(lines);
  // Other provenance fields (typos, comments) are the reader's to reject or skip.
  for (const Json* p : {&m, &s})
    if (p->is_object())
      for (auto it = p->begin(); it != p->end(); ++it)
        if (!out.contains(it.key()) && it.key() != "assumptions") out[it.key()] = it.value();
  return out;
}

}  // namespace

std::string document_kind(const Json& j) {
  const Json s = j.is_object() && j.contains("schema") ? j["schema"] : Json();
  if (s == kProfileSchema || s == kProfileSchemaV1) return "profile";
  if (s == kModelPartSchema) return "model";
  if (s == kSystemPartSchema) return "system";
  throw ProfileError("/schema",
                     std::string("\"") + kProfileSchema + "\", \"" + kModelPartSchema + "\" or \"" + kSystemPartSchema +
                         "\"",
                     s.is_null() ? std::string("nothing") : s.dump().substr(0, 80));
}

ProfileParts split_profile(const Profile& p) {
  const Json j = profile_to_json(p);
  return {pick(j, kModelPartSchema, kModelKeys, std::size(kModelKeys)),
          pick(j, kSystemPartSchema, kSystemKeys, std::size(kSystemKeys))};
}

Json combine_parts(const Json& model_part, const Json& system_part) {
  check_part(model_part, "model", kModelPartSchema);
  check_part(system_part, "system", kSystemPartSchema);
  if (!model_part.contains("model")) throw ProfileError("/model", "the model description", "nothing", "model part");
  if (!system_part.contains("cluster"))
    throw ProfileError("/cluster", "the cluster description", "nothing", "system part");
  Json j;
  // A gcu.profile/1 system keeps its reading (its "gamma" is both the stretch and the rate).
  j["schema"] = document_kind(system_part) == "profile" ? system_part["schema"] : Json(kProfileSchema);
  j["provenance"] = merged_provenance(model_part.contains("provenance") ? model_part["provenance"] : Json(),
                                      system_part.contains("provenance") ? system_part["provenance"] : Json());
  j["cluster"] = system_part["cluster"];
  j["model"] = model_part["model"];
  if (model_part.contains("ddp")) j["ddp"] = model_part["ddp"];
  if (system_part.contains("compressors")) j["compressors"] = system_part["compressors"];
  if (model_part.contains("convergence")) j["convergence"] = model_part["convergence"];
  return j;
}

}  // namespace gcu::model
