// JSON pointers as strings (json_pointer.h).
#include "util/json_pointer.h"

namespace gcu::util {

std::string escape_pointer_key(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string pointer_child(const std::string& path, std::string_view key) {
  return path + "/" + escape_pointer_key(key);
}

std::string pointer_child(const std::string& path, size_t index) { return path + "/" + std::to_string(index); }

std::string dotted_to_pointer(std::string_view path) {
  if (path.empty() || path[0] == '/') return std::string(path);
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t dot = path.find('.', pos);
    const std::string_view seg = path.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    if (seg.empty()) return "";
    out.push_back('/');
    out.append(escape_pointer_key(seg));
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return out;
}

}  // namespace gcu::util
