// Tests for the local launcher (trainer/runtime/launch.cpp) through `gcu launch`, with
// /bin/sh children: environment, output prefixes, exit codes, and stopping the other
// ranks when one fails.
#include "tests/trainer/runtime/spawn.h"

#include <gtest/gtest.h>

namespace gcu::trainer::testing {
namespace {

TEST(Launch, SetsRankEnvironmentAndPrefixesOutput) {
  TempDir d("launch_env");
  const auto r = run({GCU_EXE, "launch", "-n", "3", "--", "/bin/sh", "-c",
                      "echo r=$RANK w=$WORLD_SIZE l=$LOCAL_RANK a=$MASTER_ADDR p=${MASTER_PORT:+set}"},
                     d / "out", 30);
  EXPECT_EQ(r.status, 0) << r.output;
  for (int k = 0; k < 3; ++k)
    EXPECT_NE(r.output.find("[rank " + std::to_string(k) + "] r=" + std::to_string(k) +
                            " w=3 l=" + std::to_string(k) + " a=127.0.0.1 p=set"),
              std::string::npos)
        << r.output;
}

TEST(Launch, FailingRankStopsTheOthersAndNamesIt) {
  TempDir d("launch_fail");
  const auto r = run({GCU_EXE, "launch", "-n", "3", "--grace", "1", "--", "/bin/sh", "-c",
                      "if [ $RANK = 1 ]; then exit 7; fi; sleep 60"},
                     d / "out", 30);
  EXPECT_EQ(r.status, 7) << r.output;
  EXPECT_LT(r.seconds, 15.0);
  EXPECT_NE(r.output.find("rank 1 exited with code 7"), std::string::npos) << r.output;
}

TEST(Launch, BadArguments) {
  TempDir d("launch_bad");
  auto r = run({GCU_EXE, "launch", "-n", "0", "--", "/bin/true"}, d / "out", 30);
  EXPECT_NE(r.status, 0);
  r = run({GCU_EXE, "launch", "-n", "1", "--", "/nonexistent/program"}, d / "out2", 30);
  EXPECT_EQ(r.status, 127) << r.output;
  EXPECT_NE(r.output.find("cannot run"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gcu::trainer::testing
