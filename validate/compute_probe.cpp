// Compute probes (compute_probe.h).
#include "validate/compute_probe.h"

#include "calibrate/state.h"
#include "validate/measure.h"
#include "validate/validate.h"

#include <algorithm>
#include <cmath>

namespace gcu::validate {

namespace {

bool positive_finite(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

std::string probe_state_path(const std::string& out_dir, int round) {
  return out_dir + "/probes/round" + std::to_string(round) + ".json.state.json";
}

std::vector<std::string> probe_args(const ValidateOptions& o, const std::string& output) {
  // The calibration's own command (model, batch sizes, threads, data, backend and the
  // --calibrate-arg's, e.g. --compute-loop), writing `output`; the skip list comes last
  // and adds to any --skip among them.
  std::vector<std::string> a = calibrate_args(o, {});
  const auto out = std::find(a.begin(), a.end(), "-o");
  if (out != a.end() && out + 1 != a.end()) *(out + 1) = output;
  a.insert(a.end(), {"--skip", "gamma,collectives,codecs,errors,codec-gradients,contention,convergence"});
  return a;
}

void read_probe_state(ComputeProbe& p) {
  p.ok = false;
  p.entries.clear();
  try {
    const calibrate::CalibrationState st = calibrate::read_state_file(p.state_path);
    if (!st.compute || st.compute->entries.empty()) {
      p.message = p.state_path + ": no compute step";
      return;
    }
    for (const auto& e : st.compute->entries) {
      if (!positive_finite(e.forward_s) || !positive_finite(e.backward_s) || !std::isfinite(e.optimizer_s) ||
          e.optimizer_s < 0) {
        p.message = p.state_path + ": batch " + std::to_string(e.batch_size) +
                    ": forward, backward and optimizer must be finite and positive";
        p.entries.clear();
        return;
      }
      p.entries.push_back({e.batch_size, e.forward_s, e.backward_s, e.optimizer_s});
    }
    p.ok = true;
    p.message.clear();
  } catch (const std::exception& e) {
    p.message = e.what();
  }
}

model::Profile with_probed_compute(const model::Profile& base, ComputeProbes& out) {
  model::Profile p = base;
  out.batches.clear();
  out.used = false;
  int ok = 0;
  for (const auto& pr : out.probes) ok += pr.ok ? 1 : 0;
  for (auto& ce : p.model.compute) {
    ProbedCompute pc;
    pc.batch_size = ce.batch_size;
    pc.calibrated = {ce.batch_size, ce.forward_s, ce.backward_s, ce.optimizer_s};
    pc.probed = pc.calibrated;
    std::vector<double> f, b, o;
    for (const auto& pr : out.probes)
      if (pr.ok)
        for (const auto& e : pr.entries)
          if (e.batch_size == ce.batch_size) {
            f.push_back(e.forward_s);
            b.push_back(e.backward_s);
            o.push_back(e.optimizer_s);
          }
    pc.probes = int(b.size());
    if (pc.probes > 0 && positive_finite(ce.forward_s) && positive_finite(ce.backward_s)) {
      pc.probed = {ce.batch_size, spread_of(f).median, spread_of(b).median, spread_of(o).median};
      pc.forward_ratio = pc.probed.forward_s / ce.forward_s;
      pc.backward_ratio = pc.probed.backward_s / ce.backward_s;
      pc.optimizer_ratio = ce.optimizer_s > 0 ? pc.probed.optimizer_s / ce.optimizer_s : 1;
      pc.compute_ratio = (pc.probed.forward_s + pc.probed.backward_s + pc.probed.optimizer_s) /
                         (ce.forward_s + ce.backward_s + ce.optimizer_s);
      if (b.size() > 1) pc.backward_spread = (*std::max_element(b.begin(), b.end()) -
                                              *std::min_element(b.begin(), b.end())) / pc.probed.backward_s;
      for (double& r : ce.ready_s) r *= pc.backward_ratio;
      ce.forward_s = pc.probed.forward_s;
      ce.backward_s = pc.probed.backward_s;
      ce.optimizer_s = pc.probed.optimizer_s;
      out.used = true;
    }
    out.batches.push_back(pc);
  }
  if (out.probes.empty())
    out.note = "no probes: predicted with the calibration's compute";
  else if (!out.used)
    out.note = std::to_string(ok) + " of " + std::to_string(out.probes.size()) +
               " probes ok, none of a profile batch size: predicted with the calibration's compute";
  else
    out.note = "predicted with the median of " + std::to_string(ok) + " of " + std::to_string(out.probes.size()) +
               " probes' compute (forward, backward, optimizer); gamma, collectives and codecs the calibration's";
  return p;
}

}  // namespace gcu::validate
