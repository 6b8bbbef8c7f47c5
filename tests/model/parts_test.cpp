// A profile's model and system parts (model/parts.h): the shipped V100 study's three model
// parts and one system part combine into the shipped profiles exactly; a split profile
// combines back into itself; a part in the other's place is refused by name.
#include "model/parts.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gcu::model {
namespace {

Json read(const std::string& rel) {
  std::ifstream f(std::string(GCU_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return parse_json_text(s.str());
}

TEST(Parts, ShippedV100StudyCombinesIntoTheShippedProfiles) {
  const Json system = read("data/parts/systems/p3.8xlarge-v100.json");
  for (const char* m : {"v100-resnet50", "v100-resnet101", "v100-bert-base"}) {
    const Profile combined = profile_from_json(combine_parts(read(std::string("data/parts/models/") + m + ".json"), system));
    const Profile shipped = profile_from_json(read(std::string("data/profiles/") + m + ".json"));
    EXPECT_EQ(profile_to_json(combined), profile_to_json(shipped)) << m;
  }
}

TEST(Parts, SplitCombinesBackIntoTheProfile) {
  for (const char* p : {"data/profiles/cpu-2rank-cnn.json", "data/profiles/v100-bert-base.json"}) {
    const Profile whole = profile_from_json(read(p));
    const ProfileParts parts = split_profile(whole);
    EXPECT_EQ(document_kind(parts.model), "model");
    EXPECT_EQ(document_kind(parts.system), "system");
    EXPECT_FALSE(parts.model.contains("cluster"));
    EXPECT_FALSE(parts.system.contains("model"));
    EXPECT_EQ(profile_to_json(profile_from_json(combine_parts(parts.model, parts.system))), profile_to_json(whole)) << p;
    // A whole profile stands in for either part.
    EXPECT_EQ(profile_to_json(profile_from_json(combine_parts(profile_to_json(whole), parts.system))),
              profile_to_json(whole));
  }
}

TEST(Parts, AnotherModelOnTheSameSystem) {
  // The CNN's model part on the V100 system: the V100 cluster and codecs, the CNN's compute.
  const ProfileParts cnn = split_profile(profile_from_json(read("data/profiles/cpu-2rank-cnn.json")));
  const Profile p = profile_from_json(combine_parts(cnn.model, read("data/parts/systems/p3.8xlarge-v100.json")));
  EXPECT_EQ(p.cluster.nodes, 16);
  EXPECT_EQ(p.cluster.gpus_per_node, 4);
  EXPECT_EQ(p.model.name, profile_from_json(read("data/profiles/cpu-2rank-cnn.json")).model.name);
  EXPECT_EQ(p.provenance.device, "NVIDIA V100-SXM2-16GB (AWS p3.8xlarge)");
  EXPECT_NE(p.provenance.source.find("model: "), std::string::npos) << p.provenance.source;
}

TEST(Parts, MisplacedPartsAreRefusedByName) {
  const Json model = read("data/parts/models/v100-resnet50.json");
  const Json system = read("data/parts/systems/p3.8xlarge-v100.json");
  const auto message = [](const Json& m, const Json& s) {
    try {
      combine_parts(m, s);
    } catch (const ProfileError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message(system, system).find("model part: /schema"), std::string::npos) << message(system, system);
  EXPECT_NE(message(model, model).find("system part: /schema"), std::string::npos) << message(model, model);
  Json extra = model;
  extra["cluster"] = system["cluster"];
  EXPECT_NE(message(extra, system).find("model part: /cluster"), std::string::npos) << message(extra, system);
  Json none = model;
  none.erase("model");
  EXPECT_NE(message(none, system).find("model part: /model"), std::string::npos) << message(none, system);
  EXPECT_THROW(document_kind(Json::object()), ProfileError);
}

}  // namespace
}  // namespace gcu::model
