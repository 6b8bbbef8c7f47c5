// model/profile_json: reading (types, field names, exact error paths) and the round trip
// through profile_to_json.
#include "model/profile_json.h"

#include "test_profile.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gcu::model {
namespace {

using test::tiny_profile_json;

// The ProfileError that reading `j` throws (fails the test if none).
ProfileError error_of(const Json& j) {
  try {
    profile_from_json(j);
  } catch (const ProfileError& e) {
    return e;
  }
  ADD_FAILURE() << "no ProfileError for " << j.dump().substr(0, 200);
  return ProfileError("", "", "");
}

TEST(ProfileJson, ReadsEveryField) {
  const Profile p = profile_from_json(tiny_profile_json());
  EXPECT_EQ(p.cluster.nodes, 2);
  EXPECT_EQ(p.cluster.gpus_per_node, 2);
  EXPECT_DOUBLE_EQ(p.cluster.inter.bandwidth_gbps, 10.0);
  ASSERT_EQ(p.cluster.inter.collectives.at("allreduce").size(), 2u);
  EXPECT_DOUBLE_EQ(p.cluster.inter.collectives.at("allreduce")[0].max_bytes, 65536);
  EXPECT_TRUE(std::isinf(p.cluster.inter.collectives.at("allreduce")[1].max_bytes));  // no max_bytes
  EXPECT_EQ(p.cluster.algorithms, (std::vector<std::string>{"ring", "tree"}));
  EXPECT_DOUBLE_EQ(p.cluster.gamma, 1.07);
  EXPECT_DOUBLE_EQ(p.cluster.gamma_stretch, 1.07);
  EXPECT_FALSE(p.cluster.gamma_from_stretch);
  ASSERT_EQ(p.model.tensors.size(), 3u);
  EXPECT_EQ(p.model.tensors[0].name, "fc2.weight");
  EXPECT_EQ(p.model.tensors[0].shape, (std::vector<int64_t>{5, 10}));
  ASSERT_EQ(p.model.compute.size(), 2u);
  EXPECT_EQ(p.model.compute[0].ready_s.size(), 3u);
  EXPECT_DOUBLE_EQ(p.model.compute[1].optimizer_s, 0.0);  // optional, default
  EXPECT_DOUBLE_EQ(p.compressors.at("topk:k=0.1").decode.per_rank_element_s, 1e-10);
  EXPECT_EQ(p.compressors.at("topk:k=0.1").measured_n, 160);
  const auto& f = p.convergence.schemes.at("topk:k=0.1");
  ASSERT_TRUE(f.relative_error_ef.has_value());
  EXPECT_DOUBLE_EQ(*f.relative_error_ef, 0.3);
  EXPECT_FALSE(f.iterations.has_value());
  EXPECT_DOUBLE_EQ(p.convergence.constants.ef_scale, 0.5);
  EXPECT_DOUBLE_EQ(p.convergence.constants.variance_scale, ConvergenceConstants{}.variance_scale);
  EXPECT_EQ(p.provenance.assumptions.size(), 1u);
}

TEST(ProfileJson, RoundTripKeepsEveryField) {
  const Profile a = profile_from_json(tiny_profile_json());
  const Json j1 = profile_to_json(a);
  EXPECT_EQ(j1.begin().key(), "schema");  // schema first
  const Profile b = profile_from_json(j1);
  EXPECT_EQ(profile_to_json(b), j1);
  EXPECT_EQ(b.model.compute[0].ready_s, a.model.compute[0].ready_s);
  EXPECT_EQ(b.cluster.inter.collectives.at("allreduce")[0].beta_s_per_byte,
            a.cluster.inter.collectives.at("allreduce")[0].beta_s_per_byte);
  EXPECT_TRUE(std::isinf(b.cluster.inter.collectives.at("allreduce")[1].max_bytes));
  EXPECT_EQ(b.convergence.schemes.at("topk:k=0.1").error_feedback, true);
  // through text too
  const Profile c = profile_from_string(j1.dump(1));
  EXPECT_EQ(profile_to_json(c), j1);
}

TEST(ProfileJson, GlobalBatchFieldsAreOptionalAndRoundTrip) {
  Json j = tiny_profile_json();
  const Profile a = profile_from_json(j);
  EXPECT_DOUBLE_EQ(a.convergence.baseline_global_batch, 0);   // absent: the profile's setup
  EXPECT_FALSE(a.convergence.critical_batch_size.has_value());  // absent: = the reference
  EXPECT_FALSE(profile_to_json(a)["convergence"].contains("critical_batch_size"));
  j["convergence"]["baseline_global_batch"] = 256;
  j["convergence"]["critical_batch_size"] = 0;  // 0 is a value (no batch dependence), not "absent"
  const Profile b = profile_from_json(j);
  EXPECT_DOUBLE_EQ(b.convergence.baseline_global_batch, 256);
  ASSERT_TRUE(b.convergence.critical_batch_size.has_value());
  EXPECT_DOUBLE_EQ(*b.convergence.critical_batch_size, 0);
  const Profile c = profile_from_json(profile_to_json(b));
  EXPECT_DOUBLE_EQ(c.convergence.baseline_global_batch, 256);
  EXPECT_EQ(c.convergence.critical_batch_size, b.convergence.critical_batch_size);
}

TEST(ProfileJson, PilotFiguresRoundTripAndAreChecked) {
  Json j = tiny_profile_json();
  j["convergence"]["schemes"]["qsgd"] = {{"pilot", {{"status", "uncertain"}, {"basis", "pilot-lag"},
                                                    {"multiplier", 1.4}, {"multiplier_lo", 1.1},
                                                    {"multiplier_hi", 2.9}, {"widened", true},
                                                    {"evidence", {"misfit"}}}}};
  const Profile a = profile_from_json(j);
  const auto& q = *a.convergence.schemes.at("qsgd").pilot;
  EXPECT_EQ(q.status, "uncertain");
  EXPECT_DOUBLE_EQ(*q.multiplier_hi, 2.9);
  EXPECT_TRUE(q.widened);
  EXPECT_EQ(profile_to_json(profile_from_json(profile_to_json(a))), profile_to_json(a));
  EXPECT_FALSE(q.seeds.has_value());
  // The sequential design's seed counts: kept, and checked.
  j["convergence"]["schemes"]["qsgd"]["pilot"]["seeds"] = 1;
  j["convergence"]["schemes"]["qsgd"]["pilot"]["baseline_seeds"] = 3;
  const Profile s = profile_from_json(j);
  EXPECT_EQ(s.convergence.schemes.at("qsgd").pilot->seeds, 1);
  EXPECT_EQ(profile_from_json(profile_to_json(s)).convergence.schemes.at("qsgd").pilot->baseline_seeds, 3);
  for (const auto& [key, bad] : {std::pair{"seeds", Json(4)}, {"seeds", Json(0)}, {"baseline_seeds", Json(1.5)}}) {
    Json k = j;
    k["convergence"]["schemes"]["qsgd"]["pilot"][key] = bad;
    EXPECT_THROW(profile_from_json(k), ProfileError) << key << " = " << bad.dump();
  }
  j["convergence"]["schemes"]["qsgd"]["pilot"]["status"] = "maybe";
  EXPECT_THROW(profile_from_json(j), ProfileError);
  j["convergence"]["schemes"]["qsgd"]["pilot"] = {{"status", "reaches"}};  // needs a multiplier
  EXPECT_THROW(profile_from_json(j), ProfileError);
}

TEST(ProfileJson, AllreduceElementBytesRoundTripAndAreChecked) {
  Json j = tiny_profile_json();
  EXPECT_FALSE(profile_to_json(profile_from_json(j))["cluster"].contains("allreduce_element_bytes"));
  j["cluster"]["allreduce_element_bytes"] = {{"bf16", 4}, {"i16", 4}};
  const Profile a = profile_from_json(j);
  EXPECT_EQ(a.cluster.allreduce_element_bytes.at("bf16"), 4);
  EXPECT_EQ(profile_to_json(a)["cluster"]["allreduce_element_bytes"], j["cluster"]["allreduce_element_bytes"]);
  j["cluster"]["allreduce_element_bytes"] = {{"bf16", 3}};
  EXPECT_EQ(error_of(j).path(), "/cluster/allreduce_element_bytes/bf16");
  j["cluster"]["allreduce_element_bytes"] = {{"f32", 2}};  // narrower than the type itself
  EXPECT_EQ(error_of(j).path(), "/cluster/allreduce_element_bytes/f32");
  j["cluster"]["allreduce_element_bytes"] = {{"f99", 4}};
  EXPECT_EQ(error_of(j).path(), "/cluster/allreduce_element_bytes/f99");
  j["cluster"]["allreduce_element_bytes"] = {{"bf16", "four"}};
  EXPECT_EQ(error_of(j).path(), "/cluster/allreduce_element_bytes/bf16");
  j["cluster"]["allreduce_element_bytes"] = 4;
  EXPECT_EQ(error_of(j).path(), "/cluster/allreduce_element_bytes");
}

// cluster.interference (gcu.profile/2): the factors, the host link and the fit round-trip,
// a bad value names its field, and a profile without backward_by_collective gets it from
// gamma_stretch (written back as not given).
TEST(ProfileJson, InterferenceRoundTripsAndIsChecked) {
  Json j = tiny_profile_json();
  EXPECT_EQ(profile_from_json(j).cluster.comm_contention, 1.0);
  j["cluster"]["interference"]["collective_by_backward"] = 1.9;
  j["cluster"]["interference"]["host_link"] = {{"bandwidth_gbps", 9.5}, {"alpha_s", 3e-5}};
  j["cluster"]["interference"]["fit"] = {{"step", "gamma"},
                                         {"backward_alone_s", 0.1},
                                         {"backward_beside_s", 0.12},
                                         {"comm_beside_s", 0.05},
                                         {"backward_beside_model_s", 0.119},
                                         {"comm_beside_model_s", 0.05},
                                         {"gamma_at_bound", false},
                                         {"comm_contention_at_bound", true}};
  const Profile a = profile_from_json(j);
  EXPECT_EQ(a.cluster.comm_contention, 1.9);
  ASSERT_TRUE(a.cluster.comm_contention_reference.has_value());
  EXPECT_EQ(a.cluster.comm_contention_reference->bandwidth_gbps, 9.5);
  ASSERT_TRUE(a.cluster.interference_fit.has_value());
  EXPECT_TRUE(a.cluster.interference_fit->comm_contention_at_bound);
  const Json back = profile_to_json(a)["cluster"];
  EXPECT_EQ(back["interference"]["collective_by_backward"], 1.9);
  EXPECT_EQ(back["interference"]["backward_by_collective"], 1.07);
  EXPECT_EQ(back["interference"]["host_link"]["bandwidth_gbps"], 9.5);
  EXPECT_EQ(back["interference"]["fit"]["backward_beside_model_s"], 0.119);
  EXPECT_EQ(profile_from_json(profile_to_json(a)).cluster.comm_contention_reference->alpha_s, 3e-5);
  for (const Json bad : {Json(0.5), Json("two"), Json(1e300)}) {
    j["cluster"]["interference"]["collective_by_backward"] = bad;
    EXPECT_EQ(error_of(j).path(), "/cluster/interference/collective_by_backward") << bad.dump();
  }
  j["cluster"]["interference"]["collective_by_backward"] = 2;
  j["cluster"]["interference"]["host_link"] = {{"bandwidth_gbps", -1}, {"alpha_s", 0}};
  EXPECT_EQ(error_of(j).path(), "/cluster/interference/host_link/bandwidth_gbps");
  j["cluster"]["interference"]["host_link"] = {{"bandwidth_gbps", 10}, {"alpha_s", -1}};
  EXPECT_EQ(error_of(j).path(), "/cluster/interference/host_link/alpha_s");
  j["cluster"]["interference"].erase("host_link");
  j["cluster"]["interference"]["fit"]["comm_beside_s"] = -1;
  EXPECT_EQ(error_of(j).path(), "/cluster/interference/fit/comm_beside_s");
  j["cluster"]["interference"]["fit"].erase("step");
  EXPECT_EQ(error_of(j).path(), "/cluster/interference/fit/step");
  j["cluster"]["interference"].erase("fit");
  j["cluster"]["interference"]["gamma"] = 1.2;  // a v1 key inside the v2 object: unknown
  EXPECT_EQ(error_of(j).path(), "/cluster/interference/gamma");
  // Only the stretch given: the event rate derived from it, and left out when written.
  Json s = tiny_profile_json();
  s["cluster"]["interference"].erase("backward_by_collective");
  const Profile d = profile_from_json(s);
  EXPECT_TRUE(d.cluster.gamma_from_stretch);
  EXPECT_GE(d.cluster.gamma, 1.07);
  EXPECT_FALSE(profile_to_json(d)["cluster"]["interference"].contains("backward_by_collective"));
}

// A collective as one curve ({"alpha_s", "ranges"}, LinkLevel::curves): read, written back
// in the same form, and its ranges checked (from 0, no gaps, no upper bound at the end).
TEST(ProfileJson, CollectiveCurvesRoundTripAndAreChecked) {
  Json j = tiny_profile_json();
  Json& ar = j["cluster"]["levels"]["inter"]["collectives"]["allreduce"];
  ar = {{"alpha_s", 3e-5},
        {"ranges", {{{"min_bytes", 0}, {"max_bytes", 65536}, {"beta_s_per_byte", 9e-10}},
                    {{"min_bytes", 65536}, {"beta_s_per_byte", 8e-10}}}}};
  const Profile p = profile_from_json(j);
  EXPECT_TRUE(p.cluster.inter.curves.count("allreduce"));
  ASSERT_EQ(p.cluster.inter.collectives.at("allreduce").size(), 2u);
  EXPECT_EQ(p.cluster.inter.collectives.at("allreduce")[1].alpha_s, 3e-5);
  const Json back = profile_to_json(p)["cluster"]["levels"]["inter"]["collectives"]["allreduce"];
  EXPECT_EQ(back["alpha_s"], 3e-5);
  EXPECT_FALSE(back["ranges"][0].contains("alpha_s"));
  EXPECT_EQ(profile_to_json(profile_from_json(profile_to_json(p))), profile_to_json(p));
  Json gap = j;
  gap["cluster"]["levels"]["inter"]["collectives"]["allreduce"]["ranges"][1]["min_bytes"] = 70000;
  EXPECT_EQ(error_of(gap).path(), "/cluster/levels/inter/collectives/allreduce/ranges/1/min_bytes");
  Json start = j;
  start["cluster"]["levels"]["inter"]["collectives"]["allreduce"]["ranges"][0]["min_bytes"] = 16;
  EXPECT_EQ(error_of(start).path(), "/cluster/levels/inter/collectives/allreduce/ranges/0/min_bytes");
  Json end = j;
  end["cluster"]["levels"]["inter"]["collectives"]["allreduce"]["ranges"][1]["max_bytes"] = 1e9;
  EXPECT_EQ(error_of(end).path(), "/cluster/levels/inter/collectives/allreduce/ranges/1/max_bytes");
  Json alpha = j;
  alpha["cluster"]["levels"]["inter"]["collectives"]["allreduce"]["alpha_s"] = -1;
  EXPECT_EQ(error_of(alpha).path(), "/cluster/levels/inter/collectives/allreduce/alpha_s");
  Json inner = j;
  inner["cluster"]["levels"]["inter"]["collectives"]["allreduce"]["ranges"][0]["alpha_s"] = 1e-5;
  EXPECT_EQ(error_of(inner).path(), "/cluster/levels/inter/collectives/allreduce/ranges/0/alpha_s");
}

// A gcu.profile/1 file reads as it always did: its gamma is both the closed form's
// stretch and the event rate; its contention keys sit at the cluster's top level. It is
// written back as gcu.profile/2.
TEST(ProfileJson, ReadsVersionOneAsItWasRead) {
  Json j = tiny_profile_json();
  j["schema"] = "gcu.profile/1";
  Json& c = j["cluster"];
  c.erase("gamma_stretch");
  c.erase("interference");
  c["gamma"] = 1.2;
  c["overlap_contention"] = 1.3;
  c["comm_contention"] = 1.9;
  c["comm_contention_reference"] = {{"bandwidth_gbps", 9.5}, {"alpha_s", 3e-5}};
  const Profile p = profile_from_json(j);
  EXPECT_DOUBLE_EQ(p.cluster.gamma, 1.2);
  EXPECT_DOUBLE_EQ(p.cluster.gamma_stretch, 1.2);
  EXPECT_FALSE(p.cluster.gamma_from_stretch);
  EXPECT_DOUBLE_EQ(p.cluster.overlap_contention, 1.3);
  EXPECT_DOUBLE_EQ(p.cluster.comm_contention, 1.9);
  ASSERT_TRUE(p.cluster.comm_contention_reference.has_value());
  const Json back = profile_to_json(p);
  EXPECT_EQ(back["schema"], "gcu.profile/2");
  EXPECT_EQ(back["cluster"]["interference"]["backward_by_collective"], 1.2);
  EXPECT_EQ(back["cluster"]["gamma_stretch"], 1.2);
  c["gamma_stretch"] = 1.1;  // a v2 key in a v1 file: unknown
  EXPECT_EQ(error_of(j).path(), "/cluster/gamma_stretch");
}

// The codec fits' per-tensor term: optional (absent = 0, not written when 0), round-trips,
// and a negative or non-numeric value names its field.
TEST(ProfileJson, PerTensorCodecTermRoundTripsAndIsChecked) {
  Json j = tiny_profile_json();
  EXPECT_EQ(profile_from_json(j).compressors.at("fp16").encode.per_tensor_s, 0.0);
  EXPECT_FALSE(profile_to_json(profile_from_json(j))["compressors"]["fp16"]["encode"].contains("per_tensor_s"));
  j["compressors"]["fp16"]["encode"]["per_tensor_s"] = 4e-5;
  j["compressors"]["fp16"]["decode"]["per_tensor_s"] = 2e-5;
  const Profile a = profile_from_json(j);
  EXPECT_EQ(a.compressors.at("fp16").encode.per_tensor_s, 4e-5);
  EXPECT_EQ(a.compressors.at("fp16").decode.per_tensor_s, 2e-5);
  const Json back = profile_to_json(a)["compressors"]["fp16"];
  EXPECT_EQ(back["encode"]["per_tensor_s"], 4e-5);
  EXPECT_EQ(back["decode"]["per_tensor_s"], 2e-5);
  for (const Json bad : {Json(-1e-6), Json("slow")}) {
    j["compressors"]["fp16"]["decode"]["per_tensor_s"] = bad;
    EXPECT_EQ(error_of(j).path(), "/compressors/fp16/decode/per_tensor_s") << bad.dump();
  }
}

// The collective floors (profile.h CollectiveFloor: a low-precision all-reduce's, the
// free-running all-gathers'): optional, round-trip, and every broken form names its field.
TEST(ProfileJson, CollectiveFloorsRoundTripAndAreChecked) {
  for (const std::string key : {"allreduce_floor", "allgather_floor"}) {
    SCOPED_TRACE(key);
    Json j = tiny_profile_json();
    ASSERT_TRUE(j["compressors"].contains("fp16"));
    EXPECT_FALSE(profile_to_json(profile_from_json(j))["compressors"]["fp16"].contains(key));
    j["compressors"]["fp16"][key] = {{"world", 4},
                                     {"elements", {16384, 65536, 262144}},
                                     {"seconds", {0.004, 0.006, 0.012}},
                                     {"per_element_s", 5e-9},
                                     {"se_s", {1e-4, 2e-4, 5e-4}}};
    const Profile a = profile_from_json(j);
    const auto& fit = a.compressors.at("fp16");
    const auto& floor = key == "allreduce_floor" ? fit.allreduce_floor : fit.allgather_floor;
    ASSERT_TRUE(floor.has_value());
    EXPECT_FALSE((key == "allreduce_floor" ? fit.allgather_floor : fit.allreduce_floor).has_value());
    EXPECT_EQ(floor->world, 4);
    EXPECT_EQ(floor->elements[1], 65536);
    EXPECT_DOUBLE_EQ(floor->per_element_s, 5e-9);
    EXPECT_EQ(floor->se_s, (std::vector<double>{1e-4, 2e-4, 5e-4}));
    EXPECT_EQ(profile_to_json(a)["compressors"]["fp16"][key], j["compressors"]["fp16"][key]);
    const std::string at = "/compressors/fp16/" + key;
    const auto broken = [&](const char* ptr, const Json& v) {
      Json k = j;
      k[Json::json_pointer(at + ptr)] = v;
      return error_of(k).path();
    };
    EXPECT_EQ(broken("/world", 1), at + "/world");
    EXPECT_EQ(broken("/elements/1", 16384), at + "/elements/1");  // not increasing
    EXPECT_EQ(broken("/elements/0", 0), at + "/elements/0");
    EXPECT_EQ(broken("/seconds/2", -1e-3), at + "/seconds/2");
    EXPECT_EQ(broken("/seconds", Json::array({0.004})), at + "/seconds");
    EXPECT_EQ(broken("/elements", "many"), at + "/elements");
    EXPECT_EQ(broken("/seconds/0", "soon"), at + "/seconds/0");
    EXPECT_EQ(broken("/per_element_s", -1e-9), at + "/per_element_s");
    EXPECT_EQ(broken("/se_s", Json::array({1e-4})), at + "/se_s");  // one per size
    EXPECT_EQ(broken("/se_s/1", -2e-4), at + "/se_s/1");
    EXPECT_EQ(broken("/se_s/2", "tiny"), at + "/se_s/2");
    Json extra = j;
    extra["compressors"]["fp16"][key]["unit"] = "ms";
    EXPECT_EQ(error_of(extra).path(), at + "/unit");
  }
}

TEST(ProfileJson, ErrorMessageHasPathExpectedAndGot) {
  Json j = tiny_profile_json();
  j["cluster"]["levels"]["inter"]["bandwidth_gbps"] = "fast";
  const ProfileError e = error_of(j);
  EXPECT_EQ(e.path(), "/cluster/levels/inter/bandwidth_gbps");
  EXPECT_NE(e.expected().find("number"), std::string::npos) << e.what();
  EXPECT_NE(e.got().find("\"fast\""), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()), e.path() + ": expected " + e.expected() + ", got " + e.got());
  EXPECT_EQ(std::string(e.with_file("p.json").what()).rfind("p.json: /cluster/levels/inter/bandwidth_gbps: ", 0), 0u);
}

struct TypeCase {
  const char* pointer;    // field to replace (or remove, when value is null JSON "<remove>")
  const char* value;      // JSON text, or "<remove>"
  const char* path;       // expected error path
  const char* expected;   // substring of the expected part
};

class ProfileJsonTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(ProfileJsonTypes, ReportsTheField) {
  const TypeCase& c = GetParam();
  Json j = tiny_profile_json();
  const Json::json_pointer ptr(c.pointer);
  if (std::string(c.value) == "<remove>") j.at(ptr.parent_pointer()).erase(ptr.back());
  else j[ptr] = Json::parse(c.value);
  const ProfileError e = error_of(j);
  EXPECT_EQ(e.path(), c.path) << e.what();
  EXPECT_NE(e.expected().find(c.expected), std::string::npos) << e.what();
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ProfileJsonTypes,
    ::testing::Values(
        TypeCase{"/cluster/nodes", "1.5", "/cluster/nodes", "integer"},
        TypeCase{"/cluster/nodes", "<remove>", "/cluster/nodes", "integer"},
        TypeCase{"/cluster/gama", "1.1", "/cluster/gama", "one of the fields of /cluster"},
        TypeCase{"/schema", "\"gcu.profile/3\"", "/schema", "gcu.profile/2"},
        TypeCase{"/schema", "<remove>", "/schema", "gcu.profile/2"},
        TypeCase{"/model/tensors", "<remove>", "/model/tensors", "backward order"},
        TypeCase{"/model/tensors/1/shape/0", "\"ten\"", "/model/tensors/1/shape/0", "integer"},
        TypeCase{"/model/tensors/1", "[10]", "/model/tensors/1", "object"},
        TypeCase{"/model/compute/0/ready_s", "0.5", "/model/compute/0/ready_s", "array"},
        TypeCase{"/model/compute/1/backward_s", "<remove>", "/model/compute/1/backward_s", "backward"},
        TypeCase{"/compressors/fp16/encode", "<remove>", "/compressors/fp16/encode", "encode"},
        TypeCase{"/compressors/fp16/decode/per_rank", "1", "/compressors/fp16/decode/per_rank", "fields"},
        TypeCase{"/convergence/schemes/topk:k=0.1/error_feedback", "1", "/convergence/schemes/topk:k=0.1/error_feedback",
                 "true or false"},
        TypeCase{"/cluster/levels/inter/collectives/allgatherv", "[]",
                 "/cluster/levels/inter/collectives/allgatherv", "allreduce"},
        TypeCase{"/provenance/assumptions/0", "3", "/provenance/assumptions/0", "string"}));

TEST(ProfileJson, CommentsAreIgnored) {
  Json j = tiny_profile_json();
  j["_comment"] = "generated by hand";
  j["cluster"]["_note"] = {{"anything", 1}};
  EXPECT_NO_THROW(profile_from_json(j));
}

TEST(ProfileJson, SyntaxErrorNamesTheByte) {
  try {
    profile_from_string("{\"schema\": \"gcu.profile/1\",, }");
    FAIL() << "no error";
  } catch (const ProfileError& e) {
    EXPECT_EQ(e.path(), "");
    EXPECT_NE(e.got().find("byte"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(document)"), std::string::npos) << e.what();
  }
}

TEST(ProfileJson, LevelMayBeOmittedWhenTheShapeDoesNotUseIt) {
  Json j = tiny_profile_json();
  j["cluster"]["levels"].erase("inter");
  EXPECT_EQ(error_of(j).path(), "/cluster/levels/inter");  // 2 nodes need it
  j["cluster"]["nodes"] = 1;
  const Profile p = profile_from_json(j);
  EXPECT_EQ(p.cluster.inter.bandwidth_gbps, 0);
  EXPECT_FALSE(profile_to_json(p)["cluster"]["levels"].contains("inter"));  // stays absent
}

// Issue 13: limits of the JSON text and of --set, errors naming the field.
TEST(ProfileJson, DuplicateKeysDepthAndOverflowNameTheField) {
  auto err = [](const std::string& text) {
    try {
      (void)parse_json_text(text);
    } catch (const ProfileError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(err(R"({"a": {"b": 1, "b": 2}})").find("/a/b: expected each key once"), std::string::npos);
  EXPECT_NE(err(R"({"a": [1, 2, 1e999]})").find("/a/2: expected a number within the range of a double"),
            std::string::npos);
  EXPECT_NE(err(std::string(65, '[') + std::string(65, ']')).find("nested at most 64"), std::string::npos);
  EXPECT_NO_THROW(parse_json_text(std::string(64, '[') + std::string(64, ']')));
}

TEST(ProfileJson, SetAppendsAtMostOneArrayElement) {
  Json j = Json::parse(R"({"a": [1, 2]})");
  apply_override(j, "/a/2=3");  // one past the end: appends
  EXPECT_EQ(j["a"].size(), 3u);
  try {
    apply_override(j, "/a/100000000=1");
    FAIL() << "no error";
  } catch (const ProfileError& e) {
    EXPECT_EQ(e.path(), "/a/100000000");
    EXPECT_NE(e.expected().find("an index <= 3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(j["a"].size(), 3u);
  EXPECT_THROW(apply_override(j, "/a/0=" + std::string(100, '[') + std::string(100, ']')), ProfileError);
  apply_override(j, "/a/0=76% top-1");  // not JSON: a plain string
  EXPECT_EQ(j["a"][0], "76% top-1");
}

}  // namespace
}  // namespace gcu::model
