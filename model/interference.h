// Interference factors fitted through the Predictor itself (pure): the one solver behind
// calibrate's profile (the gamma step), gcu validate's per-link gamma step and the event
// rate of a profile that gives only the published stretch.
//
// The step: a backward of `backward_alone_s` (measured alone) while all-reduces of
// `bucket_bytes` run back to back from its start (calibrate/compute.h measure_gamma). The
// event model (iteration.h) runs exactly that when every bucket is ready at the start:
// backward at 1/gamma while a collective runs, each collective's CPU side comm_contention
// times slower beside it (profile.h Cluster). Two measured times, two factors:
//   backward_beside_s  when the backward ended,
//   comm_beside_s      when the last all-reduce ended (from the backward's start),
// solved by nested bisection on the Predictor's own backward_end_s / stream_end_s. A
// factor that runs to an end of its range is reported (at_bound) with what the model then
// gives against what was measured: nothing is clamped silently. When the all-reduces ran
// longer beside the backward than the largest comm_contention explains, the rest is taken
// as the wire's (calls_stretch) and gamma is fitted over the time they really ran.
#pragma once

#include "model/profile.h"
#include "model/units.h"

#include <vector>

namespace gcu::model {

// The ranges the factors are solved in. The upper ends are where the model stops
// explaining a step (a delay larger than the collectives' time; a wire slower than any
// contended CPU side), not measured values.
inline constexpr double kGammaMax = 4;
inline constexpr double kCommContentionMax = 8;

struct BesideStep {
  Seconds backward_alone_s = 0;
  Seconds backward_beside_s = 0;    // measured: backward's end beside the all-reduces
  Seconds comm_beside_s = 0;        // measured: the all-reduces' end, from backward start
  std::vector<double> bucket_bytes; // each all-reduce's bytes (FP32 DDP buckets)
};

// How the step's calls are costed.
struct BesideCosting {
  int nodes = 0, gpus_per_node = 0;  // 0: the profile's
  // Every call's time on the link x this (the per-link step scales the link's costs so
  // that the calls alone take what they measured alone); the CPU side stays the host
  // link's (Cluster::comm_contention_reference, else the profile's level as given).
  double calls_scale = 1;
};

struct BesideTimes {
  Seconds backward_end_s = 0, comm_end_s = 0;
};

// The Predictor's times for the step at the given factors. Throws ModelError for a step
// without buckets or a backward that is not finite and > 0.
BesideTimes beside_times(const Profile& p, const BesideStep& step, const BesideCosting& costing, double gamma,
                         double comm_contention);

struct InterferenceFitResult {
  double gamma = 1, comm_contention = 1;
  BesideTimes model;  // at the fitted factors
  bool gamma_at_bound = false, comm_contention_at_bound = false;
  // With comm_contention at its bound: how much longer than that bound explains the calls
  // ran beside the backward, taken as the wire's (every call's link time x this) for the
  // gamma fit; model is then at the stretched calls. 1 otherwise.
  double calls_stretch = 1;
  double backward_residual() const;  // (model - measured) / measured, backward's end
  double comm_residual() const;      // the same for the all-reduces' end
  BesideStep measured;
};

// Both factors, jointly. Throws ModelError as beside_times, and for measured times that
// are not finite and > 0.
InterferenceFitResult fit_interference(const Profile& p, const BesideStep& step, const BesideCosting& costing = {});

// The event model's rate that stretches the profile's own FP32 DDP backward (scheme none,
// overlapped, its own cluster and first batch) by `stretch` (the closed form's published
// gamma): how a profile that gives only the stretch gets its event rate. 1 for a stretch
// of 1 or a profile with nothing to overlap; kGammaMax at most.
double rate_from_stretch(const Profile& p, double stretch);

}  // namespace gcu::model
