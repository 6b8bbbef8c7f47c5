// The report's plots and the writing of every report file (report.h).
#include "validate/predict.h"
#include "validate/report.h"

#include "simulate/gnuplot.h"
#include "util/output_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>
#include <ostream>
#include <sstream>

#include <sys/wait.h>

namespace gcu::validate {

namespace {

std::string g(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

using simulate::gnuplot_literal;

void write_file(const std::string& path, const std::string& text) {
  try {
    util::write_file_atomic(path, text);
  } catch (const std::exception& e) {
    throw ValidateError(e.what());
  }
}

// x position of a cell on the bandwidth axis: the rate the model used, else the
// measured rate of the link (unlimited), else the profile's link.
double x_of(const CellResult& c, double profile_gbps) {
  if (c.rate_used_gbps > 0) return c.rate_used_gbps;
  if (c.measured_link_gbps > 0) return c.measured_link_gbps;
  return profile_gbps;
}

// One panel per (per-rank batch, ranks) when the grid has more than one, else one plot;
// a scheme and mode keep their colour across panels.
std::string bandwidth_script(const Report& r, const model::Profile& prof, const std::string& out) {
  const double pg = prof.cluster.inter.bandwidth_gbps;
  using Panel = std::pair<int, int>;  // batch, ranks
  std::map<Panel, std::map<std::string, std::vector<const CellResult*>>> panels;
  std::map<std::string, int> colour;
  double lo = 1e30, hi = 0;
  for (const auto& c : r.cells) {
    const std::string name = (c.cell.scheme_given.empty() ? c.cell.scheme : c.cell.scheme_given) + " " + c.cell.mode;
    panels[{c.cell.batch, c.cell.ranks}][name].push_back(&c);
    colour.emplace(name, int(colour.size()) + 1);
    const double x = x_of(c, pg);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (!(hi > 0)) lo = 0.1, hi = 10;
  lo /= 2;
  hi *= 2;
  const int n = int(panels.size());
  const int cols = n <= 1 ? 1 : std::min(n, 3), rows = (n + cols - 1) / cols;
  std::ostringstream s;
  s << "# gcu validate: iteration time against link rate. Lines: predicted at each rate (the profile's\n"
    << "# collective fits at that rate); open circles: each cell's prediction (a shaped link's own fits);\n"
    << "# points: measured\n"
    << "# " << r.options.statistic << " with p10-p90 bars" << (n > 1 ? "; one panel per per-rank batch and rank count" : "")
    << ". Re-create: gnuplot bandwidth.gp\n"
    << "if (!exists('outfile')) outfile = " << gnuplot_literal(out) << "\n"
    << "set terminal pngcairo size " << (n > 1 ? 520 * cols : 1100) << "," << (n > 1 ? 120 + 520 * rows : 700)
    << " noenhanced\nset output outfile\n"
    << "set logscale x\nset xlabel 'link rate (Gbit/s; measured all-reduce rate of the link)'\n"
    << "set ylabel 'iteration time (ms)'\nset yrange [0:*]\nset key below maxrows 4 font ',9'\nset grid\n"
    << "set xrange [" << g(lo) << ":" << g(hi) << "]\n";
  const std::string title = "gcu validate: " + r.profile_model + " (" + r.testbed + ")";
  if (n > 1)
    s << "set multiplot layout " << rows << "," << cols << " title " << gnuplot_literal(title) << "\n";
  else
    s << "set title " << gnuplot_literal(title) << "\n";
  int i = 0;
  for (const auto& [panel, series] : panels) {
    const int first = i;
    for (const auto& [name, cells] : series) {
      s << "$p" << i << " << EOD\n";
      const CellPredictor cp(prof, cells.front()->cell);
      for (int k = 0; k <= 40; ++k) {
        const double x = lo * std::pow(hi / lo, k / 40.0);
        s << g(x) << " " << g(at(cp.predict(x), Component::Total) * 1e3) << "\n";
      }
      s << "EOD\n$m" << i << " << EOD\n";
      for (const CellResult* c : cells) {
        if (!c->ok) continue;
        const Spread& t = c->measured[size_t(Component::Total)];
        // Column 5: the cell's own prediction (with a shaped link's own fitted collectives,
        // validate/link_fits.h), which its error compares; the line is the rate model.
        s << g(x_of(*c, pg)) << " " << g(t.of(r.options.statistic) * 1e3) << " " << g(t.p10 * 1e3) << " "
          << g(t.p90 * 1e3) << " " << g(at(c->predicted, Component::Total) * 1e3) << "\n";
      }
      s << "EOD\n";
      ++i;
    }
    if (n > 1)
      s << "set title " << gnuplot_literal("batch " + std::to_string(panel.first) + " per rank, " +
                                           std::to_string(panel.second) + " ranks") << "\n";
    s << "plot ";
    int k = first;
    for (const auto& [name, cells] : series) {
      const int lt = colour.at(name);
      const std::string label = n > 1 ? name : name + " b" + std::to_string(panel.first) + " r" + std::to_string(panel.second);
      s << (k > first ? ", \\\n     " : "") << "$p" << k << " using 1:2 with lines lw 2 lc " << lt << " title "
        << gnuplot_literal(label + " predicted") << ", \\\n     $m" << k
        << " using 1:2:3:4 with yerrorbars pt 7 ps 1.2 lc " << lt << " title " << gnuplot_literal(label + " measured")
        << ", \\\n     $m" << k << " using 1:5 with points pt 6 ps 1.6 lc " << lt << " notitle";
      ++k;
    }
    s << ", \\\n     NaN with points pt 6 ps 1.6 lc rgb '#000000' title 'open circle: the prediction of the cell'\n";
  }
  if (n > 1) s << "unset multiplot\n";
  s << "set output\n";
  return s.str();
}

std::string scatter_script(const Report& r, const std::string& out) {
  std::ostringstream s;
  double hi = 0;
  s << "# gcu validate: predicted vs measured iteration time (" << r.options.statistic
    << ", p10-p90 bars), y = x.\n"
    << "if (!exists('outfile')) outfile = " << gnuplot_literal(out) << "\n"
    << "set terminal pngcairo size 800,750 noenhanced\nset output outfile\n"
    << "$d << EOD\n";
  for (const auto& c : r.cells) {
    if (!c.ok) continue;
    const Spread& t = c.measured[size_t(Component::Total)];
    const double p = at(c.predicted, Component::Total) * 1e3;
    // Column 6: the speed-adjusted value (speed_adjust.h) the noise test used, NaN without one.
    s << g(p) << " " << g(t.of(r.options.statistic) * 1e3) << " " << g(t.p10 * 1e3) << " " << g(t.p90 * 1e3) << " "
      << (c.noise_limited ? 1 : 0) << " " << (c.speed.applied ? g(c.speed.value * 1e3) : std::string("NaN")) << "\n";
    hi = std::max({hi, p, t.p90 * 1e3});
  }
  s << "EOD\n"
    << "set xlabel 'predicted iteration time (ms)'\nset ylabel 'measured iteration time (ms)'\n"
    << "set xrange [0:" << g(hi * 1.05 + 1) << "]\nset yrange [0:" << g(hi * 1.05 + 1) << "]\nset size square\n"
    << "set grid\nset key top left\nset datafile missing 'NaN'\nset title "
    << gnuplot_literal("gcu validate: " + r.profile_model) << "\n"
    << "plot x with lines lc rgb '#888888' title 'y = x', \\\n"
    << "     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \\\n"
    << "     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell', \\\n"
    << "     $d using 1:6 with points pt 2 ps 0.8 lc rgb '#222222' title 'machine speed taken out'\n"
    << "set output\n";
  return s.str();
}

// Runs gnuplot on `script` into image under the output-file policy (a temporary file
// renamed over it), without a shell. Returns "" or a note.
std::string run_gnuplot(const std::string& script, const std::string& image) {
  try {
    util::AtomicFile out(image);
    const simulate::GnuplotRun g = simulate::run_gnuplot(script, out.temp_path());
    if (g.spawn_errno != 0 || !WIFEXITED(g.status) || WEXITSTATUS(g.status) != 0)
      return "plot " + image + " not made (gnuplot missing or failed: " + g.log.substr(0, 200) + "); script " +
             script;
    out.commit();
  } catch (const std::exception& e) {
    return std::string("cannot write ") + image + ": " + e.what();
  }
  return "";
}

}  // namespace

void write_reports(const Report& r, const model::Profile& profile, std::ostream& log) {
  const std::string d = r.options.out_dir;
  if (d.find_first_of("'\"`$\\") != std::string::npos)
    throw ValidateError("output directory '" + d + "': quotes, $, ` and \\ are not allowed in its name");
  const std::string table = format_table(r);
  log << "\n" << table;
  write_file(d + "/validate.txt", table);
  write_file(d + "/validate.csv", format_csv(r));
  write_file(d + "/validate.json", format_json(r));
  log << "gcu validate: wrote " << d << "/validate.{json,csv,txt}\n";
  if (!r.options.plots) return;
  write_file(d + "/bandwidth.gp", bandwidth_script(r, profile, d + "/bandwidth.png"));
  write_file(d + "/scatter.gp", scatter_script(r, d + "/scatter.png"));
  for (const char* n : {"bandwidth", "scatter"}) {
    const std::string note = run_gnuplot(d + "/" + n + ".gp", d + "/" + n + ".png");
    log << "gcu validate: " << (note.empty() ? "wrote " + d + "/" + n + ".png" : note) << "\n";
  }
}

}  // namespace gcu::validate
