// `gcu calibrate` orchestration: steps, budget, state file, profile output (see calibrate.h).
#include "calibrate/calibrate.h"

#include "calibrate/codecs.h"
#include "calibrate/collectives.h"
#include "calibrate/compute.h"
#include "calibrate/convergence.h"
#include "calibrate/group.h"
#include "compressors/registry.h"
#include "model/profile_json.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace gcu::calibrate {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void write_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + path + ": cannot create " + tmp);
    f << text;
    f.close();  // the data reach the disk here: a full disk shows up now, not in ~ofstream
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write " + path + " (disk full?): the previous file is left unchanged");
    }
  }
  std::filesystem::rename(tmp, path);
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown CPU";
}

std::string iso_date() {
  const std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

Json compute_to_json(const ComputeResult& r) {
  Json j;
  j["model"] = r.model_name;
  j["parameters"] = r.parameters;
  Json ts = Json::array();
  for (const auto& t : r.tensors) ts.push_back({{"name", t.name}, {"shape", t.shape}});
  j["tensors"] = ts;
  Json es = Json::array();
  for (const auto& t : r.times)
    es.push_back({{"batch_size", t.batch_size}, {"forward_s", t.forward_s.median},
                  {"backward_s", t.backward_s.median}, {"optimizer_s", t.optimizer_s.median},
                  {"forward_spread", t.forward_s.rel_spread()}, {"backward_spread", t.backward_s.rel_spread()},
                  {"optimizer_spread", t.optimizer_s.rel_spread()},
                  {"backward_p10_s", t.backward_s.p10}, {"backward_p90_s", t.backward_s.p90},
                  {"iterations", t.backward_s.n}, {"warmup", t.backward_s.discarded}, {"ready_s", t.ready_s}});
  j["entries"] = es;
  return j;
}

std::vector<std::string> default_schemes() {
  std::vector<std::string> out;
  for (const auto& s : compress::Registry::instance().list()) out.push_back(s.name);
  return out;
}

bool registered(const std::string& name) {
  for (const auto& s : compress::Registry::instance().list())
    if (s.name == name) return true;
  return false;
}

}  // namespace

const std::vector<std::string>& calibration_steps() {
  static const std::vector<std::string> steps = {"compute", "gamma", "collectives", "codecs",
                                                 "errors", "contention", "convergence"};
  return steps;
}

CalibrateResult run_calibration(const CalibrateOptions& o, const Progress& progress_in) {
  if (o.output.empty()) throw std::invalid_argument("calibrate: an output profile path is required (--output)");
  for (const auto& s : o.skip)
    if (std::find(calibration_steps().begin(), calibration_steps().end(), s) == calibration_steps().end())
      throw std::invalid_argument("calibrate: unknown step '" + s + "' in --skip (steps: compute, gamma, "
                                  "collectives, codecs, errors, contention, convergence)");
  if (o.fit_statistic != "median" && o.fit_statistic != "p10" && o.fit_statistic != "min")
    throw std::invalid_argument("calibrate: --fit-statistic must be median, p10 or min, got '" + o.fit_statistic + "'");
  if (o.budget_s < 0) throw std::invalid_argument("calibrate: --budget-s must be >= 0, got " + std::to_string(o.budget_s));
  GroupOptions go;
  go.backend = o.backend;
  go.timeout_s = std::max(600.0, o.budget_s * 2 + 300);
  Group g(go);
  // Ranks sharing this node (torchrun / gcu launch set LOCAL_WORLD_SIZE; default: all).
  const char* lws = std::getenv("LOCAL_WORLD_SIZE");
  const int local_world = lws ? std::max(1, std::atoi(lws)) : g.world_size();
  const int threads = o.threads > 0 ? o.threads
                                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / local_world);
  torch::set_num_threads(threads);
  const bool lead = g.rank() == 0;
  auto progress = [&](const std::string& s) {
    if (lead && progress_in) progress_in(s);
  };
  const double t0 = now_s();
  auto elapsed = [&]() { return g.allreduce_max(now_s() - t0); };
  auto left = [&]() { return o.budget_s > 0 ? o.budget_s - elapsed() : 1e30; };

  // State: rank 0 reads it (resume) and tells the others which steps are done.
  const std::string state_path = o.state_file.empty() ? o.output + ".state.json" : o.state_file;
  Json st;
  st["meta"] = {{"model_spec", o.model_spec}, {"batch_sizes", o.batch_sizes}, {"world", g.world_size()},
                {"local_world", local_world}, {"backend", o.backend}, {"threads", threads},
                {"fit_statistic", o.fit_statistic}};
  if (lead && o.resume && std::filesystem::exists(state_path)) {
    std::ifstream f(state_path);
    Json old;
    try {
      old = Json::parse(f);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error("calibrate: cannot resume from state file " + state_path + ": " + e.what() +
                               " (remove it, or run without --resume, to start afresh)");
    }
    if (old.contains("meta") && old["meta"].value("model_spec", "") == o.model_spec &&
        old["meta"].value("world", 0) == g.world_size()) {
      st = old;
      st["skipped"] = Json::array();
      st["meta"]["fit_statistic"] = o.fit_statistic;
      progress("calibrate: resuming from " + state_path);
    } else {
      progress("calibrate: " + state_path + " is for another model or world size: starting afresh");
    }
  }
  std::string done_list;
  for (const auto& s : calibration_steps())
    if (st.contains(s)) done_list += s + ",";
  done_list = g.broadcast_string(done_list);
  auto done = [&](const std::string& s) { return done_list.find(s + ",") != std::string::npos; };
  auto save = [&]() {
    if (lead) write_atomic(state_path, st.dump(1));
  };
  auto skipped = [&](const std::string& s, const std::string& why) {
    st["skipped"].push_back(s + ": " + why);
    progress("calibrate: " + s + ": skipped (" + why + ")");
  };
  auto wanted = [&](const std::string& s, double min_left_s) {
    if (done(s)) return false;
    if (std::find(o.skip.begin(), o.skip.end(), s) != o.skip.end()) {
      skipped(s, "--skip");
      return false;
    }
    if (left() < min_left_s) {
      skipped(s, "time budget");
      return false;
    }
    progress("calibrate: " + s + " (" + std::to_string(static_cast<int>(now_s() - t0)) + " s elapsed)");
    return true;
  };
  if (!st.contains("skipped")) st["skipped"] = Json::array();

  ComputeOptions co;
  co.model_spec = o.model_spec;
  co.batch_sizes = o.batch_sizes;
  co.warmup = o.warmup;
  co.iters = o.iters;
  const int main_batch = *std::max_element(o.batch_sizes.begin(), o.batch_sizes.end());
  std::vector<std::string> schemes = o.schemes.empty() ? default_schemes() : o.schemes;

  const bool conv_off = o.convergence_schemes.size() == 1 && o.convergence_schemes[0] == "-";
  std::vector<std::string> conv_schemes = conv_off ? std::vector<std::string>{} : o.convergence_schemes;
  if (!conv_off && conv_schemes.empty())
    for (const char* s : {"qsgd", "efsignsgd", "ef(topk:k=0.01)", "topk:k=0.1", "powersgd:rank=2", "signsgd", "terngrad"})
      try {
        compress::make_compressor(s);
        conv_schemes.push_back(s);
      } catch (const std::exception&) {
      }
  // Errors are measured for the timed schemes and the convergence runs' schemes.
  std::vector<std::string> error_schemes = schemes;
  for (const auto& s : conv_schemes)
    if (std::find(error_schemes.begin(), error_schemes.end(), s) == error_schemes.end()) error_schemes.push_back(s);

  if (wanted("compute", 0)) {
    st["compute"] = compute_to_json(measure_compute(g, co, progress));
    save();
  }
  if (wanted("gamma", 2)) {
    const auto r = measure_gamma(g, co, main_batch, progress);
    st["gamma"] = {{"gamma", r.gamma}, {"alone_s", r.alone_s.median}, {"overlapped_s", r.overlapped_s.median},
                   {"alone_spread", r.alone_s.rel_spread()}, {"overlapped_spread", r.overlapped_s.rel_spread()},
                   {"buckets", r.buckets}, {"bytes", r.bucket_bytes}};
    save();
  }
  if (wanted("collectives", 5)) {
    SweepOptions so;
    so.min_bytes = o.min_bytes;
    so.max_bytes = o.max_bytes;
    if (o.budget_s > 0) {
      so.budget_s = std::max(3.0, left() * 0.35);
      so.target_s_per_size = std::min(0.4, so.budget_s / 200);
      so.target_s_per_large_size = std::min(2.0, so.budget_s / 50);
    }
    auto sweeps = sweep_collectives(g, so, progress);
    st["collectives"] = sweeps_to_json(sweeps, g.world_size());
    save();
  }
  if (wanted("codecs", 3)) {
    CodecTimingOptions cto;
    if (!o.codec_sizes.empty()) cto.sizes = o.codec_sizes;
    cto.world = std::max(2, g.world_size());
    cto.warmup = 1;
    cto.iters = std::max(3, o.iters / 2);
    const double share = o.budget_s > 0 ? left() * 0.25 : 1e30;
    const double start = now_s();
    Json cj = Json::object();
    for (const auto& s : schemes) {
      if (now_s() - start > share) {
        skipped("codecs " + s, "time budget");
        continue;
      }
      try {
        const auto m = measure_codec(s, cto);
        cj[m.spec] = {{"encode", {{"fixed_s", m.fit.encode.fixed_s}, {"per_element_s", m.fit.encode.per_element_s}}},
                      {"decode", {{"fixed_s", m.fit.decode.fixed_s}, {"per_element_s", m.fit.decode.per_element_s},
                                  {"per_rank_element_s", m.fit.decode.per_rank_element_s}}},
                      {"measured_n", m.fit.measured_n}, {"gathers", m.gathers},
                      {"encode_geomean_rel", m.encode_quality.geomean_rel},
                      {"decode_geomean_rel", m.decode_quality.geomean_rel}};
        progress("calibrate: codec " + m.spec + " timed");
      } catch (const std::exception& e) {
        skipped("codecs " + s, e.what());
      }
    }
    g.barrier();
    st["codecs"] = cj;
    save();
  }
  if (wanted("errors", 3)) {
    Json ej = Json::object();
    if (lead) {
      const auto grads = collect_gradients(co, main_batch, o.error_snapshots, 5, progress);
      for (const auto& s : error_schemes) {
        try {
          auto c = compress::make_compressor(s);
          const auto e = measure_error(s, grads);
          ej[c->spec()] = {{"relative_error", e.relative_error}, {"relative_error_ef", e.relative_error_ef},
                           {"snapshots", e.snapshots}, {"buckets", e.buckets}};
        } catch (const std::exception& e) {
          skipped("errors " + s, e.what());
        }
      }
    }
    g.barrier();
    st["errors"] = ej;
    save();
  }
  if (wanted("contention", 3)) {
    std::string scheme = o.contention_scheme;
    for (const char* s : {"powersgd", "topk", "signsgd", "fp16", "none"})
      if (scheme.empty() && registered(s)) scheme = s;
    const auto r = measure_contention(g, co, main_batch, scheme, progress);
    st["contention"] = {{"scheme", r.scheme}, {"factor", r.factor}, {"backward_slowdown", r.backward_slowdown},
                        {"codec_slowdown", r.codec_slowdown}, {"codec_alone_s", r.codec_alone_s},
                        {"codec_overlapped_s", r.codec_overlapped_s}};
    save();
  }
  if (conv_off && !done("convergence")) skipped("convergence", "--convergence-schemes -");
  if (!conv_off && wanted("convergence", 10)) {
    Json cj;
    const double conv_left_s = left();  // collective: every rank calls it
    if (lead) {
      ConvergenceOptions cvo;
      cvo.compute = co;
      cvo.compute.lr = 0.05;
      cvo.workers = std::max(2, g.world_size());
      cvo.iterations = o.convergence_iterations;
      cvo.budget_s = o.budget_s > 0 ? conv_left_s * 0.8 : 0;
      cvo.schemes = conv_schemes;
      try {
        cj = run_convergence(cvo, st.contains("errors") ? st["errors"] : Json::object(), progress);
      } catch (const std::exception& e) {
        skipped("convergence", e.what());
      }
    }
    g.barrier();
    if (!cj.is_null()) st["convergence"] = cj;
    save();
  }

  CalibrateResult res;
  if (lead) {
    BuildInfo info;
    info.device = "CPU: " + cpu_model() + " (" + std::to_string(std::thread::hardware_concurrency()) +
                  " cores), " + std::to_string(g.world_size()) + " rank(s), " + o.backend + ", " +
                  std::to_string(threads) + " torch thread(s) per rank";
    info.date = iso_date();
    info.command = o.command_line;
    info.libraries = {{"libtorch", TORCH_VERSION}, {"gloo", "bundled with libtorch " TORCH_VERSION},
                      {"compiler", __VERSION__}};
    auto built = build_profile(st, info);
    model::validate_profile(built.profile);
    write_atomic(o.output, model::profile_to_json(built.profile).dump(2) + "\n");
    res.wrote_profile = true;
    res.report = built.report;
    progress("calibrate: wrote " + o.output + " (" + std::to_string(static_cast<int>(now_s() - t0)) + " s)");
  }
  g.barrier();
  return res;
}

}  // namespace gcu::calibrate
