// Grid expansion and link parsing (grid.h).
#include "validate/grid.h"

#include "compressors/registry.h"

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

namespace gcu::validate {

namespace {
std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string fmt(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}
}  // namespace

Link parse_link(const std::string& text) {
  const std::string t = lower(text);
  Link l;
  if (t == "unlimited" || t == "none" || t == "0" || t == "inf") {
    l.name = l.tc_rate = "unlimited";
    return l;
  }
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(t, &pos);
  } catch (const std::exception&) {
    throw ValidateError("link '" + text + "': expected unlimited, <x>gbit, <x>mbit, <x>kbit or Gbit/s as a number");
  }
  const std::string unit = t.substr(pos);
  double gbps = 0;
  if (unit.empty() || unit == "g" || unit == "gbit") gbps = v;
  else if (unit == "m" || unit == "mbit") gbps = v / 1e3;
  else if (unit == "k" || unit == "kbit") gbps = v / 1e6;
  else
    throw ValidateError("link '" + text + "': unknown unit '" + unit + "' (use gbit, mbit or kbit: bits per second)");
  if (!(gbps > 0) || !std::isfinite(gbps))
    throw ValidateError("link '" + text + "': the rate must be a positive number (or unlimited)");
  l.nominal_gbps = gbps;
  // tc gets whole kbit/s so that it never rounds a fraction of our choosing.
  const double kbit = std::round(gbps * 1e6);
  if (kbit < 8) throw ValidateError("link '" + text + "': below 8 kbit/s, which tc cannot shape");
  char kb[32];
  std::snprintf(kb, sizeof kb, "%.0fkbit", kbit);
  l.tc_rate = kb;
  l.name = gbps >= 1 ? fmt(gbps) + "gbit" : fmt(gbps * 1e3) + "mbit";
  return l;
}

std::string Cell::label() const {
  return (scheme_given.empty() ? scheme : scheme_given) + " " + link.name + " " + mode + " b" + std::to_string(batch) + " r" + std::to_string(ranks);
}

std::vector<Cell> expand_grid(const GridSpec& g) {
  if (g.schemes.empty()) throw ValidateError("no schemes given");
  std::vector<std::string> schemes;
  for (const auto& s : g.schemes) {
    try {
      schemes.push_back(compress::make_compressor(s)->spec());
    } catch (const std::exception& e) {
      throw ValidateError("scheme '" + s + "': " + e.what());
    }
  }
  for (const auto& m : g.modes)
    if (m != "overlap" && m != "after") throw ValidateError("mode '" + m + "': expected overlap or after");
  for (int b : g.batches)
    if (b < 1) throw ValidateError("batch size " + std::to_string(b) + ": must be >= 1");
  for (int r : g.ranks)
    // 1 rank: no collective crosses a link; the cells check compute and the codecs (one GPU).
    if (r < 1 || r > 64) throw ValidateError("ranks " + std::to_string(r) + ": must be 1..64");
  std::vector<Link> links = g.links;
  if (links.empty()) links.push_back(parse_link("unlimited"));
  if (g.modes.empty() || g.batches.empty() || g.ranks.empty()) throw ValidateError("empty grid axis");
  std::vector<Cell> cells;
  for (size_t si = 0; si < schemes.size(); ++si)
    for (const auto& l : links)
      for (const auto& m : g.modes)
        for (int b : g.batches)
          for (int r : g.ranks) {
            Cell c;
            c.id = int(cells.size());
            c.model = g.model;
            c.scheme = schemes[si];
            c.scheme_given = g.schemes[si];
            c.link = l;
            c.mode = m;
            c.batch = b;
            c.ranks = r;
            cells.push_back(std::move(c));
          }
  return cells;
}

std::vector<int> round_order(int n_cells, uint64_t seed, int round) {
  std::vector<int> o(size_t(std::max(0, n_cells)));
  std::iota(o.begin(), o.end(), 0);
  std::mt19937_64 rng(seed * 1000003ULL + uint64_t(round));
  std::shuffle(o.begin(), o.end(), rng);
  return o;
}

}  // namespace gcu::validate
