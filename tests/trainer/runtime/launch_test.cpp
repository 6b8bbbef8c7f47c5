// Tests for the local launcher (trainer/runtime/launch.cpp) through `gcu launch`, with
// /bin/sh children: environment, output prefixes, exit codes, stopping the other ranks
// when one fails, and forwarding SIGINT/SIGTERM to the ranks (SIGKILL after the grace).
#include "tests/trainer/runtime/spawn.h"
#include "trainer/runtime/train_options.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

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

TEST(Launch, RankAndCountInTheCommandAreEachRanks) {
  // A per-rank launcher template: {rank} and {nproc} in any argument.
  TempDir d("launch_template");
  const auto r = run({GCU_EXE, "launch", "-n", "2", "--", "/bin/sh", "-c", "echo host=node{rank} of {nproc}"},
                     d / "out", 30);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("[rank 0] host=node0 of 2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[rank 1] host=node1 of 2"), std::string::npos) << r.output;
  EXPECT_EQ(rank_command({"a{rank}{rank}", "{nproc}", "{ran"}, 12, 16),
            (std::vector<std::string>{"a1212", "16", "{ran"}));
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

// Waits until `marker` appears `count` times in the output file (the ranks are ready).
bool wait_for_output(const std::string& file, const std::string& marker, int count, double limit_s) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < limit_s) {
    const std::string s = slurp(file);
    int n = 0;
    for (size_t p = s.find(marker); p != std::string::npos; p = s.find(marker, p + 1)) ++n;
    if (n >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(Launch, ForwardsSigintToTheRanks) {
  TempDir d("launch_int");
  const auto p = start({GCU_EXE, "launch", "-n", "2", "--grace", "20", "--", "/bin/sh", "-c",
                        "sleep 30 & c=$!; trap 'echo got INT; kill $c; exit 0' INT; echo ready; wait $c"},
                       {}, d / "out");
  ASSERT_TRUE(wait_for_output(d / "out", "] ready", 2, 20)) << slurp(d / "out");
  ::kill(p.pid, SIGINT);
  const auto r = wait_for(p, 30);
  EXPECT_EQ(r.status, 128 + SIGINT) << r.output;
  EXPECT_LT(r.seconds, 15.0) << "the ranks exit on the forwarded SIGINT, no SIGKILL needed";
  EXPECT_NE(r.output.find("[rank 0] got INT"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[rank 1] got INT"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("received SIGINT"), std::string::npos) << r.output;
}

TEST(Launch, SigtermIsForwardedThenRanksThatIgnoreItAreKilled) {
  TempDir d("launch_term");
  // Rank 1 ignores SIGTERM (the disposition survives exec): only SIGKILL ends it.
  const auto p = start({GCU_EXE, "launch", "-n", "2", "--grace", "1", "--", "/bin/sh", "-c",
                        "if [ $RANK = 1 ]; then trap '' TERM; fi; echo ready; exec sleep 60"},
                       {}, d / "out");
  ASSERT_TRUE(wait_for_output(d / "out", "] ready", 2, 20)) << slurp(d / "out");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the ranks exec sleep
  ::kill(p.pid, SIGTERM);
  const auto r = wait_for(p, 30);
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.output;
  EXPECT_GE(r.seconds, 0.9) << r.output;
  EXPECT_LT(r.seconds, 15.0) << r.output;
  EXPECT_NE(r.output.find("rank 0 was killed by signal " + std::to_string(SIGTERM)),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 1 was killed by signal " + std::to_string(SIGKILL)),
            std::string::npos) << r.output;
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
