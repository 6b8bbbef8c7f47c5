// gnuplot plots (plot.h).
#include "simulate/plot.h"

#include "simulate/error.h"
#include "simulate/gnuplot.h"
#include "util/output_file.h"
#include "simulate/format.h"
#include "util/text.h"

#include "compressors/registry.h"

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <vector>

#include <sys/stat.h>
#include <unistd.h>

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

// A string field of an inline data block or the .dat file: double quotes delimit it
// there, so quotes inside become single quotes. Data lines are never executed.
std::string datum(const std::string& s) {
  std::string o = gnuplot_one_line(s);
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

}  // namespace

std::string gnuplot_script(const ResultTable& t, const std::string& outfile, const std::string& title) {
  const std::string ext = extension_of(outfile);
  std::ostringstream g;
  g << "# gcu simulate plot: re-create with `gnuplot " << stem_of(outfile) << ".gp`\n"
    << "# (override the output: gnuplot -e \"outfile='other.png'\" " << stem_of(outfile) << ".gp)\n"
    << terminal_lines(ext) << "if (!exists(\"outfile\")) outfile = " << gnuplot_literal(outfile) << "\n"
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
      g << "$s" << s << " << EOD\n# " << gnuplot_one_line(t.schemes[s]) << "\n# x iteration_ms speedup\n";
      for (const auto& r : t.rows) {
        if (r.scheme != t.schemes[s]) continue;
        const auto& sp = all16 ? r.vs_fp16 : r.vs_fp32;
        g << fmt_number(r.x) << " " << fmt_number(r.iteration.total_s * 1e3) << " "
          << (sp ? fmt_number(*sp) : "NaN") << "\n";
      }
      g << "EOD\n";
    }
    // A log axis for a wide range of values that are not evenly spaced (8,16,32,64 or
    // A:B:N:log); a linear sweep (A:B:N) keeps a linear axis.
    std::vector<double> xs = t.sweep->values;
    std::sort(xs.begin(), xs.end());
    bool evenly = xs.size() >= 2;
    for (size_t i = 2; i < xs.size() && evenly; ++i)
      evenly = std::abs((xs[i] - xs[i - 1]) - (xs[1] - xs[0])) <= 1e-6 * (hi - lo);
    const bool logx = lo > 0 && hi / lo >= 20 && !evenly;
    g << "set xrange [" << fmt_number(lo) << ":" << fmt_number(hi) << "]\n";
    if (logx) {
      // 1-2-5 tics inside the range
      std::string tics;
      for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
        for (double m : {1.0, 2.0, 5.0})
          if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) tics += (tics.empty() ? "" : ", ") + fmt_number(d * m);
      g << "set logscale x\nset xtics (" << tics << ", " << fmt_number(hi) << ")\n";
    }
    g << "set multiplot layout 2,1 title " << gnuplot_literal(title) << "\n"
      << "set xlabel " << gnuplot_literal(sweep_axis_label(t.sweep->axis)) << "\n"
      << "set ylabel 'iteration time (ms)'\nset yrange [0:*]\n";
    g << "plot ";
    for (size_t s = 0; s < t.schemes.size(); ++s)
      g << (s ? ", \\\n     " : "") << "$s" << s << " using 1:2 with linespoints lw 2 pt " << (s % 10) + 1
        << " ps 0.8 title " << gnuplot_literal(legend(t.schemes[s]));
    g << "\nset ylabel " << gnuplot_literal("speed-up vs " + base + " (x, >1 = faster)") << "\n"
      << "set yrange [0:*]\nplot ";
    for (size_t s = 0; s < t.schemes.size(); ++s)
      g << (s ? ", \\\n     " : "") << "$s" << s << " using 1:3 with linespoints lw 2 pt " << (s % 10) + 1
        << " ps 0.8 title " << gnuplot_literal(legend(t.schemes[s]));
    g << ", \\\n     1 with lines ls 100 title " << gnuplot_literal(base + " = 1") << "\n";
    g << "unset multiplot\n";
  } else {
    g << "$d << EOD\n# scheme iteration_ms\n";
    for (const auto& r : t.rows) g << datum(r.scheme) << " " << fmt_number(r.iteration.total_s * 1e3) << "\n";
    g << "EOD\n"
      << "set title " << gnuplot_literal(title) << "\nset ylabel 'iteration time (ms)'\nset xlabel 'scheme'\n"
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
  if (image_path.find_first_of("'\"`$\\") != std::string::npos || gnuplot_one_line(image_path) != image_path)
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
  const GnuplotRun run = gcu::simulate::run_gnuplot(f.script, image.temp_path());
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
