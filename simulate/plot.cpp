// gnuplot plots (plot.h).
#include "simulate/plot.h"

#include "simulate/error.h"
#include "util/output_file.h"
#include "simulate/format.h"
#include "util/text.h"

#include "compressors/registry.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <cerrno>
#include <vector>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gcu::simulate {
namespace {

std::string stem_of(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path;
  return path.substr(0, dot);
}

std::string extension_of(const std::string& path) {
  const std::string s = stem_of(path);
  return s.size() < path.size() ? path.substr(s.size() + 1) : "";
}

// Text that goes into the script: control characters (a newline would end the command
// and start another) become spaces.
std::string one_line(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return o;
}

// A gnuplot string literal. Single quotes: gnuplot substitutes `command` and @macros
// inside double-quoted strings but not inside single-quoted ones, where the only special
// character is the quote itself. Doubling it is gnuplot's escape, but gnuplot 5.4
// misreads two doubled quotes in a row, so a quote in the text is written as the
// typographic apostrophe U+2019 instead. With one_line(), a profile's model name or a
// scheme spec stays text, when run and in the saved .gp script (docs/robustness.md).
std::string q(const std::string& s) {
  std::string o = "'";
  for (char c : one_line(s)) {
    if (c == '\'') o += "\u2019";
    else o += c;
  }
  return o + "'";
}

// A string field of an inline data block or the .dat file: double quotes delimit it
// there, so quotes inside become single quotes. Data lines are never executed.
std::string datum(const std::string& s) {
  std::string o = one_line(s);
  for (char& c : o)
    if (c == '"') c = '\'';
  return "\"" + o + "\"";
}

std::string terminal_lines(const std::string& ext) {
  if (ext == "png")
    return "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
           "  set terminal pngcairo size 1100,900 font 'Sans,11' noenhanced\n"
           "} else {\n"
           "  set terminal png size 1100,900 noenhanced\n"
           "}\n";
  if (ext == "svg") return "set terminal svg size 1100,900 dynamic font 'Sans,11' noenhanced\n";
  throw SimulateError("plot file '" + ext + "': expected a name ending in .png or .svg");
}

// Legend text: the spec, and what it is when the registry labels it ("FP32 DDP").
std::string legend(const std::string& scheme) {
  const std::string& label = compress::Registry::instance().facts(scheme).label;
  return label.empty() ? scheme : scheme + " (" + label + ")";
}

// gnuplot run without a shell (posix_spawnp, argv): its stderr is collected through a pipe.
struct GnuplotRun {
  int status = -1;      // waitpid status, -1 when it did not start
  int spawn_errno = 0;  // ENOENT: gnuplot is not installed
  std::string log;      // what it printed on stderr
};

GnuplotRun run_gnuplot_on(const std::string& script, const std::string& outfile) {
  GnuplotRun r;
  int fds[2];
  if (::pipe(fds) != 0) return r;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  std::string quoted_out = "outfile=" + q(outfile);
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

}  // namespace

std::string gnuplot_script(const ResultTable& t, const std::string& outfile, const std::string& title) {
  const std::string ext = extension_of(outfile);
  std::ostringstream g;
  g << "# gcu simulate plot: re-create with `gnuplot " << stem_of(outfile) << ".gp`\n"
    << "# (override the output: gnuplot -e \"outfile='other.png'\" " << stem_of(outfile) << ".gp)\n"
    << terminal_lines(ext) << "if (!exists(\"outfile\")) outfile = " << q(outfile) << "\n"
    << "set output outfile\n"
    << "set grid\nset key inside right top box opaque\n"
    << "set style line 100 lc rgb 'gray40' dt 2 lw 1.5\n";
  // baseline used for the speed-up panel: FP16 when every row has it
  bool all16 = !t.rows.empty();
  for (const auto& r : t.rows) all16 = all16 && r.vs_fp16.has_value();
  const std::string base = all16 ? "FP16 DDP" : "FP32 DDP";

  if (t.sweep) {
    double lo = INFINITY, hi = -INFINITY;
    for (double v : t.sweep->values) lo = std::min(lo, v), hi = std::max(hi, v);
    for (size_t s = 0; s < t.schemes.size(); ++s) {
      g << "$s" << s << " << EOD\n# " << one_line(t.schemes[s]) << "\n# x iteration_ms speedup\n";
      for (const auto& r : t.rows) {
        if (r.scheme != t.schemes[s]) continue;
        const auto& sp = all16 ? r.vs_fp16 : r.vs_fp32;
        g << fmt_number(r.x) << " " << fmt_number(r.iteration.total_s * 1e3) << " "
          << (sp ? fmt_number(*sp) : "NaN") << "\n";
      }
      g << "EOD\n";
    }
    const bool logx = lo > 0 && hi / lo >= 20;
    g << "set xrange [" << fmt_number(lo) << ":" << fmt_number(hi) << "]\n";
    if (logx) {
      // 1-2-5 tics inside the range
      std::string tics;
      for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
        for (double m : {1.0, 2.0, 5.0})
          if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) tics += (tics.empty() ? "" : ", ") + fmt_number(d * m);
      g << "set logscale x\nset xtics (" << tics << ", " << fmt_number(hi) << ")\n";
    }
    g << "set multiplot layout 2,1 title " << q(title) << "\n"
      << "set xlabel " << q(sweep_axis_label(t.sweep->axis)) << "\n"
      << "set ylabel 'iteration time (ms)'\nset yrange [0:*]\n";
    g << "plot ";
    for (size_t s = 0; s < t.schemes.size(); ++s)
      g << (s ? ", \\\n     " : "") << "$s" << s << " using 1:2 with linespoints lw 2 pt " << (s % 10) + 1
        << " ps 0.8 title " << q(legend(t.schemes[s]));
    g << "\nset ylabel " << q("speed-up vs " + base + " (x, >1 = faster)") << "\n"
      << "set yrange [0:*]\nplot ";
    for (size_t s = 0; s < t.schemes.size(); ++s)
      g << (s ? ", \\\n     " : "") << "$s" << s << " using 1:3 with linespoints lw 2 pt " << (s % 10) + 1
        << " ps 0.8 title " << q(legend(t.schemes[s]));
    g << ", \\\n     1 with lines ls 100 title " << q(base + " = 1") << "\n";
    g << "unset multiplot\n";
  } else {
    g << "$d << EOD\n# scheme iteration_ms\n";
    for (const auto& r : t.rows) g << datum(r.scheme) << " " << fmt_number(r.iteration.total_s * 1e3) << "\n";
    g << "EOD\n"
      << "set title " << q(title) << "\nset ylabel 'iteration time (ms)'\nset xlabel 'scheme'\n"
      << "set yrange [0:*]\nset style fill solid 0.7 border -1\nset boxwidth 0.6\nunset key\n"
      << "set xtics rotate by -30\n"
      << "plot $d using 0:2:xtic(1) with boxes lc rgb '#4477aa', "
         "$d using 0:2:(sprintf('%.1f', $2)) with labels offset 0,0.8\n";
  }
  g << "set output\n";
  return g.str();
}

PlotFiles write_plot(const ResultTable& t, const std::string& image_path, const std::string& title,
                     bool run_gnuplot, const util::OutputOptions& out) {
  if (image_path.find_first_of("'\"`$\\") != std::string::npos || one_line(image_path) != image_path)
    throw SimulateError("plot file " + util::quote(image_path) +
                        ": quotes, $, `, \\ and control characters are not allowed in its name");
  PlotFiles f;
  f.image = image_path;
  f.script = stem_of(image_path) + ".gp";
  f.data = stem_of(image_path) + ".dat";
  const std::string script = gnuplot_script(t, image_path, title);  // checks the extension
  util::check_output_target(image_path, out);
  util::write_file_atomic(f.script, script, out);
  std::string dat = "# x scheme iteration_s speedup_vs_fp32 speedup_vs_fp16\n";
  for (const auto& r : t.rows)
    dat += fmt_number(r.x) + " " + datum(r.scheme) + " " + fmt_number(r.iteration.total_s) + " " +
           (r.vs_fp32 ? fmt_number(*r.vs_fp32) : "NaN") + " " + (r.vs_fp16 ? fmt_number(*r.vs_fp16) : "NaN") + "\n";
  util::write_file_atomic(f.data, dat, out);
  if (!run_gnuplot) return f;

  util::AtomicFile image(image_path, out);  // gnuplot writes the temporary file, commit() renames it
  const GnuplotRun run = run_gnuplot_on(f.script, image.temp_path());
  struct stat st {};
  if (run.status != 0 || ::stat(image.temp_path().c_str(), &st) != 0 || st.st_size == 0) {
    const bool missing = run.spawn_errno == ENOENT;
    throw SimulateError(missing ? "cannot plot " + image_path + ": gnuplot not found (install gnuplot-nox); "
                                  "the script is " + f.script
                                : "cannot plot " + image_path + ": gnuplot failed: " + util::printable(run.log, 2000));
  }
  image.commit();
  return f;
}

}  // namespace gcu::simulate
