// JSON pointers (RFC 6901) as plain strings, for error messages that name a field:
// "/cluster/levels/inter/bandwidth_gbps". Shared by the profile reader, the validator and
// command-line overrides (--set).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gcu::util {

// A key escaped for a pointer segment: '~' -> "~0", '/' -> "~1".
std::string escape_pointer_key(std::string_view key);

// `path` + "/" + escaped key, or + "/" + index.
std::string pointer_child(const std::string& path, std::string_view key);
std::string pointer_child(const std::string& path, size_t index);

// "cluster.levels.inter" -> "/cluster/levels/inter"; a path starting with '/' (or empty)
// is returned unchanged. Returns "" for an empty dotted segment ("a..b", ".a", "a.").
std::string dotted_to_pointer(std::string_view path);

}  // namespace gcu::util
