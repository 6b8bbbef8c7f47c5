// fuzz/hardware_fuzz.cpp: the hardware catalog reader (model/hardware.cpp) on arbitrary
// bytes. The input is the three files' texts separated by NUL bytes
// (gpus.json \0 intra_links.json \0 nics.json; missing parts are empty). Invariants: bad
// input is a model::hw::HardwareError; a catalog that parses writes entries that parse
// back to the same entries (gpu_to_json / link_to_json), and every name and alias is
// found again by lookup.
#include "fuzz/fuzz_util.h"
#include "model/hardware.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gcu::model::hw;
  const std::string text = gcu::fuzz::as_string(data, size);
  std::string parts[3];
  size_t at = 0;
  for (int i = 0; i < 3 && at <= text.size(); ++i) {
    const size_t nul = i < 2 ? text.find('\0', at) : std::string::npos;
    parts[i] = text.substr(at, nul == std::string::npos ? std::string::npos : nul - at);
    at = nul == std::string::npos ? text.size() + 1 : nul + 1;
  }
  Catalog c;
  try {
    c = parse_catalog(parts[0], parts[1], parts[2]);
  } catch (const HardwareError&) {
    return 0;
  }
  nlohmann::ordered_json g = {{"schema", "gcu.hardware/1"}, {"gpus", nlohmann::ordered_json::array()}};
  nlohmann::ordered_json i = {{"schema", "gcu.hardware/1"}, {"intra_links", nlohmann::ordered_json::array()}};
  nlohmann::ordered_json n = {{"schema", "gcu.hardware/1"}, {"nics", nlohmann::ordered_json::array()}};
  for (const auto& e : c.gpus) g["gpus"].push_back(gpu_to_json(e));
  for (const auto& e : c.intra_links) i["intra_links"].push_back(link_to_json(e));
  for (const auto& e : c.nics) n["nics"].push_back(link_to_json(e));
  Catalog again;
  try {
    again = parse_catalog(g.dump(), i.dump(), n.dump());
  } catch (const HardwareError& e) {
    GCU_FUZZ_CHECK(false, std::string("a valid catalog does not read back: ") + e.what());
  }
  GCU_FUZZ_CHECK(again.gpus.size() == c.gpus.size() && again.intra_links.size() == c.intra_links.size() &&
                     again.nics.size() == c.nics.size(),
                 "entries lost in the round trip");
  for (size_t k = 0; k < c.gpus.size(); ++k)
    GCU_FUZZ_CHECK(gpu_to_json(again.gpus[k]) == gpu_to_json(c.gpus[k]), gpu_to_json(c.gpus[k]).dump());
  for (size_t k = 0; k < c.nics.size(); ++k)
    GCU_FUZZ_CHECK(link_to_json(again.nics[k]) == link_to_json(c.nics[k]), link_to_json(c.nics[k]).dump());
  for (const auto& e : c.gpus) {
    GCU_FUZZ_CHECK(&c.gpu(e.name) == &e, "lookup by name finds another entry: " + e.name);
    for (const auto& a : e.aliases) GCU_FUZZ_CHECK(&c.gpu(a) == &e, "lookup by alias finds another entry: " + a);
  }
  for (const auto& e : c.intra_links) GCU_FUZZ_CHECK(&c.intra_link(e.name) == &e, "intra link lookup: " + e.name);
  for (const auto& e : c.nics) GCU_FUZZ_CHECK(&c.nic(e.name) == &e, "nic lookup: " + e.name);
  return 0;
}
