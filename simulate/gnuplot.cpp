// gnuplot.h: literal quoting and the shell-free runner.
#include "simulate/gnuplot.h"

#include <cerrno>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gcu::simulate {

// Text that goes into the script: control characters (a newline would end the command
// and start another) become spaces.
std::string gnuplot_one_line(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return o;
}

// A gnuplot string literal. Single quotes: gnuplot substitutes `command` and @macros
// inside double-quoted strings but not inside single-quoted ones, where the only special
// character is the quote itself. Doubling it is gnuplot's escape, but gnuplot 5.4
// misreads two doubled quotes in a row, so a quote in the text is written as the
// typographic apostrophe U+2019 instead. With gnuplot_one_line(), a profile's model name or a
// scheme spec stays text, when run and in the saved .gp script (docs/robustness.md).
std::string gnuplot_literal(const std::string& s) {
  std::string o = "'";
  for (char c : gnuplot_one_line(s)) {
    if (c == '\'') o += "\u2019";
    else o += c;
  }
  return o + "'";
}

GnuplotRun run_gnuplot(const std::string& script, const std::string& outfile) {
  GnuplotRun r;
  int fds[2];
  if (::pipe(fds) != 0) return r;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  std::string quoted_out = "outfile=" + gnuplot_literal(outfile);
  std::vector<char*> argv = {const_cast<char*>("gnuplot"), const_cast<char*>("-e"), quoted_out.data(),
                             const_cast<char*>(script.c_str()), nullptr};
  pid_t pid = -1;
  r.spawn_errno = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && r.log.size() < (1 << 16)) r.log.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  if (r.spawn_errno != 0) return r;
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  return r;
}


}  // namespace gcu::simulate
