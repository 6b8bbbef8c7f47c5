// Tests for trainer/models/registry.cpp: spec parsing, errors, the model table.
#include "trainer/models/registry.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gcu::trainer {
namespace {

std::string error_of(const std::string& spec) {
  try {
    make_net(spec);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(Registry, KnownModelsListsAllFamilies) {
  const auto names = known_models();
  for (const char* name : {"cnn", "resnet18", "resnet50", "resnet101", "vgg19", "bert"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(Registry, UnknownModelListsKnownOnes) {
  const auto msg = error_of("resnet34");
  EXPECT_NE(msg.find("unknown model 'resnet34'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("resnet50"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cnn"), std::string::npos) << msg;
}

TEST(Registry, UnknownKeyListsAcceptedKeys) {
  const auto msg = error_of("cnn:colors=3");
  EXPECT_NE(msg.find("colors=3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("channels"), std::string::npos) << msg;
}

TEST(Registry, BadValuesAndSyntaxAreRejected) {
  EXPECT_NE(error_of("cnn:classes=ten").find("classes=ten"), std::string::npos);
  EXPECT_NE(error_of("cnn:classes=1").find("classes=1"), std::string::npos);
  EXPECT_NE(error_of("cnn:classes").find("key=value"), std::string::npos);
  EXPECT_NE(error_of("cnn:classes=3,classes=4").find("twice"), std::string::npos);
  EXPECT_NE(error_of(":classes=3").find("no model name"), std::string::npos);
  EXPECT_NE(error_of("bert:hidden=100,heads=3,layers=1").find("multiple of heads"),
            std::string::npos);
  EXPECT_NE(error_of("bert:layers=1,hidden=32,heads=2,seq=600").find("positions"),
            std::string::npos);
  EXPECT_NE(error_of("vgg19:image=28").find("image=28"), std::string::npos);
}

TEST(Registry, SpecIsCanonicalWithDefaults) {
  const auto net = make_net("cnn:hidden=32");
  EXPECT_EQ(net->spec(), "cnn:c1=16,c2=32,channels=1,classes=10,hidden=32,image=28");
  EXPECT_EQ(make_net(net->spec())->spec(), net->spec());
}

}  // namespace
}  // namespace gcu::trainer
