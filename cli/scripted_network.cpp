// cli/scripted_network.cpp: a TorchScript file's parameters as a network (scripted_network.h).
#include "scripted_network.h"

#include "trainer/models/registry.h"
#include "trainer/models/scripted_spec.h"

namespace gcu::cli {

model::net::Network scripted_network(const std::string& spec) {
  const std::string path = spec.substr(std::string(trainer::kScriptedPrefix).size());
  std::vector<trainer::ParamInfo> params;
  try {
    params = trainer::scripted_parameter_list(path);
  } catch (const trainer::ModelError& e) {
    throw model::net::NetworkError(std::string("--network: ") + e.what());
  }
  // A tensor list (model/network/tensor_list.cpp) in backward order, each tensor in the
  // layer of its submodule; without the layers if a submodule's tensors are not adjacent.
  const auto csv_field = [](const std::string& text) {
    std::string out = "\"";
    for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  const auto tensor_list = [&](bool layers) {
    std::string csv = layers ? "name,shape,layer\n" : "name,shape\n";
    for (auto it = params.rbegin(); it != params.rend(); ++it) {
      std::string shape;
      for (const int64_t d : it->shape) {
        if (!shape.empty()) shape += 'x';
        shape += std::to_string(d);
      }
      csv += csv_field(it->name) + "," + csv_field(shape.empty() ? "[]" : shape);
      if (layers) {
        const auto dot = it->name.rfind('.');
        csv += "," + csv_field(dot == std::string::npos ? it->name : it->name.substr(0, dot));
      }
      csv += "\n";
    }
    return csv;
  };
  model::net::Network n;
  try {
    n = model::net::parse_tensor_list(tensor_list(true), spec);
  } catch (const model::net::NetworkError&) {
    n = model::net::parse_tensor_list(tensor_list(false), spec);
  }
  n.spec = spec;
  return n;
}

}  // namespace gcu::cli
