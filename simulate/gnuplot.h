// gnuplot without code injection: text as single-quoted one-line literals, and gnuplot
// started without a shell (posix_spawnp with an argv). Used by every plot gcu writes
// (simulate/plot.cpp, validate/plot.cpp); docs/robustness.md.
#pragma once

#include <string>

namespace gcu::simulate {

// Control characters (a newline would end a gnuplot command and start another) -> spaces.
std::string gnuplot_one_line(const std::string& s);

// A single-quoted gnuplot string literal of `s` (one line; a quote becomes U+2019).
std::string gnuplot_literal(const std::string& s);

// gnuplot run without a shell (posix_spawnp, argv): its stderr is collected through a pipe.
struct GnuplotRun {
  int status = -1;      // waitpid status, -1 when it did not start
  int spawn_errno = 0;  // ENOENT: gnuplot is not installed
  std::string log;      // what it printed on stderr
};

// Runs `gnuplot -e "outfile='<outfile>'" <script>` without a shell; never throws.
GnuplotRun run_gnuplot(const std::string& script, const std::string& outfile);

}  // namespace gcu::simulate
