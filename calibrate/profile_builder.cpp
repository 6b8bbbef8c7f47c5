// From calibration results to a profile (see profile_builder.h).
#include "calibrate/profile_builder.h"

#include "model/units.h"

#include <algorithm>
#include <cstdio>

namespace gcu::calibrate {

using compress::CollectiveKind;

namespace {

const CollectiveKind kKinds[] = {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                                 CollectiveKind::ReduceScatter, CollectiveKind::Broadcast};

CollectiveKind kind_from_key(const std::string& k) {
  for (auto kind : kKinds)
    if (k == model::collective_key(kind)) return kind;
  throw FitError("state file: unknown collective \"" + k + "\"");
}

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

}  // namespace

Json sweeps_to_json(const std::vector<CollectiveSweep>& sweeps, int world) {
  Json out;
  out["world"] = world;
  Json arr = Json::array();
  for (const auto& s : sweeps) {
    Json js;
    js["kind"] = model::collective_key(s.kind);
    js["supported"] = s.supported;
    js["note"] = s.note;
    Json rows = Json::array();
    for (const auto& r : s.rows)
      rows.push_back({{"bytes", r.bytes}, {"count", r.count}, {"median_s", r.time_s.median},
                      {"p10_s", r.time_s.p10}, {"p90_s", r.time_s.p90}, {"min_s", r.time_s.min},
                      {"max_s", r.time_s.max}, {"n", r.time_s.n}, {"discarded", r.time_s.discarded},
                      {"calls", r.calls}, {"disturbed", r.disturbed}});
    js["rows"] = rows;
    arr.push_back(js);
  }
  out["sweeps"] = arr;
  return out;
}

std::vector<CollectiveSweep> sweeps_from_json(const Json& j, const std::string& statistic) {
  std::vector<CollectiveSweep> out;
  const int world = j.at("world").get<int>();
  for (const auto& js : j.at("sweeps")) {
    CollectiveSweep s;
    s.kind = kind_from_key(js.at("kind").get<std::string>());
    s.world = world;
    s.supported = js.at("supported").get<bool>();
    s.note = js.value("note", "");
    for (const auto& jr : js.at("rows")) {
      SweepRow r;
      r.bytes = jr.at("bytes").get<int64_t>();
      r.count = jr.at("count").get<int64_t>();
      r.time_s.median = jr.at("median_s").get<double>();
      r.time_s.p10 = jr.at("p10_s").get<double>();
      r.time_s.p90 = jr.at("p90_s").get<double>();
      r.time_s.min = jr.at("min_s").get<double>();
      r.time_s.max = jr.at("max_s").get<double>();
      r.time_s.n = jr.at("n").get<size_t>();
      r.time_s.discarded = jr.value("discarded", size_t{0});
      r.calls = jr.value("calls", int64_t{0});
      r.disturbed = jr.value("disturbed", int64_t{0});
      s.rows.push_back(r);
    }
    fit_sweep(s, sweep_fit_options(), statistic);
    out.push_back(std::move(s));
  }
  return out;
}

BuiltProfile build_profile(const Json& st, const BuildInfo& info) {
  BuiltProfile out;
  model::Profile& p = out.profile;
  std::string& rep = out.report;
  p.provenance.source = "gcu calibrate";
  p.provenance.device = info.device;
  p.provenance.date = info.date;
  p.provenance.command = info.command;
  p.provenance.libraries = info.libraries;
  auto& notes = p.provenance.assumptions;
  if (st.contains("skipped"))
    for (const auto& s : st["skipped"]) notes.push_back("skipped: " + s.get<std::string>());

  // ---- model and compute
  if (!st.contains("compute")) throw FitError("no compute measurements: a profile needs the model's compute step");
  const Json& c = st["compute"];
  p.model.name = c.at("model").get<std::string>();
  p.model.parameters = c.at("parameters").get<int64_t>();
  for (const auto& t : c.at("tensors"))
    p.model.tensors.push_back({t.at("name").get<std::string>(), t.at("shape").get<std::vector<int64_t>>()});
  rep += "compute (" + p.model.name + ", medians; p10-p90 spread in %):\n";
  for (const auto& e : c.at("entries")) {
    model::ComputeEntry ce;
    ce.batch_size = e.at("batch_size").get<int>();
    ce.forward_s = e.at("forward_s").get<double>();
    ce.backward_s = e.at("backward_s").get<double>();
    ce.optimizer_s = e.at("optimizer_s").get<double>();
    ce.ready_s = e.at("ready_s").get<std::vector<double>>();
    p.model.compute.push_back(ce);
    rep += "  batch " + std::to_string(ce.batch_size) + ": forward " + fmt("%.3f", ce.forward_s * 1e3) +
           " ms, backward " + fmt("%.3f", ce.backward_s * 1e3) + " ms (spread " +
           fmt("%.0f", 100 * e.value("backward_spread", 0.0)) + "%), optimizer " +
           fmt("%.3f", ce.optimizer_s * 1e3) + " ms\n";
  }
  notes.push_back("compute: synthetic batches, SGD momentum 0.9, all ranks computing at once; ready_s from "
                  "tensor gradient hooks (host clock), tensors listed in the observed ready order");

  // ---- cluster
  const int world = st.contains("meta") ? st["meta"].value("world", 1) : 1;
  const int local = st.contains("meta") ? st["meta"].value("local_world", world) : world;
  p.cluster.nodes = std::max(1, world / std::max(1, local));
  p.cluster.gpus_per_node = std::max(1, world / p.cluster.nodes);
  p.cluster.algorithms = {"ring"};
  notes.push_back("cluster: algorithms = [ring]: the per-collective fits are converted with the ring formulas, "
                  "so the model reproduces the measured lines");
  bool have_link = false;
  if (st.contains("collectives")) {
    const std::string stat = st.contains("meta") ? st["meta"].value("fit_statistic", "median") : "median";
    auto sweeps = sweeps_from_json(st["collectives"], stat);
    rep += "\ncollectives (" + std::to_string(world) + " ranks; fits on the " + stat + " of each size):\n";
    if (stat != "median")
      notes.push_back("collectives: fitted on the " + stat + " of the timed calls of each size, not the median");
    for (const auto& s : sweeps) {
      if (!s.supported) {
        rep += "# " + std::string(compress::collective_name(s.kind)) + ": not measured: " + s.note + "\n";
        notes.push_back(std::string(compress::collective_name(s.kind)) + " not measured: " + s.note);
        continue;
      }
      rep += format_table(s.kind, world, s.rows, stat);
      rep += "# fit: " + std::to_string(s.fit.segments.size()) + " segment(s); relative error max " +
             fmt("%.1f", 100 * s.quality.max_rel) + "%, geomean " + fmt("%.1f", 100 * s.quality.geomean_rel) +
             "% (all sizes); max " + fmt("%.1f", 100 * s.quality_large.max_rel) + "%, geomean " +
             fmt("%.1f", 100 * s.quality_large.geomean_rel) + "% (>= 1 MiB, " +
             std::to_string(s.quality_large.n) + " sizes)\n";
      for (const auto& seg : s.fit.segments)
        rep += "#   [" + fmt("%.0f", seg.min_x) + ", " + fmt("%.0f", seg.max_x) + ") B/rank: T = " +
               fmt("%.2f", seg.fit.intercept * 1e6) + " us + n / " +
               fmt("%.3f", seg.fit.slope > 0 ? 1e-9 / seg.fit.slope : 0.0) + " GB/s\n";
      if (!s.note.empty()) rep += "# note: " + s.note + "\n";
    }
    try {
      model::LinkLevel level = link_level_from_sweeps(sweeps);
      (p.cluster.nodes > 1 ? p.cluster.inter : p.cluster.intra) = level;
      (p.cluster.nodes > 1 ? p.cluster.intra : p.cluster.inter) = level;
      have_link = true;
      notes.push_back(std::string("cluster: one level measured (") + (p.cluster.nodes > 1 ? "inter" : "intra") +
                      "); the other level is a copy of it");
    } catch (const FitError& e) {
      notes.push_back(std::string("collectives: ") + e.what());
    }
  }
  if (!have_link) {
    p.cluster.intra = {10.0, 50e-6, {}};
    p.cluster.inter = p.cluster.intra;
    notes.push_back("cluster: NO collective measured (one rank or skipped): placeholder link of 10 Gbps and 50 us");
  }
  if (st.contains("gamma")) {
    const double g = st["gamma"].at("gamma").get<double>();
    p.cluster.gamma = std::max(1.0, g);
    rep += "\ngamma: " + fmt("%.3f", g) + " (backward " + fmt("%.3f", st["gamma"].value("alone_s", 0.0) * 1e3) +
           " ms alone, " + fmt("%.3f", st["gamma"].value("overlapped_s", 0.0) * 1e3) + " ms with all-reduces)\n";
    if (g < 1) notes.push_back("gamma measured " + fmt("%.3f", g) + " < 1 (noise): stored as 1");
  } else {
    notes.push_back("gamma not measured: 1.0 assumed");
  }
  if (st.contains("contention")) {
    const Json& k = st["contention"];
    const double f = k.at("factor").get<double>();
    p.cluster.overlap_contention = std::max(1.0, f);
    rep += "overlap contention (" + k.value("scheme", "") + "): " + fmt("%.3f", f) + " (backward x" +
           fmt("%.3f", k.value("backward_slowdown", 1.0)) + ", codec x" + fmt("%.3f", k.value("codec_slowdown", 1.0)) + ")\n";
    notes.push_back("overlap_contention = geometric mean of the backward and the codec slowdowns when " +
                    k.value("scheme", std::string("a compressor")) + " runs on a thread beside backward");
  } else {
    notes.push_back("overlap contention not measured: 1.0 assumed");
  }

  // ---- compressors
  if (st.contains("codecs")) {
    rep += "\ncompressors (encode/decode fits; per bucket):\n";
    for (const auto& [spec, j] : st["codecs"].items()) {
      model::CodecFit f;
      f.encode.fixed_s = j.at("encode").at("fixed_s").get<double>();
      f.encode.per_element_s = j.at("encode").at("per_element_s").get<double>();
      f.decode.fixed_s = j.at("decode").at("fixed_s").get<double>();
      f.decode.per_element_s = j.at("decode").at("per_element_s").get<double>();
      f.decode.per_rank_element_s = j.at("decode").at("per_rank_element_s").get<double>();
      f.measured_n = j.at("measured_n").get<int64_t>();
      p.compressors[spec] = f;
      rep += "  " + spec + ": encode " + fmt("%.1f", f.encode.fixed_s * 1e6) + " us + " +
             fmt("%.3f", f.encode.per_element_s * 1e9) + " ns/elem (fit err " +
             fmt("%.0f", 100 * j.value("encode_geomean_rel", 0.0)) + "%), decode " +
             fmt("%.1f", f.decode.fixed_s * 1e6) + " us + " + fmt("%.3f", f.decode.per_element_s * 1e9) +
             " ns/elem + " + fmt("%.4f", f.decode.per_rank_element_s * 1e9) + " ns/elem/rank\n";
    }
    notes.push_back("compressors: step() timed on a loopback communicator playing p ranks; buckets viewed as "
                    "[n/1024, 1024] matrices; encode includes compute between collectives");
  }

  // ---- convergence
  model::Convergence& cv = p.convergence;
  if (st.contains("errors")) {
    rep += "\ncompression error on real gradients (E||C(x)-x||^2/||x||^2):\n";
    for (const auto& [spec, j] : st["errors"].items()) {
      auto& f = cv.schemes[spec];
      f.relative_error = j.at("relative_error").get<double>();
      f.relative_error_ef = j.at("relative_error_ef").get<double>();
      rep += "  " + spec + ": " + fmt("%.4f", *f.relative_error) + " without EF, " +
             fmt("%.4f", *f.relative_error_ef) + " with EF\n";
    }
  }
  if (st.contains("convergence")) {
    const Json& j = st["convergence"];
    cv.target = j.value("target", "");
    cv.baseline_iterations = j.value("baseline_iterations", 0.0);
    // p workers x batch of the convergence runs; states written before the field existed
    // leave it 0 (the model then takes nodes x GPUs x the first compute batch).
    cv.baseline_global_batch = j.value("global_batch", 0.0);
    if (j.contains("constants")) {
      const Json& k = j["constants"];
      cv.constants.ef_scale = k.value("ef_scale", cv.constants.ef_scale);
      cv.constants.variance_scale = k.value("variance_scale", cv.constants.variance_scale);
      cv.constants.biased_scale = k.value("biased_scale", cv.constants.biased_scale);
    }
    if (j.contains("schemes"))
      for (const auto& [spec, s] : j["schemes"].items()) {
        auto& f = cv.schemes[spec];
        if (s.contains("iterations") && s["iterations"].is_number()) f.iterations = s["iterations"].get<double>();
        if (s.contains("reaches")) f.reaches_target = s["reaches"].get<bool>();
        if (s.contains("error_feedback")) f.error_feedback = s["error_feedback"].get<bool>();
        if (s.contains("relative_error") && !f.relative_error) f.relative_error = s["relative_error"].get<double>();
        if (s.contains("relative_error_ef") && !f.relative_error_ef)
          f.relative_error_ef = s["relative_error_ef"].get<double>();
      }
    if (j.contains("report")) rep += "\n" + j["report"].get<std::string>();
    if (j.contains("method")) notes.push_back("convergence: " + j["method"].get<std::string>());
    if (j.contains("validation")) {
      const Json& v = j["validation"];
      std::string n = "TTA constants validated on held-out schemes (leave one out per class): ";
      if (v.contains("median_abs_rel_error"))
        n += std::to_string(v.value("validated", 0)) + " scheme(s), median |error| of the iterations multiplier " +
             fmt("%.1f", 100 * v["median_abs_rel_error"].get<double>()) + "%, max " +
             fmt("%.1f", 100 * v.value("max_abs_rel_error", 0.0)) + "%";
      else
        n += "none validated (a class needs two schemes that reach the target)";
      if (v.value("never_validated", 0) > 0)
        n += "; never-reached schemes predicted as never: " + std::to_string(v.value("never_agreeing", 0)) + " of " +
             std::to_string(v.value("never_validated", 0));
      notes.push_back(n);
    }
  } else {
    notes.push_back("convergence constants not fitted: the TTA model's defaults (plain theory)");
  }
  return out;
}

}  // namespace gcu::calibrate
