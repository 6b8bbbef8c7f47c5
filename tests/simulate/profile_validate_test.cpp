// model/profile_validate: range and consistency checks (exact field paths in the
// errors) and command-line overrides (--set PATH=VALUE).
#include "model/profile_json.h"

#include "test_profile.h"

#include <gtest/gtest.h>

namespace gcu::model {
namespace {

using test::tiny_profile_json;

struct Case {
  const char* name;
  const char* pointer;
  const char* value;      // JSON
  const char* path;       // expected error path
  const char* expected;   // substring of expected
  const char* got;        // substring of got
};

class ProfileChecks : public ::testing::TestWithParam<Case> {};

TEST_P(ProfileChecks, NamesFieldExpectationAndValue) {
  const Case& c = GetParam();
  Json j = tiny_profile_json();
  j[Json::json_pointer(c.pointer)] = Json::parse(c.value);
  try {
    profile_from_json(j);
    FAIL() << c.name << ": no error";
  } catch (const ProfileError& e) {
    EXPECT_EQ(e.path(), c.path) << e.what();
    EXPECT_NE(e.expected().find(c.expected), std::string::npos) << e.what();
    EXPECT_NE(e.got().find(c.got), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Consistency, ProfileChecks,
    ::testing::Values(
        Case{"gamma", "/cluster/gamma_stretch", "0.9", "/cluster/gamma_stretch", ">= 1", "0.9"},
        Case{"rate", "/cluster/interference/backward_by_collective", "0.9", "/cluster/interference/backward_by_collective", ">= 1", "0.9"},
        Case{"contention", "/cluster/interference/backward_codec", "0.5", "/cluster/interference/backward_codec", ">= 1", "0.5"},
        Case{"bandwidth", "/cluster/levels/inter/bandwidth_gbps", "-10", "/cluster/levels/inter/bandwidth_gbps",
             "> 0", "-10"},
        Case{"zero bandwidth", "/cluster/levels/intra/bandwidth_gbps", "0", "/cluster/levels/intra/bandwidth_gbps",
             "> 0", "0"},
        Case{"alpha", "/cluster/levels/intra/alpha_s", "-1e-6", "/cluster/levels/intra/alpha_s", ">= 0", "-1e-06"},
        Case{"nodes", "/cluster/nodes", "0", "/cluster/nodes", ">= 1", "0"},
        Case{"algorithm", "/cluster/algorithms/1", "\"butterfly\"", "/cluster/algorithms/1", "ring", "butterfly"},
        Case{"algorithm twice", "/cluster/algorithms/1", "\"ring\"", "/cluster/algorithms/1", "once", "ring"},
        Case{"ranges overlap", "/cluster/levels/inter/collectives/allreduce/1/min_bytes", "1000",
             "/cluster/levels/inter/collectives/allreduce/1/min_bytes", "65536", "1000"},
        Case{"empty range", "/cluster/levels/inter/collectives/allreduce/0/max_bytes", "0",
             "/cluster/levels/inter/collectives/allreduce/0/max_bytes", "above min_bytes", "0"},
        Case{"parameters", "/model/parameters", "161", "/model/parameters", "(160)", "161"},
        Case{"shape", "/model/tensors/2/shape/1", "0", "/model/tensors/2/shape/1", ">= 1", "0"},
        Case{"duplicate tensor", "/model/tensors/2/name", "\"fc2.weight\"", "/model/tensors/2/name", "not used",
             "fc2.weight"},
        Case{"ready_s length", "/model/compute/0/ready_s", "[0.005, 0.01]", "/model/compute/0/ready_s",
             "3 entries", "2 entries"},
        Case{"ready_s order", "/model/compute/0/ready_s/2", "0.001", "/model/compute/0/ready_s/2",
             "previous entry (0.01)", "0.001"},
        Case{"ready_s after backward", "/model/compute/0/ready_s/2", "0.5", "/model/compute/0/ready_s/2",
             "backward_s (0.02)", "0.5"},
        Case{"batch twice", "/model/compute/1/batch_size", "32", "/model/compute/1/batch_size", "not listed", "32"},
        Case{"batch zero", "/model/compute/1/batch_size", "0", "/model/compute/1/batch_size", ">= 1", "0"},
        Case{"backward zero", "/model/compute/1/backward_s", "0", "/model/compute/1/backward_s", "> 0", "0"},
        Case{"forward negative", "/model/compute/0/forward_s", "-0.1", "/model/compute/0/forward_s", ">= 0", "-0.1"},
        Case{"bucket cap", "/ddp/bucket_cap_bytes", "0", "/ddp/bucket_cap_bytes", "> 0", "0"},
        Case{"codec cost", "/compressors/fp16/encode/per_element_s", "-1e-9",
             "/compressors/fp16/encode/per_element_s", ">= 0", "-1e-09"},
        Case{"scheme key", "/compressors/topk:k", "{\"encode\": {}, \"decode\": {}}", "/compressors/topk:k",
             "scheme spec", "topk:k"},
        Case{"iterations", "/convergence/schemes/topk:k=0.1/iterations", "0",
             "/convergence/schemes/topk:k=0.1/iterations", "> 0", "0"},
        Case{"relative error", "/convergence/schemes/topk:k=0.1/relative_error", "-0.1",
             "/convergence/schemes/topk:k=0.1/relative_error", ">= 0", "-0.1"},
        Case{"max biased error", "/convergence/constants/max_biased_error", "1.5",
             "/convergence/constants/max_biased_error", "(0, 1]", "1.5"},
        Case{"baseline", "/convergence/baseline_iterations", "-5", "/convergence/baseline_iterations", ">= 0", "-5"},
        Case{"reference batch", "/convergence/baseline_global_batch", "-64", "/convergence/baseline_global_batch",
             ">= 0", "-64"},
        Case{"critical batch", "/convergence/critical_batch_size", "-1", "/convergence/critical_batch_size", ">= 0",
             "-1"}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(ProfileValidate, AcceptsTheTinyProfile) { EXPECT_NO_THROW(validate_profile(profile_from_json(tiny_profile_json()))); }

TEST(ProfileValidate, ChecksStructsBuiltInCode) {
  Profile p = profile_from_json(tiny_profile_json());
  p.model.tensors.pop_back();
  try {
    validate_profile(p);
    FAIL() << "no error";
  } catch (const ProfileError& e) {
    EXPECT_EQ(e.path(), "/model/parameters");
  }
}

// ---- overrides ---------------------------------------------------------------------------
TEST(ProfileOverride, PointerAndDottedForms) {
  Json j = tiny_profile_json();
  apply_override(j, "/cluster/gamma_stretch=1.1");
  EXPECT_DOUBLE_EQ(j["cluster"]["gamma_stretch"].get<double>(), 1.1);
  apply_override(j, "cluster.levels.inter.bandwidth_gbps=25");
  EXPECT_DOUBLE_EQ(j["cluster"]["levels"]["inter"]["bandwidth_gbps"].get<double>(), 25);
  apply_override(j, "model.compute.1.backward_s=0.012");
  EXPECT_DOUBLE_EQ(j["model"]["compute"][1]["backward_s"].get<double>(), 0.012);
  apply_override(j, "cluster.algorithms=[\"ring\"]");
  EXPECT_EQ(j["cluster"]["algorithms"].size(), 1u);
  EXPECT_NO_THROW(profile_from_json(j));
}

TEST(ProfileOverride, KeysContainingEqualsSigns) {
  Json j = tiny_profile_json();
  // the existing field wins: the split is after "fixed_s", not inside "topk:k=0.1"
  EXPECT_EQ(split_override(j, "/compressors/topk:k=0.1/encode/fixed_s=0.002").first,
            "/compressors/topk:k=0.1/encode/fixed_s");
  apply_override(j, "/compressors/topk:k=0.1/encode/fixed_s=0.002");
  EXPECT_DOUBLE_EQ(profile_from_json(j).compressors.at("topk:k=0.1").encode.fixed_s, 0.002);
  // a new key with '=' under an existing object
  apply_override(j, "/convergence/schemes/fp16={\"relative_error\": 0.001}");
  EXPECT_TRUE(profile_from_json(j).convergence.schemes.count("fp16"));
  // a value containing '=' for an existing field
  apply_override(j, "/convergence/target=loss=0.5");
  EXPECT_EQ(j["convergence"]["target"], "loss=0.5");
}

TEST(ProfileOverride, PlainStringsAndCreatedObjects) {
  Json j = tiny_profile_json();
  apply_override(j, "convergence.target=76% top-1");
  EXPECT_EQ(j["convergence"]["target"], "76% top-1");
  apply_override(j, "/cluster/levels/intra/collectives/allgather=[]");
  EXPECT_TRUE(j["cluster"]["levels"]["intra"]["collectives"].contains("allgather"));
  EXPECT_NO_THROW(profile_from_json(j));
}

TEST(ProfileOverride, BadOverridesAreReported) {
  Json j = tiny_profile_json();
  EXPECT_THROW(apply_override(j, "cluster.gamma_stretch"), ProfileError);            // no '='
  EXPECT_THROW(apply_override(j, "cluster..gamma_stretch=1"), ProfileError);         // empty segment
  EXPECT_THROW(apply_override(j, "/cluster/gamma_stretch/x=1"), ProfileError);       // through a number
  // a typo is caught by validation, at the typo's path
  apply_override(j, "cluster.gama=1.1");
  try {
    profile_from_json(j);
    FAIL() << "no error";
  } catch (const ProfileError& e) {
    EXPECT_EQ(e.path(), "/cluster/gama");
  }
}

}  // namespace
}  // namespace gcu::model
