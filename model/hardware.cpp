// The hardware catalog (hardware.h): strict reading of data/hardware/*.json (schema
// gcu.hardware/1, docs/hardware.md) and case-insensitive lookup by name or alias.
// Every error names the file and the field as a JSON pointer, what was expected and what
// was found; unknown fields are errors (usually typos).
#include "model/hardware.h"

#include "model/profile_json.h"
#include "util/json_pointer.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <fstream>
#include <map>
#include <sstream>

namespace gcu::model::hw {

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool answers_to(const Gpu& g, const std::string& name) {
  const std::string key = lower_case(name);
  if (lower_case(g.name) == key) return true;
  for (const auto& a : g.aliases)
    if (lower_case(a) == key) return true;
  return false;
}

namespace {

constexpr const char* kSchema = "gcu.hardware/1";

std::string lower(std::string s) { return lower_case(std::move(s)); }

// A value as a message shows it: strings quoted, anything else as compact JSON, capped.
std::string shown(const Json& v) {
  if (v.is_string()) return util::quote(v.get_ref<const std::string&>(), 80);
  return util::printable(v.dump(-1, ' ', false, Json::error_handler_t::replace), 80);
}

// One file being read: `label` ("gpus.json" or a path) prefixes every error.
class FileReader {
 public:
  explicit FileReader(std::string label) : label_(std::move(label)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& got) const {
    throw HardwareError(util::printable(label_, 400) + ": " + (path.empty() ? "(document)" : util::printable(path, 300)) +
                        ": expected " + expected + ", got " + got);
  }

  // `j` at `path` is an object whose keys are all in `required` or `optional`, with every
  // `required` key present.
  void check_object(const Json& j, const std::string& path, std::initializer_list<const char*> required,
                    std::initializer_list<const char*> optional = {}) const {
    if (!j.is_object()) fail(path, "an object", shown(j));
    std::string known;
    for (auto list : {required, optional})
      for (const char* k : list) known += std::string(known.empty() ? "" : ", ") + k;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      const auto is = [&key](const char* k) { return key == k; };
      if (std::none_of(required.begin(), required.end(), is) && std::none_of(optional.begin(), optional.end(), is))
        fail(util::pointer_child(path, key), "one of the fields " + known, "the unknown field " + util::quote(key, 80));
    }
    for (const char* k : required)
      if (!j.contains(k)) fail(util::pointer_child(path, k), "a value (the field is required)", "nothing");
  }

  std::string text(const Json& obj, const std::string& path, const char* key) const {
    const Json& v = obj.at(key);
    if (!v.is_string() || v.get_ref<const std::string&>().empty())
      fail(util::pointer_child(path, key), "a non-empty string", shown(v));
    return v.get<std::string>();
  }

  // A finite number > 0, or >= 0 when `zero_ok` ("0: none").
  double number(const Json& obj, const std::string& path, const char* key, bool zero_ok = false) const {
    const Json& v = obj.at(key);
    const bool ok = v.is_number() && std::isfinite(v.get<double>()) && (zero_ok ? v.get<double>() >= 0 : v.get<double>() > 0);
    if (!ok) fail(util::pointer_child(path, key), zero_ok ? "a number >= 0" : "a number > 0", shown(v));
    return v.get<double>();
  }

  // A name users type: [a-z0-9._+-]+ (any case for an alias), unique over the file's names
  // and aliases ignoring case.
  std::string name(const Json& v, const std::string& path, bool lower_only) {
    bool ok = v.is_string() && !v.get_ref<const std::string&>().empty() && v.get_ref<const std::string&>().size() <= 64;
    if (ok)
      for (const char c : v.get_ref<const std::string&>())
        ok = ok && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
                    c == '.' || c == '_' || c == '+' || c == '-' || (!lower_only && std::isupper(static_cast<unsigned char>(c))));
    if (!ok)
      fail(path, lower_only ? "a name of 1 to 64 characters a-z 0-9 . _ + -" : "an alias of 1 to 64 characters A-Z a-z 0-9 . _ + -",
           shown(v));
    const std::string s = v.get<std::string>();
    const auto [it, fresh] = seen_.emplace(lower(s), path);
    if (!fresh) fail(path, "names and aliases unique in the file (ignoring case)", util::quote(s, 80) + " again (first at " + it->second + ")");
    return s;
  }

  std::vector<std::string> aliases(const Json& obj, const std::string& path) {
    std::vector<std::string> out;
    if (!obj.contains("aliases")) return out;
    const std::string p = util::pointer_child(path, "aliases");
    const Json& a = obj.at("aliases");
    if (!a.is_array()) fail(p, "an array of names", shown(a));
    for (size_t i = 0; i < a.size(); ++i) out.push_back(name(a[i], util::pointer_child(p, i), false));
    return out;
  }

  std::vector<Source> sources(const Json& obj, const std::string& path) const {
    const std::string p = util::pointer_child(path, "sources");
    const Json& a = obj.at("sources");
    if (!a.is_array() || a.empty()) fail(p, "a non-empty array of {\"title\", \"url\"} (every figure has a public source)", shown(a));
    std::vector<Source> out;
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string sp = util::pointer_child(p, i);
      check_object(a[i], sp, {"title", "url"});
      Source s{text(a[i], sp, "title"), text(a[i], sp, "url")};
      if (s.url.rfind("https://", 0) != 0 && s.url.rfind("http://", 0) != 0)
        fail(util::pointer_child(sp, "url"), "an http:// or https:// URL", util::quote(s.url, 80));
      out.push_back(std::move(s));
    }
    return out;
  }

  std::string note(const Json& obj, const std::string& path) const {
    return obj.contains("note") ? text(obj, path, "note") : std::string();
  }

  // The document: {"schema": "gcu.hardware/1", "<list_key>": [...]}; returns the list.
  const Json& entries(const Json& doc, const char* list_key) const {
    check_object(doc, "", {"schema", list_key});
    const Json& schema = doc.at("schema");
    if (schema != kSchema) fail("/schema", util::quote(kSchema), shown(schema));
    const Json& list = doc.at(list_key);
    if (!list.is_array()) fail(util::pointer_child("", list_key), "an array of entries", shown(list));
    return list;
  }

 private:
  std::string label_;
  std::map<std::string, std::string> seen_;  // lower-cased name or alias -> where
};

Json parse_text(const std::string& text, const std::string& label) {
  try {
    return parse_json_text(text);  // depth limit, duplicate keys, 1e999 (model/json_text.cpp)
  } catch (const ProfileError& e) {
    throw HardwareError(e.with_file(label).what());
  }
}

std::vector<Gpu> read_gpus(const std::string& text, const std::string& label) {
  FileReader r(label);
  const Json doc = parse_text(text, label);
  const Json& list = r.entries(doc, "gpus");
  std::vector<Gpu> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = util::pointer_child("/gpus", i);
    const Json& e = list[i];
    r.check_object(e, p,
                   {"name", "vendor_name", "fp32_flops", "tf32_flops", "bf16_flops", "fp16_flops", "memory_bytes_per_s",
                    "memory_bytes", "sources"},
                   {"aliases", "note", "intra_link"});
    Gpu g;
    g.name = r.name(e.at("name"), util::pointer_child(p, "name"), true);
    g.vendor_name = r.text(e, p, "vendor_name");
    g.fp32_flops = r.number(e, p, "fp32_flops");
    g.tf32_flops = r.number(e, p, "tf32_flops", true);
    g.bf16_flops = r.number(e, p, "bf16_flops", true);
    g.fp16_flops = r.number(e, p, "fp16_flops");
    g.memory_bytes_per_s = r.number(e, p, "memory_bytes_per_s");
    g.memory_bytes = r.number(e, p, "memory_bytes");
    g.aliases = r.aliases(e, p);
    g.sources = r.sources(e, p);
    g.note = r.note(e, p);
    if (e.contains("intra_link")) g.intra_link = r.text(e, p, "intra_link");
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Link> read_links(const std::string& text, const std::string& label, LinkKind kind) {
  FileReader r(label);
  const char* key = kind == LinkKind::IntraNode ? "intra_links" : "nics";
  const Json doc = parse_text(text, label);
  const Json& list = r.entries(doc, key);
  std::vector<Link> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = util::pointer_child(util::pointer_child("", key), i);
    const Json& e = list[i];
    r.check_object(e, p, {"name", "description", "bandwidth_gbps", "latency_s", "sources"}, {"aliases", "note"});
    Link l;
    l.kind = kind;
    l.name = r.name(e.at("name"), util::pointer_child(p, "name"), true);
    l.description = r.text(e, p, "description");
    l.bandwidth_gbps = r.number(e, p, "bandwidth_gbps");
    l.latency_s = r.number(e, p, "latency_s");
    l.aliases = r.aliases(e, p);
    l.sources = r.sources(e, p);
    l.note = r.note(e, p);
    out.push_back(std::move(l));
  }
  return out;
}

template <class Entry>
const Entry& find(const std::vector<Entry>& entries, const std::string& name, const char* what) {
  const std::string key = lower(name);
  std::vector<std::string> candidates;
  for (const Entry& e : entries) {
    if (lower(e.name) == key) return e;
    for (const auto& a : e.aliases)
      if (lower(a) == key) return e;
    candidates.push_back(e.name);
  }
  std::string msg = std::string("unknown ") + what + " '" + util::printable(name, 80) + "'; known: " + known_names(entries);
  if (const std::string near = util::did_you_mean(key, candidates); !near.empty()) msg += "; did you mean '" + near + "'?";
  throw HardwareError(msg);
}

template <class Entry>
std::string join_names(const std::vector<Entry>& entries) {
  std::string out;
  for (const Entry& e : entries) out += (out.empty() ? "" : ", ") + e.name;
  return out.empty() ? "(none)" : out;
}

Json sources_json(const std::vector<Source>& sources) {
  Json a = Json::array();
  for (const auto& s : sources) a.push_back({{"title", s.title}, {"url", s.url}});
  return a;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw HardwareError(util::printable(path.string(), 400) + ": cannot read the file (set GCU_HARDWARE_DIR to the catalog folder)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

const Gpu& Catalog::gpu(const std::string& name) const { return find(gpus, name, "GPU"); }
const Link& Catalog::intra_link(const std::string& name) const { return find(intra_links, name, "intra-node link"); }
const Link& Catalog::nic(const std::string& name) const { return find(nics, name, "NIC"); }

std::string known_names(const std::vector<Gpu>& gpus) { return join_names(gpus); }
std::string known_names(const std::vector<Link>& links) { return join_names(links); }

// A GPU's intra_link names an entry of intra_links.json.
Catalog checked(Catalog c, const std::string& gpus_label) {
  for (size_t i = 0; i < c.gpus.size(); ++i) {
    if (c.gpus[i].intra_link.empty()) continue;
    try {
      c.intra_link(c.gpus[i].intra_link);
    } catch (const HardwareError& e) {
      throw HardwareError(gpus_label + ": " + util::pointer_child(util::pointer_child("/gpus", i), "intra_link") +
                          ": " + e.what());
    }
  }
  return c;
}

Catalog parse_catalog(const std::string& gpus_json, const std::string& intra_json, const std::string& nics_json) {
  return checked({read_gpus(gpus_json, "gpus.json"), read_links(intra_json, "intra_links.json", LinkKind::IntraNode),
                  read_links(nics_json, "nics.json", LinkKind::Nic)},
                 "gpus.json");
}

Catalog load_catalog(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  return checked({read_gpus(read_file(d / "gpus.json"), (d / "gpus.json").string()),
                  read_links(read_file(d / "intra_links.json"), (d / "intra_links.json").string(),
                             LinkKind::IntraNode),
                  read_links(read_file(d / "nics.json"), (d / "nics.json").string(), LinkKind::Nic)},
                 (d / "gpus.json").string());
}

Json gpu_to_json(const Gpu& g) {
  Json j = {{"name", g.name},
            {"vendor_name", g.vendor_name},
            {"fp32_flops", g.fp32_flops},
            {"tf32_flops", g.tf32_flops},
            {"bf16_flops", g.bf16_flops},
            {"fp16_flops", g.fp16_flops},
            {"memory_bytes_per_s", g.memory_bytes_per_s},
            {"memory_bytes", g.memory_bytes},
            {"aliases", g.aliases},
            {"sources", sources_json(g.sources)}};
  if (!g.note.empty()) j["note"] = g.note;
  if (!g.intra_link.empty()) j["intra_link"] = g.intra_link;
  return j;
}

Json link_to_json(const Link& l) {
  Json j = {{"name", l.name},
            {"description", l.description},
            {"bandwidth_gbps", l.bandwidth_gbps},
            {"latency_s", l.latency_s},
            {"aliases", l.aliases},
            {"sources", sources_json(l.sources)}};
  if (!l.note.empty()) j["note"] = l.note;
  return j;
}

std::string default_catalog_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("GCU_HARDWARE_DIR"); env && *env) return env;
  std::error_code ec;
#ifdef GCU_HARDWARE_DIR
  if (fs::is_directory(GCU_HARDWARE_DIR, ec)) return GCU_HARDWARE_DIR;
#endif
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / ".." / "share" / "gcu" / "hardware";
    if (fs::is_directory(installed, ec)) return installed.lexically_normal().string();
  }
#ifdef GCU_HARDWARE_DIR
  return GCU_HARDWARE_DIR;  // missing: load_catalog's error names it
#else
  return "data/hardware";
#endif
}

}  // namespace gcu::model::hw
