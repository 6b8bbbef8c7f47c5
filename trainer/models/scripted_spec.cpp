// trainer/models/scripted_spec.cpp: parsing and composing TorchScript model specs
// (scripted_spec.h). Torch-free: no file is read here.
#include "trainer/models/scripted_spec.h"

#include "trainer/models/model_error.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <sstream>

namespace gcu::trainer {
namespace {

constexpr const char* kDtypes[] = {"float32", "float64", "float16", "bfloat16", "int64"};
constexpr const char* kLosses[] = {"cross_entropy", "mse", "mean"};
constexpr int64_t kMaxSampleElements = int64_t{1} << 31;

template <size_t N>
bool one_of(const std::string& v, const char* const (&names)[N]) {
  return std::find_if(std::begin(names), std::end(names), [&](const char* n) { return v == n; }) != std::end(names);
}

template <size_t N>
std::string listed(const char* const (&names)[N]) {
  std::string out;
  for (const char* n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

int64_t positive_int(const std::string& what, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || end == text.c_str() || *end != '\0' || v < 1) {
    throw ModelError("torchscript: " + what + "=" + text + " is not a positive integer");
  }
  return v;
}

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> dims;
  std::stringstream in(text);
  std::string item;
  int64_t elements = 1;
  while (std::getline(in, item, 'x')) {
    const int64_t d = positive_int("input", item);
    if (d > kMaxSampleElements / elements) {
      throw ModelError("torchscript: input=" + text + " has more than 2^31 elements per sample");
    }
    elements *= d;
    dims.push_back(d);
  }
  if (text.empty() || text.back() == 'x' || dims.empty() || dims.size() > 6) {
    throw ModelError("torchscript: input=" + text + " is not a sample shape such as 3x224x224 (1 to 6 dimensions)");
  }
  return dims;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string out;
  for (const int64_t d : dims) {
    if (!out.empty()) out += 'x';
    out += std::to_string(d);
  }
  return out;
}

void set_key(ScriptedSpec& s, const std::string& key, const std::string& value) {
  if (key == "input") {
    s.input_shape = parse_shape(value);
  } else if (key == "dtype") {
    if (!one_of(value, kDtypes)) throw ModelError("torchscript: dtype=" + value + " is not one of " + listed(kDtypes));
    s.dtype = value;
  } else if (key == "loss") {
    if (!one_of(value, kLosses)) throw ModelError("torchscript: loss=" + value + " is not one of " + listed(kLosses));
    s.loss = value;
  } else if (key == "classes") {
    s.classes = positive_int("classes", value);
    if (s.classes < 2) throw ModelError("torchscript: classes=" + value + " must be >= 2");
  } else if (key == "vocab") {
    s.vocab = positive_int("vocab", value);
  } else {
    throw ModelError("torchscript: unknown option '" + key + "=" + value +
                     "' (accepted: input, dtype, classes, loss, vocab)");
  }
}

void check(const ScriptedSpec& s) {
  if (s.input_shape.empty()) {
    throw ModelError("torchscript:" + s.path + " needs the shape of one input sample: --input-shape, e.g. 3x224x224");
  }
  if (s.dtype == "int64" && s.vocab < 2) {
    throw ModelError("torchscript:" + s.path + " takes int64 token ids: give --vocab N (ids are drawn from [0, N))");
  }
  if (s.dtype != "int64" && s.vocab != 0) {
    throw ModelError("torchscript: vocab applies to int64 inputs only (dtype is " + s.dtype + ")");
  }
  if (s.loss != "cross_entropy" && s.classes != 0) {
    throw ModelError("torchscript: classes applies to the cross_entropy loss only (loss is " + s.loss + ")");
  }
}

}  // namespace

bool is_scripted_spec(const std::string& spec) { return spec.rfind(kScriptedPrefix, 0) == 0; }

std::string ScriptedSpec::canonical() const {
  std::string out = kScriptedPrefix + path + "|";
  if (classes > 0) out += "classes=" + std::to_string(classes) + ",";
  out += "dtype=" + dtype + ",input=" + shape_text(input_shape) + ",loss=" + loss;
  if (dtype == "int64") out += ",vocab=" + std::to_string(vocab);
  return out;
}

namespace {

// The spec's parts without the checks of a complete one (compose fills them in later).
ScriptedSpec parse_parts(const std::string& spec) {
  if (!is_scripted_spec(spec)) throw ModelError("'" + spec + "' is not a torchscript:FILE spec");
  const std::string rest = spec.substr(std::string(kScriptedPrefix).size());
  const auto bar = rest.rfind('|');
  ScriptedSpec s;
  s.path = rest.substr(0, bar);
  if (s.path.empty()) throw ModelError("torchscript: no file named (torchscript:FILE.pt)");
  if (s.path.find('\0') != std::string::npos) throw ModelError("torchscript: the file name holds a NUL byte");
  if (bar == std::string::npos) return s;
  std::stringstream opts(rest.substr(bar + 1));
  std::string item;
  std::map<std::string, bool> seen;
  while (std::getline(opts, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw ModelError("torchscript: expected key=value after '|', got '" + item + "'");
    }
    const std::string key = item.substr(0, eq);
    if (seen[key]) throw ModelError("torchscript: option '" + key + "' given twice");
    seen[key] = true;
    set_key(s, key, item.substr(eq + 1));
  }
  return s;
}

}  // namespace

ScriptedSpec parse_scripted_spec(const std::string& spec) {
  ScriptedSpec s = parse_parts(spec);
  check(s);
  return s;
}

std::string compose_scripted_spec(const std::string& model, const ScriptedFlags& f) {
  if (!is_scripted_spec(model)) {
    if (f.any()) {
      throw ModelError("--input-shape, --dtype, --classes, --loss and --vocab describe a TorchScript model's input; '" +
                       model + "' is a built-in model (its spec has its own keys, e.g. cnn:classes=10)");
    }
    return model;
  }
  ScriptedSpec s = parse_parts(model);
  if (!f.input_shape.empty()) set_key(s, "input", f.input_shape);
  if (!f.dtype.empty()) set_key(s, "dtype", f.dtype);
  if (!f.loss.empty()) set_key(s, "loss", f.loss);
  if (f.classes != 0) set_key(s, "classes", std::to_string(f.classes));
  if (f.vocab != 0) set_key(s, "vocab", std::to_string(f.vocab));
  check(s);
  return s.canonical();
}

}  // namespace gcu::trainer
