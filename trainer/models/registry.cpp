// trainer/models/registry.cpp: spec parsing (ModelArgs) and the name -> factory table
// behind make_net().
#include "trainer/models/builders.h"
#include "trainer/models/scripted_spec.h"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <utility>

namespace gcu::trainer {
namespace detail {

ModelArgs ModelArgs::parse(const std::string& spec) {
  ModelArgs args;
  const auto colon = spec.find(':');
  args.name_ = spec.substr(0, colon);
  if (args.name_.empty()) throw ModelError("model spec '" + spec + "' has no model name");
  if (colon == std::string::npos) return args;
  std::stringstream rest(spec.substr(colon + 1));
  std::string item;
  while (std::getline(rest, item, ',')) {
    const auto eq = item.find('=');
    if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw ModelError("model spec '" + spec + "': expected key=value, got '" + item + "'");
    }
    const std::string key = item.substr(0, eq);
    if (args.kv_.count(key) != 0) {
      throw ModelError("model spec '" + spec + "': key '" + key + "' given twice");
    }
    args.kv_[key] = item.substr(eq + 1);
  }
  return args;
}

int64_t ModelArgs::get_int(const std::string& key, int64_t fallback, int64_t min_value) const {
  used_.insert(key);
  int64_t value = fallback;
  const auto it = kv_.find(key);
  if (it != kv_.end()) {
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(it->second.c_str(), &end, 10);
    if (errno != 0 || end == it->second.c_str() || *end != '\0') {
      throw ModelError(name_ + ": " + key + "=" + it->second + " is not an integer");
    }
    value = parsed;
  }
  if (value < min_value) {
    throw ModelError(name_ + ": " + key + "=" + std::to_string(value) + " must be >= " +
                     std::to_string(min_value));
  }
  effective_[key] = std::to_string(value);
  return value;
}

double ModelArgs::get_double(const std::string& key, double fallback, double min_value,
                             double max_value) const {
  used_.insert(key);
  double value = fallback;
  const auto it = kv_.find(key);
  if (it != kv_.end()) {
    char* end = nullptr;
    errno = 0;
    value = std::strtod(it->second.c_str(), &end);
    if (errno != 0 || end == it->second.c_str() || *end != '\0') {
      throw ModelError(name_ + ": " + key + "=" + it->second + " is not a number");
    }
  }
  if (!(value >= min_value && value <= max_value)) {
    std::ostringstream msg;
    msg << name_ << ": " << key << "=" << value << " is out of range [" << min_value << ", "
        << max_value << "]";
    throw ModelError(msg.str());
  }
  std::ostringstream text;
  text << value;
  effective_[key] = text.str();
  return value;
}

void ModelArgs::require_all_used(const std::string& accepted) const {
  for (const auto& [key, value] : kv_) {
    if (used_.count(key) == 0) {
      throw ModelError(name_ + ": unknown parameter '" + key + "=" + value +
                       "' (accepted: " + accepted + ")");
    }
  }
}

std::string ModelArgs::canonical() const {
  std::string out = name_;
  char sep = ':';
  for (const auto& [key, value] : effective_) {
    out += sep + key + "=" + value;
    sep = ',';
  }
  return out;
}

}  // namespace detail

namespace {

using Factory = std::function<std::shared_ptr<Net>(const detail::ModelArgs&)>;

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table = {
      {"cnn", [](const detail::ModelArgs& a) { return detail::make_cnn(a); }},
      {"resnet18", [](const detail::ModelArgs& a) { return detail::make_resnet(a, 18); }},
      {"resnet50", [](const detail::ModelArgs& a) { return detail::make_resnet(a, 50); }},
      {"resnet101", [](const detail::ModelArgs& a) { return detail::make_resnet(a, 101); }},
      {"vgg19", [](const detail::ModelArgs& a) { return detail::make_vgg19(a, false); }},
      {"vgg19_bn", [](const detail::ModelArgs& a) { return detail::make_vgg19(a, true); }},
      {"bert", [](const detail::ModelArgs& a) { return detail::make_bert(a); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> known_models() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories()) names.push_back(name);
  return names;
}

std::shared_ptr<Net> make_net(const std::string& spec) {
  if (is_scripted_spec(spec)) return detail::make_scripted(spec);
  const auto args = detail::ModelArgs::parse(spec);
  const auto it = factories().find(args.name());
  if (it == factories().end()) {
    std::string known;
    for (const auto& name : known_models()) known += (known.empty() ? "" : ", ") + name;
    throw ModelError("unknown model '" + args.name() + "' (known models: " + known +
                     "; or your own, torchscript:FILE.pt with --input-shape)");
  }
  auto net = it->second(args);
  net->set_spec(args.canonical());
  return net;
}

}  // namespace gcu::trainer
