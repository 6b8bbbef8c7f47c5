// trainer/models/builders.h: internal to gcu_models. The spec-argument reader shared by
// the model factories, and one factory per model file (cnn.cpp, resnet.cpp, vgg.cpp,
// bert.cpp); registry.cpp maps names to them.
#pragma once

#include "trainer/models/registry.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace gcu::trainer::detail {

// "name:key=value,..." split into a name and integer/real parameters. Every key must be
// read by the factory; leftovers are reported with the accepted keys.
class ModelArgs {
 public:
  static ModelArgs parse(const std::string& spec);  // throws ModelError on bad syntax

  const std::string& name() const { return name_; }
  int64_t get_int(const std::string& key, int64_t fallback, int64_t min_value = 1) const;
  double get_double(const std::string& key, double fallback, double min_value,
                    double max_value) const;
  // Throws ModelError if a key was never read; `accepted` lists the model's keys.
  void require_all_used(const std::string& accepted) const;
  // "name:k1=v1,k2=v2" with the values actually used (defaults included), keys sorted.
  std::string canonical() const;

 private:
  std::string name_;
  std::map<std::string, std::string> kv_;
  mutable std::set<std::string> used_;
  mutable std::map<std::string, std::string> effective_;
};

std::shared_ptr<Net> make_cnn(const ModelArgs& args);
std::shared_ptr<Net> make_resnet(const ModelArgs& args, int depth);  // 18, 50, 101
std::shared_ptr<Net> make_vgg19(const ModelArgs& args, bool batch_norm);
std::shared_ptr<Net> make_bert(const ModelArgs& args);
// "torchscript:FILE.pt|input=...": loads the file (torchscript.cpp, scripted_spec.h).
std::shared_ptr<Net> make_scripted(const std::string& spec);

}  // namespace gcu::trainer::detail
