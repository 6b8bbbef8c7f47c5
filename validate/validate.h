// `gcu validate`: run the trainer over a grid of settings on the shaped-network testbed,
// predict every cell with the model, and compare per component (SPEC §5, issue 11;
// docs/validation.md, report schema docs/validate-schema.md).
//
//   ValidateOptions o; o.grid.schemes = {"none", "fp16"}; o.profile = "p.json";
//   Report r = run_validate(o, std::cout);   // writes o.out_dir/validate.{json,csv,txt}, plots
#pragma once

#include "calibrate/stats.h"
#include "validate/compute_probe.h"
#include "validate/grid.h"
#include "validate/measure.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gcu::validate {

// The default of --error-goal (ValidateOptions::error_goal, GoalCheck).
inline constexpr double kDefaultErrorGoal = 0.05;

struct ValidateOptions {
  GridSpec grid;
  std::string profile;             // gcu.profile/2; with `calibrate` written here (default out_dir/profile.json)
  bool calibrate = false;          // run `gcu calibrate` first, in the same placement
  double calibrate_budget_s = 180;
  int iters = 12, warmup = 3;      // gcu train --iters / --warmup per round
  int repeats = 2;                 // rounds over all cells, each in a fresh random order
  int threads = 1;                 // gcu train --threads (and OMP_NUM_THREADS)
  uint64_t seed = 1;               // cell order
  std::string testbed = "auto";    // auto | netns | loopback | launcher
  // --testbed launcher (runner.h TestbedSpec): the cluster's launcher template, rank 0's
  // address, and shaping commands where the user has them.
  std::string launcher, master_addr = "127.0.0.1", shape_cmd, unshape_cmd;
  bool measure_links = true;       // collective sweep through each shaped link (link_rate.h)
  // on: the gamma step run through each link too, and its cells predicted with that
  // link's gamma and comm_contention (link_gamma.h); off: the profile's everywhere.
  std::string link_gamma;  // "" = the protocol's
  // user: what a user gets: one calibration, each link predicted at its point-to-point
  // probed rate, nothing re-measured in the grid (predict_rate probe, link_gamma,
  // compute_probes and speed_adjust off). diagnose: the in-grid measurements that
  // attribute an error (link-fits, each link's gamma, compute probes, speed adjustment).
  // Each of the four options below, when set, overrides its protocol's value.
  std::string protocol = "user";
  // probe: the link's point-to-point rate (LinkRate::probed_gbps); measured | nominal: the
  // link rate given to the model; link-fits: the collective costs measured through each
  // shaped link, per kind and size (validate/link_fits.h). "" = the protocol's.
  std::string predict_rate;
  std::string statistic = "mean";  // measured value compared: mean (time per iteration) | median
  std::string out_dir = "validate-out";
  std::string gcu;                 // the gcu binary (default: this one)
  std::string netbed;              // scripts/netbed.sh (default: beside the sources)
  double cell_timeout_s = 600;
  bool plots = true;
  bool calibration_noise = true;   // predicted p10-p90 from the calibration's sampling noise (calibration_noise.h)
  std::vector<std::string> train_args;  // extra `gcu train` arguments
  std::vector<std::string> calibrate_args;  // extra `gcu calibrate` arguments (--calibrate)
  std::string data = "synthetic";  // gcu train --data of every cell, and calibrate's --compute-data
  // cpu: Gloo; cuda: every rank trains on its GPU (gcu train --device cuda, NCCL), and
  // calibrate (--calibrate, the link sweeps) uses --backend nccl.
  std::string device = "cpu";
  // forward: take the machine's speed out of each cell's rounds (speed_adjust.h; the
  // noise test and the summary's errors use the adjusted total); off: the raw measurement.
  std::string speed_adjust;  // "" = the protocol's
  // on: calibrate's compute step timed again once per round among the cells, and the
  // predictions made with the probes' median compute (compute_probe.h); off: the profile's.
  std::string compute_probes;  // "" = the protocol's
  bool reuse = false;              // re-predict from out_dir's raw logs and link sweeps (no runs)
  // --exclude-rounds (1-based; with --reuse): rounds left out of every cell, e.g. one the
  // round-drift check (Summary::round_drift) showed the whole machine slower in.
  std::vector<int> exclude_rounds;
  // --error-goal: the |error| of the total the user needs the model within (the issue's
  // median goal, 5%); a noise-limited cell is judged against it (GoalCheck below).
  double error_goal = kDefaultErrorGoal;
  std::string command_line;        // recorded in the report
};

// The gamma step run through a link (link_gamma.h).
struct LinkGamma {
  bool measured = false;
  double gamma = 0;            // the backward's rate beside the link's bucket all-reduces
  double comm_contention = 0;  // the collectives' CPU-side factor, solved on the calibration's link
  // The cells use comm_contention only when the solve is inside (1, model::kCommContentionMax):
  // at either end the link does not determine it (link_gamma.h), and they keep the profile's.
  bool comm_contention_used() const;
  double stretch = 0;          // backward beside / alone
  double alone_s = 0, overlapped_s = 0, comm_s = 0, comm_alone_s = 0;  // the step's medians
  std::vector<double> bucket_bytes;  // the all-reduces' sizes (empty: the model's buckets)
  std::string state_path;      // the step's calibrate state file (empty: none)
  std::string note;            // why not measured
};

struct LinkRate {
  Link link;
  int ranks = 0;
  double measured_gbps = 0;            // all-reduce; 0 = not measured
  double measured_allgather_gbps = 0;  // the same sweep's all-gather (reported)
  std::string state_path;              // the sweep's calibrate state file (empty: none; link-fits reads it)
  std::string note;
  LinkGamma gamma;                     // --link-gamma: the link's own gamma step
  // The point-to-point probe (scripts/link_probe.py, link_rate.h): one TCP stream each
  // way at once between ranks 0 and 1; the lower direction's rate. What --predict-rate
  // probe (the user protocol) gives the model. 0 = not measured (probe_note says why).
  double probed_gbps = 0;
  double probed_rx_gbps[2] = {0, 0};   // rank 0's and rank 1's received rate
  std::string probe_path;              // the probe's output stem (empty: none)
  std::string probe_note;
};

// A cell's total with the machine's speed taken out (speed_adjust.h).
struct SpeedAdjustment {
  bool applied = false;
  std::string note;                  // why not applied
  double sensitivity_s = 0;          // S = dT/ds, from the model
  double coefficient = 1;            // k: the grid's fitted share of S the reference tracks; k S is applied
  double reference_s = 0;            // the group's (ranks, batch, link) mean reference (forward + optimizer), s
  std::vector<double> speed;         // per round: the round's reference / reference_s
  double mean_speed = 1;             // of the cell's rounds (about 1 unless its forward differs)
  std::vector<double> round_values;  // value_r - k S (speed_r - 1)
  double value = 0;                  // the measured statistic - k S (mean_speed - 1)
  double error = 0;                  // (predicted - value) / value
  // hypot(round_interval_width(round_values) / value (1 round: spread), reference_uncertainty)
  double uncertainty = 0;
  double reference_uncertainty = 0;  // |k S| x the 80% interval of the group's reference / value
  // The error with the reference taken against the forward + optimizer the model predicted
  // (the calibration's speed) instead of the group's: what is left once the machine's drift
  // since the calibration is out too. Reported, never used by the noise test.
  double error_at_calibration_speed = 0;
};

struct CellResult {
  Cell cell;
  bool ok = false;
  std::string message;           // failure, or notes
  std::vector<Breakdown> samples;  // measured iterations, all rounds pooled
  std::vector<std::string> logs;   // raw trainer logs (JSON lines): per round, rank 0's or every rank's
  // Ranks whose logs were merged per round (1: rank 0's alone; measure.h, merge_rank_logs),
  // and per measured iteration the others' wait for the slowest rank (empty when 1).
  int rank_logs = 0;
  std::vector<double> straggler_wait_s;
  int rounds = 0;
  std::vector<double> round_values;  // the statistic of the total, per completed round (drift between rounds)
  std::vector<int> round_ids;        // the round (0-based) of each round_values entry
  // Per completed round: the statistic of forward + optimizer, the speed adjustment's reference.
  std::vector<double> round_reference;
  Breakdown predicted{};
  std::string compute_basis;     // empty: the profile's compute at the cell's batch; else how it was obtained
  std::array<Spread, kComponents> measured{};
  Breakdown error{};             // (predicted - measured) / measured, of the statistic; NaN when <= 0
  double spread = 0;             // total: (p90 - p10) / median (iteration to iteration)
  // How far the machine moves the measured statistic (2+ rounds): the width of the 80%
  // interval of the mean of the rounds' values, 2 t(0.9, n-1) s / sqrt(n), over the value
  // (round_interval_width; shrinks as rounds are added); with one round, `spread`. Until
  // gcu.validate/5 it was the range, `uncertainty_range`, which grows with the rounds.
  double uncertainty = 0;
  double uncertainty_range = 0;  // (max - min) / value of the rounds' values; `spread` with one
  // How far the calibration's own sampling noise moves the prediction (calibration_noise.h):
  // the predicted total's p10-p90 over redrawn collective sweeps, and (p90 - p10) / predicted
  // total (0: not computed).
  double predicted_p10 = 0, predicted_p90 = 0;
  int calibration_draws = 0;
  double calibration_uncertainty = 0;
  // hypot(uncertainty, calibration_uncertainty) > |error of total|: the machine moved the
  // measurement or the calibration more than the model is off; not counted as a model error.
  bool noise_limited = false;
  double rate_used_gbps = 0;     // link rate the prediction used (0 = the profile's)
  double measured_link_gbps = 0;
  bool link_fits = false;        // predicted with the link's own collective fits (--predict-rate link-fits)
  double load_average = -1;      // mean over rounds of the 1-min load average at the start
  long nivcsw = 0;               // involuntary context switches of the cell's processes, all rounds
  double wall_s = 0;
  SpeedAdjustment speed;
  // The error and uncertainty of the total that the noise test and the summary use: the
  // speed-adjusted ones when the adjustment applied, else the raw ones.
  double judged_error() const;
  double judged_uncertainty() const;
  // hypot(judged uncertainty, calibration_uncertainty): the width of the judged error's 80%
  // interval, measurement and calibration together; the noise test compares it with |error|.
  double judged_noise() const;
};

// |error| of the total over a group of ok cells (one scheme, or one link).
struct GroupErrors {
  std::string name;
  int cells = 0, noise_limited = 0;
  double median_abs_error = 0, max_abs_error = 0;  // over the group's ok cells, noise-limited too
  double median_error = 0;                          // signed: < 0 = the model is optimistic
};

// Rounds to count the noise-limited cells (docs/validation.md §2, "Rounds to count"):
// the round-to-round spread assumed to stay as measured, the 80% interval of a mean of m
// rounds is the cell's judged uncertainty x (t90(m-1)/sqrt(m)) / (t90(n-1)/sqrt(n)); the
// fewest m > n (at most kRoundsPlanMax) with hypot(that, calibration noise) < |error|.
inline constexpr int kRoundsPlanMax = 50;
inline constexpr int kRoundsCounted = 0;              // not noise-limited (or not ok)
inline constexpr int kRoundsCalibrationLimited = -1;  // the calibration's noise alone >= |error|
inline constexpr int kRoundsBeyond = -2;              // more than kRoundsPlanMax rounds
inline constexpr int kRoundsOneRound = -3;            // one round: no round-to-round spread to scale
// A cell's rounds to count (from its statistics, after the speed adjustment), or a code.
int rounds_to_count(const CellResult& c);

// The grid's plan: of its noise-limited cells, how many would count at 2x and 4x the
// rounds it ran (the most any ok cell has), and why the others would not.
struct RoundsPlan {
  int rounds = 0, ok = 0, noise_limited = 0;
  int at_2x = 0, at_4x = 0;
  int calibration_limited = 0, beyond = 0, one_round = 0;
  double noise_limited_fraction_2x = 0, noise_limited_fraction_4x = 0;  // of the ok cells
};
RoundsPlan plan_rounds(const std::vector<CellResult>& cells);

// What a noise-limited cell still says (docs/validation.md §2, "Noise-limited cells against
// a goal"; goal_check.cpp). Its error cannot be told from the noise, but the noise is
// bounded: the far end of the error's 80% interval, |judged error| + hypot(judged
// uncertainty, calibration uncertainty) / 2 (both are widths of 80% intervals), is an
// upper bound on |error| at 90% one-sided confidence. A noise-limited cell whose bound is
// within the goal shows the model within the goal there; one whose bound is beyond it
// leaves the question open: only those are cells the noise kept from being judged.
// The bound of an ok cell with a finite error (NaN otherwise), noise-limited or not.
double error_bound(const CellResult& c);
struct GoalCheck {
  double goal = kDefaultErrorGoal;
  int ok = 0, noise_limited = 0;
  int within = 0;              // noise-limited, bound <= goal
  int open = 0;                // noise-limited, bound > goal (or not finite)
  double open_fraction = 0;    // open / ok
  double max_bound = std::nan("");  // over the noise-limited cells (NaN: none)
};
GoalCheck check_goal(const std::vector<CellResult>& cells, double goal);

struct Summary {
  std::vector<GroupErrors> by_scheme, by_link;  // in grid order
  std::vector<GroupErrors> by_batch, by_ranks;  // per-rank batch size and rank count, named by the number
  int cells = 0, ok = 0, failed = 0, noise_limited = 0;
  double noise_limited_fraction = 0;  // of the ok cells
  double median_abs_error = 0, max_abs_error = 0;  // total, over ok and not noise-limited cells
  int counted = 0;
  double median_abs_error_all = 0, max_abs_error_all = 0;  // total, over all ok cells (noise-limited too)
  // Noise-limited by the measurement alone (uncertainty > |error|, the rule before the
  // calibration's noise was added), and the median calibration_uncertainty of the ok cells
  // that have one (0: none).
  int noise_limited_measurement = 0;
  double median_calibration_uncertainty = 0;
  // Noise-limited by gcu.validate/4's rule (hypot(uncertainty_range, calibration) > |error|),
  // for comparison with the recordings made before gcu.validate/5.
  int noise_limited_range_rule = 0;
  // Per round (0-based, --repeats of them): the median over the ok cells measured in it and
  // in another round of (the cell's value in this round / the median of its rounds' values).
  // Cells run in a fresh random order each round, so a model error cannot move one round
  // against the others: a round far from 1 is a machine-wide phase (another process).
  // NaN: no such cell (one round, or the round excluded).
  std::vector<double> round_drift;
  // Median over the ok cells of measured / predicted forward and backward (the statistic;
  // NaN: none). No scheme, link or mode changes the forward, so a forward far from 1 says
  // the machine's speed moved since the calibration (or the calibration caught an
  // unusual minute), which moves every prediction by that share of compute.
  double forward_measured_over_predicted = std::nan("");
  double backward_measured_over_predicted = std::nan("");
  // The speed adjustment (speed_adjust.h): cells it applied to; the same figures as above
  // from the raw measurement (what gcu.validate/5 reported); and the median over the
  // adjusted cells of (adjusted - raw) error of the total, which should be near 0 (the
  // adjustment removes noise, it must not move the errors on average).
  int speed_adjusted = 0;
  int noise_limited_unadjusted = 0, counted_unadjusted = 0;
  double median_abs_error_unadjusted = 0, max_abs_error_unadjusted = 0;
  double median_abs_error_all_unadjusted = 0, max_abs_error_all_unadjusted = 0;  // over all ok cells
  double speed_adjustment_shift = std::nan("");
  // Over the adjusted cells, SpeedAdjustment::error_at_calibration_speed: median and max of
  // |error|, median signed (NaN: none). The errors the model leaves once the machine's speed
  // is that of the calibration; beside forward_measured_over_predicted, which says how far
  // it moved.
  double median_abs_error_at_calibration_speed = std::nan(""), max_abs_error_at_calibration_speed = std::nan("");
  double median_error_at_calibration_speed = std::nan("");
  RoundsPlan rounds_plan;
  GoalCheck goal_check;
};

// A forward ratio more than this from 1 is named in the log (calibration-to-grid drift).
inline constexpr double kComputeDriftWarn = 0.10;

// Rounds whose drift is more than this from 1 are named in the log (a machine-wide phase).
inline constexpr double kRoundDriftWarn = 0.10;
// The round drift of `cells` over `rounds` rounds (Summary::round_drift).
std::vector<double> round_drift(const std::vector<CellResult>& cells, int rounds);

struct Report {
  ValidateOptions options;
  std::string testbed;          // "netns" | "loopback" | "launcher"
  std::string testbed_note;
  std::string profile_path, profile_model;
  std::string profile_date;                 // the profile's provenance.date, as given
  // The profile's contention factors (model/profile.h Cluster), what the overlap cells used.
  double gamma = 1, overlap_contention = 1, comm_contention = 1;
  std::string grid_started;                 // ISO 8601 UTC; empty with --reuse (nothing run)
  std::optional<double> calibration_age_s;  // grid start - profile date, when both are known
  std::vector<LinkRate> links;
  ComputeProbes compute_probes;             // what the probes measured and whether they were used
  std::vector<CellResult> cells;
  Summary summary;
};

// Checks everything that can be checked before running (schemes, modes, profile, codec
// fits, output directory) and throws ValidateError; then runs. Progress goes to `log`.
Report run_validate(const ValidateOptions& o, std::ostream& log);

// A cell's statistics from its samples, predicted breakdown and round values: measured
// median/mean/p10/p90 per component, errors of `statistic` ("mean" or "median"), spread,
// uncertainty, noise_limited.
void compute_stats(CellResult& r, const std::string& statistic = "mean");
// One-sided 0.90 quantile of Student's t (calibrate/stats.h).
using calibrate::student_t90;
// The width of the 80% interval of the mean of `v` (2+ values): 2 t90(n-1) s / sqrt(n).
double round_interval_width(const std::vector<double>& v);
Summary summarize(const std::vector<CellResult>& cells, double error_goal = kDefaultErrorGoal);


// The `gcu train` command of one cell (rank 0's log at `log`) and the `gcu calibrate`
// command of --calibrate, both without the testbed's launch prefix. Exposed for tests.
std::vector<std::string> train_command(const ValidateOptions& o, const Cell& c, const std::string& log);
std::vector<std::string> calibrate_args(const ValidateOptions& o, const std::vector<Cell>& cells);

}  // namespace gcu::validate
