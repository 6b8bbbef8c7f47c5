// The validation grid (docs/validation.md §2): schemes x links x modes x per-rank batch
// sizes x rank counts for one model, expanded into cells, and the link rates a user asks
// for ("unlimited", "1gbit", "200mbit", or a bare number of Gbit/s).
#pragma once

#include "model/units.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcu::validate {

// A user error in validate/ (bad grid, unknown scheme, unwritable output, ...); the
// message names the offending value.
struct ValidateError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Link {
  std::string name;           // as given, normalised: "unlimited", "1gbit", "200mbit"
  model::Gbps nominal_gbps = 0;  // 0 = unlimited (no tc qdisc)
  std::string tc_rate;        // what netbed.sh / tc gets: "1000mbit"; "unlimited"
  bool unlimited() const { return nominal_gbps <= 0; }
};

// "unlimited" | "none" | "0" -> unlimited; "<x>gbit", "<x>mbit", "<x>kbit", or a bare
// number of Gbit/s ("0.5"). Throws ValidateError naming the text.
Link parse_link(const std::string& text);

struct GridSpec {
  std::string model = "cnn";  // gcu train --model spec
  std::vector<std::string> schemes = {"none", "fp16"};  // canonicalised by expand_grid
  std::vector<Link> links;                               // empty = {unlimited}
  std::vector<std::string> modes = {"overlap", "after"};
  std::vector<int> batches = {32};
  std::vector<int> ranks = {2};
};

struct Cell {
  int id = 0;  // index in grid order (schemes outermost, ranks innermost)
  std::string model, scheme, mode;
  std::string scheme_given;  // as the user wrote it (table and plot labels)
  Link link;
  int batch = 0, ranks = 0;
  std::string label() const;  // "fp16 1gbit overlap b32 r2" (the scheme as given)
};

// Every combination, in grid order. Schemes are canonicalised through the compressor
// registry (an unknown scheme or a bad parameter throws ValidateError before anything
// runs); modes must be overlap or after; batches and ranks >= 1 (ranks >= 2).
std::vector<Cell> expand_grid(const GridSpec& g);

// Cell indices in a random interleaved order for round `round` (a fresh permutation per
// round from seed + round; the same on every run with the same seed).
std::vector<int> round_order(int n_cells, uint64_t seed, int round);

}  // namespace gcu::validate
