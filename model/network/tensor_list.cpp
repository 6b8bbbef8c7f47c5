// Tensor lists ("tensors:PATH", network.h parse_tensor_list): a model described by its
// parameter tensors in BACKWARD order, as gcu profiles list them.
//
// CSV: a header naming the columns, then one tensor per line; blank lines and lines
// starting with '#' are skipped; fields may be double-quoted (a shape "[768, 3072]").
//   name           required; unique
//   shape          required; 768x3072, 768, [768, 3072] or [] (a scalar); dimensions >= 1
//   forward_flops  optional; forward FLOPs per sample of the tensor's layer (>= 0, may be
//                  empty); the network has work (has_work) only when every row gives it
//   layer          optional; adjacent rows with the same non-empty value form one layer
//                  (its forward_flops is the sum of its rows'); otherwise one layer per tensor
// JSON: {"tensors": [{"name": ..., "shape": [768, 3072] or "768x3072", "forward_flops": ...,
// "layer": ...}, ...]}; keys starting with "_" are comments; any other key is an error.
//
// Layers are the rows reversed (forward order). Work of a layer with FLOPs f: backward
// 2 x f (weight and input gradient; f for the first layer in forward order), weights read
// and gradients written 2 x its elements, no activation traffic (the list does not say),
// kernels as a linear layer (family.h).
#include "model/network/family.h"

#include "model/profile_json.h"
#include "util/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

namespace gcu::model::net {
namespace detail::tensor_list_impl {

constexpr size_t kMaxFileBytes = 64u << 20;
constexpr int64_t kMaxDim = int64_t{1} << 40;

struct Row {
  std::string name;
  std::vector<int64_t> shape;
  std::optional<double> flops;
  std::string layer;
  std::string where;  // "model.csv:3" or "model.json: /tensors/2"
};

std::string strip(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

[[noreturn]] void bad(const std::string& where, const std::string& message) { throw NetworkError(where + ": " + message); }

int64_t parse_dim(const std::string& text, const std::string& where, const std::string& shape) {
  const std::string s = strip(text);
  int64_t d = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || s[0] == '-' || s[0] == '+')
    bad(where, "shape " + util::quote(shape) + ": expected dimensions like 768x3072 or [768, 3072]");
  if (d < 1 || d > kMaxDim) bad(where, "shape " + util::quote(shape) + ": dimension " + s + " is out of range [1, 2^40]");
  return d;
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& where) {
  const std::string s = strip(text);
  std::string inner = s;
  char sep = 'x';
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') bad(where, "shape " + util::quote(s) + ": missing ']'");
    inner = strip(s.substr(1, s.size() - 2));
    if (inner.empty()) return {};  // a scalar
    sep = ',';
  }
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (true) {
    const size_t next = inner.find(sep, pos);
    dims.push_back(parse_dim(inner.substr(pos, next == std::string::npos ? std::string::npos : next - pos), where, s));
    if (dims.size() > 8) bad(where, "shape " + util::quote(s) + ": more than 8 dimensions");
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  double n = 1;
  for (const int64_t d : dims) n *= static_cast<double>(d);
  if (n > kMaxParameters) bad(where, "shape " + util::quote(s) + ": more than 1e13 elements");
  return dims;
}

double check_flops(double f, const std::string& where, const std::string& text) {
  if (!std::isfinite(f) || f < 0 || f > 1e30)
    bad(where, "forward_flops " + util::quote(text) + ": expected a number >= 0 (at most 1e30)");
  return f;
}

std::optional<double> parse_flops(const std::string& text, const std::string& where) {
  const std::string s = strip(text);
  if (s.empty()) return std::nullopt;
  double f = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), f);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    bad(where, "forward_flops " + util::quote(s) + ": expected a number >= 0");
  return check_flops(f, where, s);
}

// One CSV line into fields; double quotes group, "" inside quotes is one quote.
std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false, closed = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') fields.back() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
      else quoted = false, closed = true;
    } else if (c == ',') {
      fields.emplace_back();
      closed = false;
    } else if (c == '"' && strip(fields.back()).empty() && !closed) {
      fields.back().clear();
      quoted = true;
    } else if (closed && c != ' ' && c != '\t' && c != '\r') {
      bad(where, "text after a closing quote");
    } else if (!closed) {
      fields.back() += c;
    }
  }
  if (quoted) bad(where, "unterminated quote");
  return fields;
}

std::vector<Row> read_csv(const std::string& text, const std::string& label) {
  static const std::vector<std::string> known = {"name", "shape", "forward_flops", "layer"};
  std::map<std::string, size_t> col;  // column name -> index
  size_t ncols = 0;
  std::vector<Row> rows;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++line_no;
    const std::string where = label + ":" + std::to_string(line_no);
    const std::string s = strip(line);
    if (s.empty() || s[0] == '#') continue;
    const std::vector<std::string> f = split_csv(line, where);
    if (col.empty()) {  // the header
      for (size_t i = 0; i < f.size(); ++i) {
        const std::string c = strip(f[i]);
        if (std::find(known.begin(), known.end(), c) == known.end())
          bad(where, "unknown column " + util::quote(c) + "; columns: name, shape, forward_flops, layer");
        if (!col.emplace(c, i).second) bad(where, "column " + c + " is given twice");
      }
      if (!col.count("name") || !col.count("shape")) bad(where, "the header needs the columns name and shape");
      ncols = f.size();
      continue;
    }
    if (f.size() != ncols)
      bad(where, "expected " + std::to_string(ncols) + " fields (as the header), got " + std::to_string(f.size()));
    if (rows.size() >= static_cast<size_t>(kMaxTensors)) bad(where, "more than 1000000 tensors: refused");
    Row r;
    r.where = where;
    r.name = strip(f[col["name"]]);
    if (r.name.empty()) bad(where, "empty name");
    r.shape = parse_shape(f[col["shape"]], where);
    if (col.count("forward_flops")) r.flops = parse_flops(f[col["forward_flops"]], where);
    if (col.count("layer")) r.layer = strip(f[col["layer"]]);
    rows.push_back(std::move(r));
  }
  if (col.empty()) bad(label, "no header line (expected name,shape[,forward_flops][,layer])");
  return rows;
}

std::vector<Row> read_json(const std::string& text, const std::string& label) {
  Json j;
  try {
    j = parse_json_text(text);
  } catch (const ProfileError& e) {
    bad(label, e.what());
  }
  if (!j.is_object()) bad(label, "expected a JSON object {\"tensors\": [...]}");
  for (const auto& [k, v] : j.items())
    if (k != "tensors" && (k.empty() || k[0] != '_'))
      bad(label, "/" + util::printable(k) + ": unknown key (expected \"tensors\")");
  if (!j.contains("tensors") || !j["tensors"].is_array()) bad(label, "/tensors: expected an array of tensors");
  const Json& ts = j["tensors"];
  if (ts.size() > static_cast<size_t>(kMaxTensors)) bad(label, "/tensors: more than 1000000 tensors: refused");
  std::vector<Row> rows;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Json& t = ts[i];
    Row r;
    r.where = label + ": /tensors/" + std::to_string(i);
    if (!t.is_object()) bad(r.where, "expected an object {\"name\", \"shape\"}");
    for (const auto& [k, v] : t.items()) {
      const std::string at = r.where + "/" + util::printable(k);
      if (k == "name") {
        if (!v.is_string() || v.get<std::string>().empty()) bad(at, "expected a non-empty string");
        r.name = v.get<std::string>();
      } else if (k == "shape") {
        if (v.is_string()) {
          r.shape = parse_shape(v.get<std::string>(), at);
          continue;
        }
        if (!v.is_array() || v.size() > 8) bad(at, "expected an array of at most 8 dimensions or a string 768x3072");
        double n = 1;
        for (const auto& d : v) {
          if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > kMaxDim)
            bad(at, "expected dimensions that are whole numbers in [1, 2^40], got " + util::printable(d.dump()));
          r.shape.push_back(d.get<int64_t>());
          n *= static_cast<double>(r.shape.back());
        }
        if (n > kMaxParameters) bad(at, "more than 1e13 elements");
      } else if (k == "forward_flops") {
        if (!v.is_number()) bad(at, "expected a number >= 0");
        r.flops = check_flops(v.get<double>(), at, v.dump());
      } else if (k == "layer") {
        if (!v.is_string()) bad(at, "expected a string");
        r.layer = v.get<std::string>();
      } else if (k.empty() || k[0] != '_') {
        bad(at, "unknown key (expected name, shape, forward_flops, layer)");
      }
    }
    if (r.name.empty()) bad(r.where, "missing \"name\"");
    if (!t.contains("shape")) bad(r.where, "missing \"shape\"");
    rows.push_back(std::move(r));
  }
  return rows;
}

// Rows (backward order) into layers (forward order).
Network assemble(const std::vector<Row>& rows, const std::string& label) {
  if (rows.empty()) bad(label, "no tensors");
  std::map<std::string, const Row*> seen_name, seen_layer;
  bool all_flops = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (auto [it, fresh] = seen_name.emplace(r.name, &r); !fresh)
      bad(r.where, "tensor " + util::quote(r.name) + " is listed twice (first at " + it->second->where + ")");
    if (!r.layer.empty() && (i == 0 || rows[i - 1].layer != r.layer))
      if (auto [it, fresh] = seen_layer.emplace(r.layer, &r); !fresh)
        bad(r.where, "layer " + util::quote(r.layer) + " appears again after other layers (first at " +
                         it->second->where + "); a layer's tensors must be adjacent");
    all_flops = all_flops && r.flops.has_value();
  }
  Builder b(label);
  size_t end = rows.size();  // walk groups from the last row (the first layer to run)
  while (end > 0) {
    size_t begin = end - 1;
    if (!rows[begin].layer.empty())
      while (begin > 0 && rows[begin - 1].layer == rows[begin].layer) --begin;
    Layer l;
    l.name = rows[begin].layer.empty() ? rows[begin].name : rows[begin].layer;
    l.kind = LayerKind::Other;
    double flops = 0, elements = 0;
    for (size_t i = end; i-- > begin;) {  // registration order: reverse of backward order
      l.params.push_back(TensorInfo{rows[i].name, rows[i].shape});
      elements += static_cast<double>(l.params.back().numel());
      flops += rows[i].flops.value_or(0);
    }
    const double passes = end == rows.size() ? 1 : 2;
    l.forward_flops = all_flops ? flops : 0;
    l.backward_flops = all_flops ? flops * passes : 0;
    l.weight_elements = 2 * elements;
    l.kernels = 1 + static_cast<int>(passes);
    b.add(std::move(l));
    end = begin;
  }
  Network n;
  n.spec = "tensors:" + label;
  n.family = "tensors";
  n.layers = b.take();
  n.has_work = all_flops;
  n.description = "tensors: " + std::to_string(rows.size()) + " tensors in " + std::to_string(n.layers.size()) +
                  " layers, " + std::to_string(b.parameters()) + " parameters, from " + util::printable(label);
  n.sample = all_flops ? "1 sample, as the list's forward_flops count it" : "1 sample (the list gives no FLOPs)";
  n.notes = {"tensor list: activation traffic unknown (0); backward FLOPs = 2 x forward (1 x for the first layer)"};
  if (!all_flops) n.notes.push_back("no forward_flops on every row: no work, ready times follow parameter counts");
  return n;
}

enum class Format { Sniff, Csv, Json };

Network parse(const std::string& text, const std::string& label, Format format) {
  if (text.size() > kMaxFileBytes) bad(label, "larger than 64 MiB");
  std::string body = text;
  if (body.rfind("\xEF\xBB\xBF", 0) == 0) body.erase(0, 3);  // UTF-8 byte order mark
  if (format == Format::Sniff) {
    const auto first = body.find_first_not_of(" \t\r\n");
    format = first != std::string::npos && body[first] == '{' ? Format::Json : Format::Csv;
  }
  return assemble(format == Format::Json ? read_json(body, label) : read_csv(body, label), label);
}

}  // namespace detail::tensor_list_impl

Network parse_tensor_list(const std::string& text, const std::string& label) {
  return detail::tensor_list_impl::parse(text, label, detail::tensor_list_impl::Format::Sniff);
}

namespace detail {

FamilyInfo tensors_family() {
  return {"tensors", "tensors:PATH",
          "A CSV or JSON list of parameter tensors in backward order (as gcu profiles list them). CSV header: "
          "name,shape[,forward_flops][,layer]; shape 768x3072 or \"[768, 3072]\"; forward_flops per sample "
          "(every row, or the network has no work and needs --step-time); adjacent rows with one layer value "
          "form one layer. JSON: {\"tensors\": [{\"name\", \"shape\", \"forward_flops\", \"layer\"}]}. At most "
          "64 MiB and 1,000,000 tensors."};
}

Network read_tensor_list_file(const std::string& path) {
  using namespace tensor_list_impl;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) bad("tensors", util::quote(path) + " is a folder, not a tensor list");
  std::ifstream f(path, std::ios::binary);
  if (!f) bad("tensors", "cannot open " + util::quote(path));
  std::string text;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    text.append(buf, static_cast<size_t>(f.gcount()));
    if (text.size() > kMaxFileBytes) bad(path, "larger than 64 MiB");
  }
  if (f.bad()) bad("tensors", "cannot read " + util::quote(path));
  const std::string ext = fs::path(path).extension().string();
  return parse(text, path, ext == ".json" ? Format::Json : ext == ".csv" ? Format::Csv : Format::Sniff);
}

}  // namespace detail
}  // namespace gcu::model::net
