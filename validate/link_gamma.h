// The backward's slowdown and the collectives' CPU contention measured on each testbed
// link: `gcu calibrate`'s gamma step alone (backward alone, then beside the model's DDP
// bucket all-reduces, then those all-reduces alone; the calibration's own model, batch
// sizes and threads) run through the link right after its rate sweep, with `--state-only`.
// From its state, the same two numbers the calibration puts in the profile, by the same
// solver (model/interference.h, link_interference below):
//   gamma            the backward's rate while the all-reduces ran beside it;
//   comm_contention  the factor on the collectives' CPU side (reference: the profile's
//                    host link, else its inter level), the profile's where the link does
//                    not determine it.
// The cells on that link are predicted with them (model::Conditions gamma and
// comm_contention) instead of the profile's, which were measured on the calibration's own
// link: beside a tbf-shaped 3 Gbit/s link at 4 ranks on 2 cores the bucket all-reduces took
// 1.7-1.8x as long beside the backward as alone and stretched it 2.0x, against 2.6-2.8x and
// 1.2-1.5x on the unshaped link (the wire and the CPU side of a collective do not simply
// overlap).
#pragma once

#include "model/interference.h"
#include "model/profile.h"
#include "validate/grid.h"
#include "validate/predict.h"
#include "validate/runner.h"
#include "validate/validate.h"

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace gcu::validate {

// out_dir/links/r<ranks>-<link>.gamma.json.state.json
std::string link_gamma_state_path(const std::string& out_dir, int ranks, const std::string& link_name);

// The calibration's own command (calibrate_args), writing `output` (its state goes to
// output + ".state.json"), every step but gamma skipped, --state-only.
std::vector<std::string> link_gamma_args(const ValidateOptions& o, const std::string& output);

// g from a kept gamma-step state: its timings, gamma and comm_contention (solved on `base`'s
// reference link with `ranks` ranks, one per node, as the cells are predicted). A state
// without the step, or with timings that are not finite and positive, leaves g unmeasured
// with the reason in g.note; an unreadable or malformed file also (never throws).
void read_link_gamma(LinkGamma& g, const std::string& state_path, const model::Profile& base, int ranks);

// The interference fit (model/interference.h) of g's step on `base` with `ranks` ranks, one
// per node: each all-reduce's time on the link is the step's own all-reduces alone
// (g.comm_alone_s) shared in proportion to the host link's costs (the profile's
// comm_contention_reference, else its inter level), its CPU side the host link's; gamma and
// comm_contention solved jointly so that the model's backward and all-reduces end when the
// step's did. The calibration-noise draws solve it again against their redrawn fits.
model::InterferenceFitResult link_interference(const LinkGamma& g, const model::Profile& base, int ranks);

// A solved factor the link determines: strictly inside (1, model::kCommContentionMax). At the
// top the model's max(t, l + f s) cannot reach the time measured beside the backward at
// any factor (a slow link's wire exceeds every contended CPU side: at 1 Gbit/s and 4 ranks
// the all-reduces took 8% longer beside the backward, which only the cap "explains", and
// the cap would then slow every small call of the compressed schemes 8x); at the bottom
// they ran no slower beside it than alone. Either way the cells keep the profile's factor.
bool link_comm_contention_determined(double factor);

// What a cell's predictor takes (CellPredictor::set_link_gamma): the factor when the link
// determines it, else 0 (the profile's).
double link_comm_contention_for_cells(double factor);

// The measured gamma of the cell's (ranks, link), or null.
const LinkGamma* link_gamma_for(const Cell& c, const std::vector<LinkRate>& links);

// Every cell whose link measured its gamma step is predicted with its gamma, and with its
// comm_contention where that is determined (else the profile's; CellPredictor::set_link_gamma).
void apply_link_gamma(const std::vector<Cell>& cells, const std::vector<LinkRate>& links,
                      std::vector<std::unique_ptr<CellPredictor>>& preds);

// Runs the step through the configured testbed (ranks, link) and reads it; a failed run
// leaves g unmeasured with the exit status and the log's path in g.note.
LinkGamma measure_link_gamma(const Testbed& bed, const ValidateOptions& o, const model::Profile& base, int ranks,
                             const Link& link, std::ostream& log);

}  // namespace gcu::validate
