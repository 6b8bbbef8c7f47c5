// A profile's two parts (docs/profile-schema.md "Parts"): the MODEL part (what the network
// is and how it computes: model, ddp, convergence) and the SYSTEM part (the cluster and
// the codecs' costs on its GPUs: cluster, compressors), each with its provenance, as
// ASTRA-sim and Calculon keep workload and system apart. `gcu simulate -p MODEL --system
// SYSTEM` combines any two; `gcu calibrate --model-part/--system-part` writes both; the
// shipped V100 study is three model parts and one p3.8xlarge system part
// (data/parts/), which combine into data/profiles/v100-*.json exactly.
//
// Combining works on the JSON and the result is read (and validated) as a profile, so a
// part's errors name the part and its field. Provenance: the system's device; the model's
// source, date, command and libraries (the system's where the model has none; two different
// sources are both named); the model's assumption lines, then the system's it lacks. Parts
// split from one profile therefore combine back into it exactly.
#pragma once

#include "model/profile_json.h"

#include <string>

namespace gcu::model {

inline constexpr const char* kModelPartSchema = "gcu.model-part/1";
inline constexpr const char* kSystemPartSchema = "gcu.system-part/1";

// "profile" (gcu.profile/1 or /2), "model" or "system" from a document's schema; throws
// ProfileError for anything else.
std::string document_kind(const Json& j);

struct ProfileParts {
  Json model;   // {schema, provenance, model, ddp, convergence}
  Json system;  // {schema, provenance, cluster, compressors}
};
ProfileParts split_profile(const Profile& p);

// The profile JSON of a model part (or a whole profile, whose system is ignored) and a
// system part (or a whole profile, whose model is ignored). Throws ProfileError naming the
// part ("model part: /model: ...") when one is not the kind asked for or lacks a field.
Json combine_parts(const Json& model_part, const Json& system_part);

}  // namespace gcu::model
