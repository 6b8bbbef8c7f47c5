// The network registry (network.h): spec parsing ("family:key=value,...", presets with
// overrides, "tensors:PATH"), the family table, and the shared pieces of the generators
// (Args, Builder; family.h states the work conventions they apply).
#include "model/network/family.h"

#include "util/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gcu::model::net {

const char* layer_kind_name(LayerKind k) {
  switch (k) {
    case LayerKind::Linear: return "linear";
    case LayerKind::Conv2d: return "conv2d";
    case LayerKind::Norm: return "norm";
    case LayerKind::Embedding: return "embedding";
    case LayerKind::Attention: return "attention";
    case LayerKind::Other: return "other";
  }
  return "other";
}

int64_t Network::parameters() const {
  int64_t n = 0;
  for (const auto& l : layers)
    for (const auto& t : l.params) n += t.numel();
  return n;
}

std::vector<TensorInfo> Network::tensors_backward() const {
  std::vector<TensorInfo> out;
  for (auto l = layers.rbegin(); l != layers.rend(); ++l)
    for (auto t = l->params.rbegin(); t != l->params.rend(); ++t) out.push_back(*t);
  return out;
}

double Network::forward_flops() const {
  double f = 0;
  for (const auto& l : layers) f += l.forward_flops;
  return f;
}

double Network::backward_flops() const {
  double f = 0;
  for (const auto& l : layers) f += l.backward_flops;
  return f;
}

namespace detail {

void fail(const std::string& label, const std::string& message) {
  throw NetworkError(label + ": " + message);
}

namespace {

std::string trim_spaces(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string join_names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

KeyValues parse_key_values(const std::string& label, const std::string& text) {
  KeyValues kv;
  size_t pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      fail(label, "expected key=value, got " + util::quote(item));
    const std::string key = trim_spaces(item.substr(0, eq)), value = trim_spaces(item.substr(eq + 1));
    if (key.empty()) fail(label, "empty key in " + util::quote(item));
    if (value.empty()) fail(label, "key " + util::quote(key) + " has no value");
    for (const auto& [k, v] : kv)
      if (k == key) fail(label, "key " + util::quote(key) + " is given twice");
    kv.emplace_back(key, value);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return kv;
}

Args::Args(std::string label, std::string family, const KeyValues& given, std::vector<std::string> known)
    : label_(std::move(label)), family_(std::move(family)), given_(given) {
  for (const auto& [k, v] : given_) {
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    const std::string guess = util::did_you_mean(k, known);
    fail("unknown key " + util::quote(k) + (guess.empty() ? "" : " (did you mean " + guess + "?)") +
         "; " + family_ + " keys: " + join_names(known));
  }
}

const std::string* Args::given(const std::string& key) const {
  for (const auto& [k, v] : given_)
    if (k == key) return &v;
  return nullptr;
}

bool Args::has(const std::string& key) const { return given(key) != nullptr; }

int64_t Args::integer(const std::string& key, std::optional<int64_t> def, int64_t lo, int64_t hi) {
  const std::string* v = given(key);
  int64_t x = 0;
  if (v == nullptr) {
    if (!def) fail("missing " + key + "= (required)");
    x = *def;
  } else {
    const char* b = v->data();
    const char* e = b + v->size();
    const auto r = std::from_chars(b, e, x);
    if (r.ec != std::errc() || r.ptr != e || (*v)[0] == '-' || (*v)[0] == '+')
      fail(key + "=" + util::printable(*v) + " is not a whole number");
  }
  if (x < lo || x > hi)
    fail(key + "=" + std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  resolved_.emplace_back(key, std::to_string(x));
  return x;
}

bool Args::flag(const std::string& key, bool def) {
  const std::string* v = given(key);
  bool x = def;
  if (v != nullptr) {
    if (*v == "true") x = true;
    else if (*v == "false") x = false;
    else fail(key + "=" + util::printable(*v) + " must be true or false");
  }
  resolved_.emplace_back(key, x ? "true" : "false");
  return x;
}

std::string Args::choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed) {
  const std::string* v = given(key);
  const std::string x = v != nullptr ? *v : def;
  if (std::find(allowed.begin(), allowed.end(), x) == allowed.end())
    fail(key + "=" + util::printable(x) + " must be one of " + join_names(allowed));
  resolved_.emplace_back(key, x);
  return x;
}

std::string Args::canonical() const {
  std::string s = family_;
  for (size_t i = 0; i < resolved_.size(); ++i)
    s += (i == 0 ? ":" : ",") + resolved_[i].first + "=" + resolved_[i].second;
  return s;
}

// ---- Builder (family.h: the layer costs) ----------------------------------------------

TensorInfo Builder::tensor(const std::string& name, std::vector<int64_t> shape) {
  double n = 1;
  for (const int64_t d : shape) {
    if (d < 1) fail(label_, name + " would have a dimension of " + std::to_string(d));
    n *= static_cast<double>(d);
  }
  if (n > kMaxParameters) fail(label_, name + " would have more than 1e13 elements");
  return TensorInfo{name, std::move(shape)};
}

void Builder::add(Layer layer) {
  tensors_ += static_cast<int64_t>(layer.params.size());
  if (tensors_ > kMaxTensors)
    fail(label_, "more than " + std::to_string(kMaxTensors) + " parameter tensors: refused");
  for (const auto& t : layer.params) {
    params_ += t.numel();  // each <= 1e13 (tensor()), the sum checked after each
    if (static_cast<double>(params_) > kMaxParameters) fail(label_, "more than 1e13 parameters: refused");
  }
  layers_.push_back(std::move(layer));
}

void Builder::linear(const std::string& name, int64_t in, int64_t out, double tokens, bool bias, bool conv1d,
                     const std::string& tied, const std::string& bias_name) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::Linear;
  if (tied.empty())
    l.params.push_back(tensor(name + ".weight", conv1d ? std::vector<int64_t>{in, out} : std::vector<int64_t>{out, in}));
  else
    l.uses.push_back(tied);
  if (bias) l.params.push_back(tensor(bias_name.empty() ? name + ".bias" : bias_name, {out}));
  const double passes = layers_.empty() ? 1 : 2;
  const double macs = tokens * static_cast<double>(in) * static_cast<double>(out);
  l.forward_flops = 2 * macs;
  l.backward_flops = 2 * macs * passes;
  l.activation_elements = tokens * static_cast<double>(in) * passes + tokens * static_cast<double>(out);
  l.weight_elements = 2.0 * static_cast<double>(in) * static_cast<double>(out);
  l.kernels = 1 + static_cast<int>(passes);
  add(std::move(l));
}

int64_t Builder::conv2d(const std::string& name, int64_t in_ch, int64_t out_ch, int64_t kernel, int64_t stride,
                        int64_t pad, int64_t in_hw, bool bias) {
  const int64_t out_hw = (in_hw + 2 * pad - kernel) / stride + 1;
  if (in_hw + 2 * pad < kernel || out_hw < 1)
    fail(label_, name + ": the input of side " + std::to_string(in_hw) + " is too small for a " +
                     std::to_string(kernel) + "x" + std::to_string(kernel) + " kernel");
  Layer l;
  l.name = name;
  l.kind = LayerKind::Conv2d;
  l.params.push_back(tensor(name + ".weight", {out_ch, in_ch, kernel, kernel}));
  if (bias) l.params.push_back(tensor(name + ".bias", {out_ch}));
  const double passes = layers_.empty() ? 1 : 2;
  const double in_el = static_cast<double>(in_ch) * static_cast<double>(in_hw) * static_cast<double>(in_hw);
  const double out_el = static_cast<double>(out_ch) * static_cast<double>(out_hw) * static_cast<double>(out_hw);
  const double macs = out_el * static_cast<double>(in_ch * kernel * kernel);
  l.forward_flops = 2 * macs;
  l.backward_flops = 2 * macs * passes;
  l.activation_elements = in_el * passes + out_el;
  l.weight_elements = 2.0 * static_cast<double>(out_ch * in_ch * kernel * kernel);
  l.kernels = 1 + static_cast<int>(passes);
  add(std::move(l));
  return out_hw;
}

void Builder::norm(const std::string& name, int64_t channels, double elements, bool bias) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::Norm;
  l.params.push_back(tensor(name + ".weight", {channels}));
  if (bias) l.params.push_back(tensor(name + ".bias", {channels}));
  l.forward_flops = 4 * elements;
  l.backward_flops = 8 * elements;
  l.activation_elements = 4 * elements;
  l.weight_elements = 0;
  l.kernels = 2;
  add(std::move(l));
}

void Builder::embedding(const std::string& name, int64_t rows, int64_t dim, double tokens) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::Embedding;
  l.params.push_back(tensor(name + ".weight", {rows, dim}));
  l.forward_flops = 0;
  l.backward_flops = 0;
  l.activation_elements = 2 * tokens * static_cast<double>(dim);
  l.weight_elements = static_cast<double>(rows) * static_cast<double>(dim);
  l.kernels = 2;
  add(std::move(l));
}

void Builder::attention(const std::string& name, int64_t seq, int64_t hidden, int64_t heads) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::Attention;
  const double s = static_cast<double>(seq), h = static_cast<double>(hidden);
  l.forward_flops = 2 * 2 * s * s * h;
  l.backward_flops = 2 * l.forward_flops;
  l.activation_elements = 4 * static_cast<double>(heads) * s * s + 6 * s * h;
  l.kernels = 6;
  add(std::move(l));
}

// ---- the family table ---------------------------------------------------------------

namespace {

struct FamilyEntry {
  FamilyInfo (*info)();
  Network (*build)(const std::string& label, const KeyValues& kv);
};

const std::vector<FamilyEntry>& family_table() {
  static const std::vector<FamilyEntry> table = {
      {transformer_family, build_transformer},
      {resnet_family, build_resnet},
      {vgg_family, build_vgg},
  };
  return table;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> v;
  for (const auto& p : preset_table()) v.push_back(p.name);
  return v;
}

[[noreturn]] void unknown_network(const std::string& head) {
  std::vector<std::string> all = family_names();
  const std::vector<std::string> ps = preset_names();
  all.insert(all.end(), ps.begin(), ps.end());
  const std::string guess = util::did_you_mean(head, all);
  fail("network spec", "unknown family or preset " + util::quote(head) +
                           (guess.empty() ? "" : " (did you mean " + guess + "?)") + "; families: " +
                           join_names(family_names()) + "; presets: " + join_names(ps));
}

}  // namespace

std::vector<std::string> family_names() {
  std::vector<std::string> v;
  for (const auto& f : family_table()) v.push_back(f.info().name);
  v.push_back(tensors_family().name);
  return v;
}

Network build_family(const std::string& label, const std::string& family, const KeyValues& kv) {
  for (const auto& f : family_table())
    if (f.info().name == family) return f.build(label, kv);
  unknown_network(family);
}

}  // namespace detail

std::vector<FamilyInfo> families() {
  std::vector<FamilyInfo> v;
  for (const auto& f : detail::family_table()) v.push_back(f.info());
  v.push_back(detail::tensors_family());
  return v;
}

Network make_network(const std::string& spec) {
  using namespace detail;
  if (spec.size() > kMaxSpecBytes)
    fail("network spec", "longer than " + std::to_string(kMaxSpecBytes) + " bytes");
  const size_t colon = spec.find(':');
  const std::string head = trim_spaces(spec.substr(0, colon));
  const bool has_keys = colon != std::string::npos;
  const std::string rest = has_keys ? spec.substr(colon + 1) : "";
  if (head == tensors_family().name) {
    if (rest.empty()) fail("tensors", "expected tensors:PATH (a CSV or JSON tensor list)");
    return read_tensor_list_file(rest);
  }
  for (const auto& f : family_table())
    if (f.info().name == head) return f.build(head, has_keys ? parse_key_values(head, rest) : KeyValues{});
  const Preset* p = find_preset(head);
  if (p == nullptr) unknown_network(head);
  // A preset: its spec with the overrides' keys replaced or added.
  const size_t pc = p->spec.find(':');
  KeyValues kv = parse_key_values(p->name, p->spec.substr(pc + 1));
  const KeyValues over = has_keys ? parse_key_values(p->name, rest) : KeyValues{};
  std::string over_text;
  for (const auto& o : over) {  // (clang 14 cannot capture a structured binding)
    auto it = std::find_if(kv.begin(), kv.end(), [&](const auto& e) { return e.first == o.first; });
    if (it != kv.end()) it->second = o.second;
    else kv.push_back(o);
    over_text += (over_text.empty() ? "" : ",") + o.first + "=" + o.second;
  }
  Network n = build_family(p->name, p->spec.substr(0, pc), kv);
  n.spec = over.empty() ? p->name : p->name + ":" + over_text;
  const size_t sep = n.description.find(": ");
  n.description = p->title + (over.empty() ? "" : " with " + over_text) +
                  (sep == std::string::npos ? "" : n.description.substr(sep));
  return n;
}

}  // namespace gcu::model::net
