// The torch-free front end (cli/forward.h, cli/main.cpp): --help lists every subcommand;
// the LibTorch subcommands reach gcu-torch with the same CLI; a build without gcu-torch
// says what is missing; a typo of a subcommand gets a did-you-mean, exit code 2.
#include "cli_test_util.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace {
namespace fs = std::filesystem;
using gcu::cli_test::Result;
using gcu::cli_test::gcu;
using gcu::cli_test::run_binary;

TEST(Front, HelpListsEverySubcommand) {
  const Result r = gcu("--help");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"simulate", "schemes", "calibrate", "validate", "pilot", "train", "launch"})
    EXPECT_NE(r.out.find(std::string("\n  ") + s + " "), std::string::npos) << s << "\n" << r.out;
}

TEST(Front, TorchSubcommandsRunInGcuTorch) {
  if (!fs::exists(fs::path(GCU_BINARY).parent_path() / "gcu-torch")) GTEST_SKIP() << "no LibTorch in this build";
  const Result r = gcu("train --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("Usage: gcu train"), std::string::npos) << r.out;  // the same name as typed
  EXPECT_NE(r.out.find("--scheme"), std::string::npos) << r.out;
  const Result bad = gcu("calibrate --no-such-option");  // gcu-torch's usage error, same exit code
  EXPECT_EQ(bad.rc, 2) << bad.out;
}

TEST(Front, WithoutGcuTorchSaysWhatIsMissing) {
  // The front end alone in a folder: what a build without LibTorch has.
  const fs::path dir = fs::temp_directory_path() / ("gcu_front_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(GCU_BINARY, dir / "gcu");
  const std::string alone = (dir / "gcu").string();
  for (const char* sub : {"calibrate", "train --help", "validate", "pilot run", "launch -n 2 -- true"}) {
    const Result r = run_binary(alone, sub);
    EXPECT_EQ(r.rc, 2) << sub << ": " << r.out;
    EXPECT_NE(r.out.find("LibTorch"), std::string::npos) << sub << ": " << r.out;
    EXPECT_NE(r.out.find("libtorch-dev"), std::string::npos) << sub << ": " << r.out;
    EXPECT_EQ(r.out.find("A subcommand is required"), std::string::npos) << r.out;
  }
  EXPECT_EQ(run_binary(alone, "simulate -p data/profiles/v100-resnet50.json --format csv").rc, 0);  // still works
  fs::remove_all(dir);
}

TEST(Front, SubcommandTyposGetADidYouMean) {
  const Result a = gcu("simulate recomend -p data/profiles/v100-resnet50.json");
  EXPECT_EQ(a.rc, 2) << a.out;
  EXPECT_NE(a.out.find("did you mean 'recommend'"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("gcu simulate --help"), std::string::npos) << a.out;
  const Result b = gcu("simulat -p data/profiles/v100-resnet50.json");
  EXPECT_EQ(b.rc, 2) << b.out;
  EXPECT_NE(b.out.find("did you mean 'simulate'"), std::string::npos) << b.out;
  const Result c = gcu("shemes");
  EXPECT_EQ(c.rc, 2) << c.out;
  EXPECT_NE(c.out.find("did you mean 'schemes'"), std::string::npos) << c.out;
  // Nothing near: CLI11's own message, still exit code 2.
  const Result d = gcu("simulate zzzzzzzz -p data/profiles/v100-resnet50.json");
  EXPECT_EQ(d.rc, 2) << d.out;
  EXPECT_EQ(d.out.find("did you mean"), std::string::npos) << d.out;
}

}  // namespace
