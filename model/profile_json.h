// JSON reading, validation and writing of profiles, schema "gcu.profile/2"
// (docs/profile-schema.md). Pure: works on JSON values and strings, never on files
// (simulate/profile_file.h reads and writes files, atomically).
//
//   auto j = nlohmann::ordered_json::parse(text);
//   apply_override(j, "/cluster/gamma=1.1");      // or "cluster.gamma=1.1"
//   Profile p = profile_from_json(j);             // throws ProfileError
//   std::string s = profile_to_json(p).dump(2);
//
// Validation is strict and precise: every error names the field as a JSON pointer
// (/cluster/levels/inter/bandwidth_gbps), what was expected and what was found.
// Unknown fields are errors (they are usually typos); keys starting with "_" are
// comments and are ignored.
#pragma once

#include "model/profile.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gcu::model {

using Json = nlohmann::ordered_json;

// A profile that is malformed or inconsistent. what() is
//   "<file>: <path>: expected <expected>, got <got>"   (file omitted when unknown)
// e.g. "v100.json: /cluster/gamma: expected a number >= 1, got 0.9". The model library's
// one error type (ModelError) with the offending field's location.
class ProfileError : public ModelError {
 public:
  ProfileError(std::string path, std::string expected, std::string got, std::string file = "");
  const std::string& path() const { return path_; }        // JSON pointer; "" = the root
  const std::string& expected() const { return expected_; }
  const std::string& got() const { return got_; }
  const std::string& file() const { return file_; }
  ProfileError with_file(const std::string& file) const {
    return ProfileError(path_, expected_, got_, file);
  }

 private:
  std::string path_, expected_, got_, file_;
};

// Parses and validates. `text` is the whole document. Syntax errors, nesting deeper than
// kMaxJsonDepth, a key given twice in an object and a number that overflows a double
// (1e999) are ProfileErrors naming the JSON pointer where the parser was (and the byte
// position for syntax errors); user text in messages is quoted (util/text.h).
inline constexpr size_t kMaxJsonDepth = 64;
Profile profile_from_string(std::string_view text);
Json parse_json_text(std::string_view text);  // syntax only; throws ProfileError
Profile profile_from_json(const Json& j);

// Consistency checks on a Profile already in memory (also run by profile_from_json):
// tensors sum to parameters, ready_s shape and order, unique batch sizes, gamma >= 1,
// positive bandwidths, ... Paths name the JSON field the problem would be in.
void validate_profile(const Profile& p);

// A collective floor's (profile.h CollectiveFloor) first problem, or nullopt: the field below
// the floor object ("/elements/1"), what it should be and what it is. The profile's
// validation and calibrate's state reader both check a floor with it.
struct FieldProblem {
  std::string field, expected, got;
};
std::optional<FieldProblem> collective_floor_problem(const CollectiveFloor& f);
// The floor as the profile and calibrate's state write it.
Json collective_floor_to_json(const CollectiveFloor& f);

// Writes every field (optional ones only when set); schema first. Round trip:
// profile_from_json(profile_to_json(p)) == p field by field.
Json profile_to_json(const Profile& p);

// Command-line override "PATH=VALUE" applied to the JSON before validation.
// PATH is a JSON pointer ("/cluster/levels/inter/bandwidth_gbps") or a dotted path
// ("cluster.levels.inter.bandwidth_gbps"; array elements by index:
// "model.compute.0.backward_s"); keys that contain '.' or '/' (e.g. "topk:k=0.01") need
// the pointer form. Keys may contain '=' too, so the split is chosen with the document:
// among the '=' signs, right to left, the first whose left part is an existing field,
// else the first whose left part's parent exists, else the last '='.
// VALUE is read as JSON when it parses (1.1, true, [1,2], "text", {"a":1}), otherwise as
// a plain string (76% top-1). Missing objects along the path are created. Throws
// ProfileError naming the override when it is malformed.
void apply_override(Json& j, const std::string& assignment);

// The (JSON pointer, value text) that apply_override would use; exposed for tests.
std::pair<std::string, std::string> split_override(const Json& j, const std::string& assignment);

}  // namespace gcu::model
