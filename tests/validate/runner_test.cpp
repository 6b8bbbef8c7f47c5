// The testbeds' commands (validate/runner.h): the user's launcher template, whole-job and
// per-rank, its errors, and shaping only where the user gives the commands.
#include "validate/runner.h"
#include "validate/validate.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gcu::validate {
namespace {

std::string template_error(const std::string& t) {
  try {
    parse_launcher_template(t);
  } catch (const ValidateError& e) {
    return e.what();
  }
  return "";
}

TEST(LauncherTemplate, SplitsWordsAndGroupsQuotes) {
  EXPECT_EQ(parse_launcher_template("mpirun  -np {ranks} {cmd}"),
            (std::vector<std::string>{"mpirun", "-np", "{ranks}", "{cmd}"}));
  EXPECT_EQ(parse_launcher_template("ssh -o 'Batch Mode=yes' \"node{rank}\" {cmd}"),
            (std::vector<std::string>{"ssh", "-o", "Batch Mode=yes", "node{rank}", "{cmd}"}));
  EXPECT_NE(template_error("mpirun -np 2").find("has no {cmd}"), std::string::npos);
  EXPECT_NE(template_error("mpirun -np 2 x{cmd}").find("must stand alone"), std::string::npos);
  EXPECT_NE(template_error("{cmd} {cmd}").find("must stand alone"), std::string::npos);
  EXPECT_NE(template_error("ssh 'node {cmd}").find("unclosed quote"), std::string::npos);
  EXPECT_NE(template_error("  ").find("empty"), std::string::npos);
}

TestbedSpec launcher(const std::string& t) {
  TestbedSpec s;
  s.kind = "launcher";
  s.work_dir = std::filesystem::temp_directory_path().string();
  s.launcher = t;
  return s;
}

TEST(LauncherTestbed, WholeJobTemplateGetsTheCommandAndTheRendezvous) {
  const Testbed bed(launcher("mpirun --allow-run-as-root -np {ranks} {cmd}"));
  EXPECT_EQ(bed.name(), "launcher");
  EXPECT_FALSE(bed.shaped());
  EXPECT_TRUE(bed.real_links());
  const auto a = bed.command("gcu", 2, {"gcu", "train", "--iters", "5"});
  ASSERT_EQ(a.size(), 11u);
  EXPECT_EQ(a[0], "env");
  EXPECT_EQ(a[1], "MASTER_ADDR=127.0.0.1");
  EXPECT_EQ(a[2].rfind("MASTER_PORT=", 0), 0u);
  EXPECT_EQ(std::vector<std::string>(a.begin() + 3, a.end()),
            (std::vector<std::string>{"mpirun", "--allow-run-as-root", "-np", "2", "gcu", "train", "--iters", "5"}));
}

TEST(LauncherTestbed, PerRankTemplateGoesThroughGcuLaunch) {
  TestbedSpec s = launcher("ip netns exec gv-r{rank} env GLOO_SOCKET_IFNAME=gcu0 {cmd}");
  s.master_addr = "10.77.0.1";
  const Testbed bed(s);
  EXPECT_EQ(bed.command("/bin/gcu", 4, {"/bin/gcu", "train"}),
            (std::vector<std::string>{"/bin/gcu", "launch", "-n", "4", "--grace", "5", "--master-addr", "10.77.0.1", "--",
                                      "ip", "netns", "exec", "gv-r{rank}", "env", "GLOO_SOCKET_IFNAME=gcu0", "/bin/gcu",
                                      "train"}));
}

TEST(LauncherTestbed, ShapesOnlyWithTheUsersCommands) {
  Testbed plain(launcher("mpirun -np {ranks} {cmd}"));
  plain.configure(2, parse_link("unlimited"));  // the network as it is: nothing to do
  try {
    plain.configure(2, parse_link("200mbit"));
    FAIL() << "a shaped link without --shape-cmd";
  } catch (const ValidateError& e) {
    EXPECT_NE(std::string(e.what()).find("--shape-cmd"), std::string::npos) << e.what();
  }
  const std::string mark = (std::filesystem::temp_directory_path() / "gcu-shape-mark").string();
  std::filesystem::remove(mark);
  TestbedSpec s = launcher("mpirun -np {ranks} {cmd}");
  s.shape_cmd = "touch " + mark + ".{rate}.{ranks}";
  s.unshape_cmd = "rm -f " + mark + ".200000kbit.2";
  {
    Testbed bed(s);
    EXPECT_TRUE(bed.shaped());
    bed.configure(2, parse_link("200mbit"));
    EXPECT_TRUE(std::filesystem::exists(mark + ".200000kbit.2"));
  }  // torn down: unshaped
  EXPECT_FALSE(std::filesystem::exists(mark + ".200000kbit.2"));
  TestbedSpec half = launcher("mpirun {cmd}");
  half.shape_cmd = "true";
  EXPECT_THROW(Testbed{half}, ValidateError);
  TestbedSpec wrong;
  wrong.kind = "loopback";
  wrong.launcher = "mpirun {cmd}";
  EXPECT_THROW(Testbed{wrong}, ValidateError);
}

}  // namespace
}  // namespace gcu::validate
