// Per-link gamma and collective contention (link_gamma.h).
#include "validate/link_gamma.h"
#include "validate/link_rate.h"

#include "model/interference.h"

#include "calibrate/profile_builder.h"
#include "calibrate/state.h"
#include "compressors/compressor.h"
#include "model/collectives.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>

namespace gcu::validate {

namespace {

bool positive_finite(double x) { return std::isfinite(x) && x > 0; }

// Gamma step's budget on top of calibrate's own start-up (the step itself is bounded by
// the calibration's --budget-s).
constexpr int kLinkGammaTimeoutS = 600;

// out_dir/links/r<ranks>-<link>.gamma: the step's -o is stem.json, its state stem.json.state.json,
// its output stem.out.
std::string link_gamma_stem(const std::string& out_dir, int ranks, const std::string& link_name) {
  return link_stem(out_dir, ranks, link_name) + ".gamma";
}

}  // namespace

std::string link_gamma_state_path(const std::string& out_dir, int ranks, const std::string& link_name) {
  return link_gamma_stem(out_dir, ranks, link_name) + ".json.state.json";
}

std::vector<std::string> link_gamma_args(const ValidateOptions& o, const std::string& output) {
  std::vector<std::string> a = calibrate_args(o, {});
  const auto out = std::find(a.begin(), a.end(), "-o");
  if (out != a.end() && out + 1 != a.end()) *(out + 1) = output;
  a.insert(a.end(), {"--skip", "compute,collectives,codecs,errors,codec-gradients,contention,convergence",
                     "--state-only"});
  return a;
}

model::InterferenceFitResult link_interference(const LinkGamma& g, const model::Profile& base, int ranks) {
  model::Cluster host = base.cluster;
  host.nodes = ranks;
  host.gpus_per_node = 1;
  if (host.comm_contention_reference) host.inter = *host.comm_contention_reference;
  calibrate::GammaState s;
  s.alone_s = g.alone_s;
  s.overlapped_s = g.overlapped_s;
  s.comm_s = g.comm_s;
  s.bucket_bytes = g.bucket_bytes;
  const std::optional<model::BesideStep> found = calibrate::beside_step(s, base);
  if (!found) throw model::ModelError("link gamma: the step's times must be finite and > 0, with all-reduces to fit");
  const model::BesideStep& step = *found;
  // Each call's time on the link: the step's own all-reduces alone, shared in proportion
  // to the host link's costs (the host link's when the state has no such time).
  const model::ClusterCost ref(host);
  double ref_sum = 0;
  for (double b : step.bucket_bytes) ref_sum += ref.cost(compress::CollectiveKind::AllReduce, b).time_s;
  model::BesideCosting costing;
  costing.nodes = ranks;
  costing.gpus_per_node = 1;
  costing.calls_scale = g.comm_alone_s > 0 && ref_sum > 0 ? g.comm_alone_s / ref_sum : 1;
  model::Profile p = base;
  p.cluster.inter = host.inter;  // the calls are scaled from the host link's costs
  p.cluster.intra = host.inter;
  p.cluster.comm_contention_reference = host.inter;
  return model::fit_interference(p, step, costing);
}

bool link_comm_contention_determined(double factor) {
  return std::isfinite(factor) && factor > 1 + 1e-6 && factor < model::kCommContentionMax - 1e-6;
}

double link_comm_contention_for_cells(double factor) {
  return link_comm_contention_determined(factor) ? factor : 0;
}

bool LinkGamma::comm_contention_used() const { return link_comm_contention_determined(comm_contention); }

const LinkGamma* link_gamma_for(const Cell& c, const std::vector<LinkRate>& links) {
  for (const LinkRate& l : links)
    if (l.ranks == c.ranks && l.link.name == c.link.name && l.gamma.measured) return &l.gamma;
  return nullptr;
}

void apply_link_gamma(const std::vector<Cell>& cells, const std::vector<LinkRate>& links,
                      std::vector<std::unique_ptr<CellPredictor>>& preds) {
  for (size_t i = 0; i < cells.size() && i < preds.size(); ++i)
    if (const LinkGamma* g = link_gamma_for(cells[i], links))
      preds[i]->set_link_gamma(g->gamma, link_comm_contention_for_cells(g->comm_contention));
}

void read_link_gamma(LinkGamma& g, const std::string& state_path, const model::Profile& base, int ranks) {
  g = LinkGamma{};
  g.state_path = state_path;
  try {
    const calibrate::CalibrationState st = calibrate::read_state_file(state_path);
    if (!st.gamma) {
      g.note = state_path + ": no gamma step";
      return;
    }
    const calibrate::GammaState& s = *st.gamma;
    if (!positive_finite(s.alone_s) || !positive_finite(s.overlapped_s) || !positive_finite(s.comm_s)) {
      g.note = state_path + ": the gamma step's backward alone, backward beside the all-reduces and the all-reduces' "
                            "time must be finite and positive (an older state has no all-reduce time)";
      return;
    }
    g.alone_s = s.alone_s;
    g.overlapped_s = s.overlapped_s;
    g.comm_s = s.comm_s;
    g.comm_alone_s = std::isfinite(s.comm_alone_s) ? s.comm_alone_s : 0;
    g.stretch = s.overlapped_s / s.alone_s;
    g.bucket_bytes = s.bucket_bytes;
    const model::InterferenceFitResult f = link_interference(g, base, ranks);
    g.gamma = f.gamma;
    g.comm_contention = f.comm_contention;
    if (!positive_finite(g.gamma) || !(g.comm_contention >= 1) || !std::isfinite(g.comm_contention)) {
      g.note = state_path + ": gamma or comm_contention came out not finite";
      return;
    }
    g.measured = true;
  } catch (const std::exception& e) {
    g.note = state_path + ": " + e.what();
  }
}

LinkGamma measure_link_gamma(const Testbed& bed, const ValidateOptions& o, const model::Profile& base, int ranks,
                             const Link& link, std::ostream& log) {
  const std::string stem = link_gamma_stem(o.out_dir, ranks, link.name);
  const std::string state = stem + ".json.state.json", out = stem + ".out";
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir + "/links", ec);
  std::remove(state.c_str());
  const std::vector<std::string> a = bed.command(o.gcu, ranks, link_gamma_args(o, stem + ".json"));
  log << "gcu validate: gamma on link " << link.name << " (" << ranks << " ranks, backward beside its bucket all-reduces)"
      << std::flush;
  const ProcessResult r = run_process(a, out, kLinkGammaTimeoutS);
  LinkGamma g;
  read_link_gamma(g, state, base, ranks);
  if (r.exit_code != 0 && !g.measured)
    g.note = "not measured: exit " + std::to_string(r.exit_code) + " (" + out + ")" + (g.note.empty() ? "" : "; " + g.note);
  if (g.measured)
    log << ": gamma " << g.gamma << " (calibration " << base.cluster.gamma << "), comm contention " << g.comm_contention
        << (g.comm_contention_used() ? "" : " (not determined by this link: the calibration's used)") << " (calibration "
        << base.cluster.comm_contention << "); all-reduces " << g.comm_s * 1e3
        << " ms beside the backward, " << g.comm_alone_s * 1e3 << " alone\n";
  else
    log << ": " << g.note << "\n";
  return g;
}

}  // namespace gcu::validate
