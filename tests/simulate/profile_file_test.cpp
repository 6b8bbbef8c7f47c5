// simulate/profile_file: file errors and override-induced errors name the file (and the
// override); save + load round trip.
#include "simulate/profile_file.h"

#include "simulate/error.h"
#include "util/output_file.h"
#include "test_profile.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gcu::simulate {
namespace {
namespace fs = std::filesystem;

std::string tmp(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("gcu_pf_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return (d / name).string();
}

TEST(ProfileFile, SaveThenLoad) {
  const std::string f = tmp("p.json");
  const auto p = model::profile_from_json(test::tiny_profile_json());
  save_profile_file(p, f);
  const LoadedProfile l = load_profile_file(f);
  EXPECT_EQ(model::profile_to_json(l.profile), model::profile_to_json(p));
  EXPECT_EQ(l.path, f);
}

TEST(ProfileFile, OverridesApplyBeforeValidation) {
  const std::string f = tmp("q.json");
  util::write_file_atomic(f, test::tiny_profile_json().dump());
  const LoadedProfile l = load_profile_file(f, {"cluster.interference.backward_by_collective=1.1", "/cluster/nodes=4"});
  EXPECT_DOUBLE_EQ(l.profile.cluster.gamma, 1.1);
  EXPECT_EQ(l.profile.cluster.nodes, 4);
}

TEST(ProfileFile, ErrorsNameFileFieldAndOverride) {
  const std::string f = tmp("r.json");
  util::write_file_atomic(f, test::tiny_profile_json().dump());
  try {
    load_profile_file(f, {"cluster.gamma_stretch=0.5"});
    FAIL() << "no error";
  } catch (const model::ProfileError& e) {
    const std::string w = e.what();
    EXPECT_EQ(e.path(), "/cluster/gamma_stretch");
    EXPECT_NE(w.find(f), std::string::npos) << w;
    EXPECT_NE(w.find("--set cluster.gamma_stretch=0.5"), std::string::npos) << w;
  }
  try {
    load_profile_file(tmp("absent.json"));
    FAIL() << "no error";
  } catch (const model::ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.json"), std::string::npos) << e.what();
  }
  util::write_file_atomic(f, "{ not json");
  try {
    load_profile_file(f);
    FAIL() << "no error";
  } catch (const model::ProfileError& e) {
    EXPECT_EQ(e.file(), f);
    EXPECT_NE(std::string(e.what()).find("valid JSON"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcu::simulate
