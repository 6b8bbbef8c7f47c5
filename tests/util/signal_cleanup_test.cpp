// util/temp_registry: a process killed by SIGTERM or SIGINT while writing leaves no
// temporary file, and still dies of the signal (the handler re-raises).
#include "util/output_file.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace gcu::util {
namespace {
namespace fs = std::filesystem;

void killed_while_writing(int sig) {
  const fs::path dir = fs::temp_directory_path() / ("gcu_sig_" + std::to_string(::getpid()) + "_" + std::to_string(sig));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string target = (dir / "out.json").string();
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    AtomicFile f(target);
    f.write("partial");
    (void)!::write(ready[1], "1", 1);
    ::pause();  // killed here
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  size_t temps = 0;
  for (const auto& e : fs::directory_iterator(dir)) temps += e.path().string().find(".tmp.") != std::string::npos;
  EXPECT_EQ(temps, 1u) << "the child's temporary file exists before the signal";
  ::kill(pid, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "the handler re-raises: status " << status;
  EXPECT_TRUE(fs::is_empty(dir)) << "no temporary file and no target left";
  ::close(ready[0]);
  ::close(ready[1]);
  fs::remove_all(dir);
}

TEST(SignalCleanup, SigtermRemovesTheTemporaryFile) { killed_while_writing(SIGTERM); }
TEST(SignalCleanup, SigintRemovesTheTemporaryFile) { killed_while_writing(SIGINT); }

}  // namespace
}  // namespace gcu::util
