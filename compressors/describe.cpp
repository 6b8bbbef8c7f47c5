// Scheme descriptions for `gcu schemes` (describe.h).
#include "describe.h"

#include "error_feedback.h"
#include "registry.h"

#include <cerrno>
#include <cstdlib>

namespace gcu::compress {

SchemeDescription describe_scheme(const std::string& spec, const BucketLayout& layout, int world) {
  if (world < 1) throw CompressorError("world size must be >= 1, got " + std::to_string(world));
  auto c = make_compressor(spec);
  SchemeDescription d;
  d.spec = c->spec();
  std::string inner = spec, name;
  check_ef_nesting(inner);
  while (parse_ef_spec(inner, &name)) inner = name;
  const SchemeInfo& info = Registry::instance().find(SchemeArgs::parse(inner).name());
  d.name = info.name;
  d.params = info.params;
  d.summary = info.summary;
  d.calls = c->plan(layout, world);
  d.wire_bytes = c->wire_bytes(layout, world);
  d.fp32_bytes = 4 * layout.numel();
  d.ratio = d.wire_bytes > 0 ? static_cast<double>(d.fp32_bytes) / d.wire_bytes : 0.0;
  d.traits = c->traits();
  return d;
}

std::vector<SchemeDescription> describe_all(const BucketLayout& layout, int world) {
  std::vector<SchemeDescription> out;
  for (const auto& s : Registry::instance().list()) out.push_back(describe_scheme(s.name, layout, world));
  return out;
}

BucketLayout parse_layout(const std::string& text) {
  BucketLayout l;
  size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string tok = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::vector<int64_t> shape;
    size_t p = 0;
    while (p <= tok.size()) {
      const auto x = tok.find('x', p);
      const std::string dim = tok.substr(p, x == std::string::npos ? std::string::npos : x - p);
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(dim.c_str(), &end, 10);
      if (dim.empty() || *end != '\0' || errno == ERANGE || v < 1)
        throw CompressorError("layout '" + text + "': bad tensor shape '" + tok +
                              "' (expected dimensions >= 1 joined by 'x', e.g. 1000x512)");
      shape.push_back(v);
      if (x == std::string::npos) break;
      p = x + 1;
    }
    l.shapes.push_back(shape);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return l;
}

std::string format_calls(const std::vector<CollectiveCall>& calls) {
  if (calls.empty()) return "-";
  std::string s;
  for (const auto& c : calls) {
    if (!s.empty()) s += " + ";
    s += std::string(collective_name(c.kind)) + " " + wire_type_name(c.type) + " x " +
         std::to_string(c.count);
    if (!c.label.empty()) s += " (" + c.label + ")";
  }
  return s;
}

}  // namespace gcu::compress
