// The typed calibration state and its strict JSON form (state.h).
#include "calibrate/state.h"
#include "calibrate/state_json.h"

#include "model/profile_json.h"

#include "util/output_file.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace gcu::calibrate {

using state_json::Obj;
using state_json::by_spec;
using state_json::opt_json;

bool CalibrationState::has(const std::string& step) const {
  if (step == "compute") return compute.has_value();
  if (step == "gamma") return gamma.has_value();
  if (step == "collectives") return collectives.has_value();
  if (step == "codecs") return codecs.has_value();
  if (step == "errors") return errors.has_value();
  if (step == "codec-gradients") return codec_gradients.has_value();
  if (step == "contention") return contention.has_value();
  if (step == "convergence") return convergence.has_value();
  return false;
}

// ---- meta, compute, gamma, contention -------------------------------------------------

Json to_json(const StateMeta& s) {
  return {{"model_spec", s.model_spec}, {"batch_sizes", s.batch_sizes}, {"world", s.world},
          {"local_world", s.local_world}, {"backend", s.backend}, {"threads", s.threads},
          {"fit_statistic", s.fit_statistic}};
}

StateMeta meta_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "meta", origin,
              {"model_spec", "batch_sizes", "world", "local_world", "backend", "threads", "fit_statistic"});
  return {o.req<std::string>("model_spec"), o.req<std::vector<int>>("batch_sizes"), o.req<int>("world"),
          o.req<int>("local_world"), o.req<std::string>("backend"), o.req<int>("threads"),
          o.req<std::string>("fit_statistic")};
}

Json to_json(const ComputeState& s) {
  Json ts = Json::array();
  for (const auto& t : s.tensors) ts.push_back({{"name", t.name}, {"shape", t.shape}});
  Json es = Json::array();
  for (const auto& e : s.entries)
    es.push_back({{"batch_size", e.batch_size}, {"forward_s", e.forward_s}, {"backward_s", e.backward_s},
                  {"optimizer_s", e.optimizer_s}, {"forward_spread", e.forward_spread},
                  {"backward_spread", e.backward_spread}, {"optimizer_spread", e.optimizer_spread},
                  {"backward_p10_s", e.backward_p10_s}, {"backward_p90_s", e.backward_p90_s},
                  {"iterations", e.iterations}, {"warmup", e.warmup}, {"ready_s", e.ready_s}});
  return {{"model", s.model}, {"parameters", s.parameters}, {"tensors", ts}, {"entries", es}, {"data", s.data}};
}

ComputeState compute_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "compute", origin, {"model", "parameters", "tensors", "entries", "data"});
  ComputeState s{o.req<std::string>("model"), o.req<int64_t>("parameters"), {}, {}};
  s.data = o.opt<std::string>("data").value_or("synthetic");
  if (s.data != "synthetic" && s.data != "fashion-mnist")
    throw StateError(origin + ": compute.data '" + s.data + "' (expected synthetic or fashion-mnist)");
  const Json& ts = o.array("tensors");
  for (size_t i = 0; i < ts.size(); ++i) {
    const Obj t(ts.at(i), "compute.tensors[" + std::to_string(i) + "]", origin, {"name", "shape"});
    s.tensors.push_back({t.req<std::string>("name"), t.req<std::vector<int64_t>>("shape")});
  }
  const Json& es = o.array("entries");
  for (size_t i = 0; i < es.size(); ++i) {
    const Obj e(es.at(i), "compute.entries[" + std::to_string(i) + "]", origin,
                {"batch_size", "forward_s", "backward_s", "optimizer_s", "forward_spread", "backward_spread",
                 "optimizer_spread", "backward_p10_s", "backward_p90_s", "iterations", "warmup", "ready_s"});
    s.entries.push_back({e.req<int>("batch_size"), e.req<double>("forward_s"), e.req<double>("backward_s"),
                         e.req<double>("optimizer_s"), e.req<double>("forward_spread"),
                         e.req<double>("backward_spread"), e.req<double>("optimizer_spread"),
                         e.req<double>("backward_p10_s"), e.req<double>("backward_p90_s"),
                         e.req<int64_t>("iterations"), e.req<int64_t>("warmup"),
                         e.req<std::vector<double>>("ready_s")});
  }
  return s;
}

Json to_json(const GammaState& s) {
  return {{"gamma", s.gamma}, {"alone_s", s.alone_s}, {"overlapped_s", s.overlapped_s},
          {"alone_spread", s.alone_spread}, {"overlapped_spread", s.overlapped_spread},
          {"buckets", s.buckets}, {"bytes", s.bytes}, {"comm_s", s.comm_s}, {"comm_alone_s", s.comm_alone_s},
          {"bucket_bytes", s.bucket_bytes}};
}

GammaState gamma_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "gamma", origin,
              {"gamma", "alone_s", "overlapped_s", "alone_spread", "overlapped_spread", "buckets", "bytes", "comm_s",
               "comm_alone_s", "bucket_bytes"});
  GammaState s{o.req<double>("gamma"),        o.req<double>("alone_s"),         o.req<double>("overlapped_s"),
               o.req<double>("alone_spread"), o.req<double>("overlapped_spread"), o.req<int>("buckets"),
               o.req<double>("bytes"),        o.has("comm_s") ? o.req<double>("comm_s") : 0.0, 0.0, {}};
  s.comm_alone_s = o.opt<double>("comm_alone_s").value_or(0.0);
  if (o.has("bucket_bytes")) s.bucket_bytes = o.req<std::vector<double>>("bucket_bytes");
  for (double b : s.bucket_bytes)
    if (!std::isfinite(b) || b <= 0)
      throw StateError(origin + ": 'gamma.bucket_bytes' must hold sizes > 0, got " + std::to_string(b));
  for (double v : {s.comm_s, s.comm_alone_s})
    if (!std::isfinite(v) || v < 0)
      throw StateError(origin + ": 'gamma.comm_s' and 'gamma.comm_alone_s' must be times >= 0, got " +
                       std::to_string(v));
  return s;
}

Json to_json(const ContentionState& s) {
  Json j = {{"scheme", s.scheme}, {"factor", s.factor}, {"backward_slowdown", s.backward_slowdown},
            {"codec_slowdown", s.codec_slowdown}, {"codec_alone_s", s.codec_alone_s},
            {"codec_overlapped_s", s.codec_overlapped_s}};
  if (!s.rank_backward_slowdown.empty()) {  // absent in older states (rank 0's alone)
    j["rank_backward_slowdown"] = s.rank_backward_slowdown;
    j["rank_codec_slowdown"] = s.rank_codec_slowdown;
  }
  return j;
}

ContentionState contention_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "contention", origin,
              {"scheme", "factor", "backward_slowdown", "codec_slowdown", "codec_alone_s", "codec_overlapped_s",
               "rank_backward_slowdown", "rank_codec_slowdown"});
  ContentionState s{o.req<std::string>("scheme"), o.req<double>("factor"), o.req<double>("backward_slowdown"),
                    o.req<double>("codec_slowdown"), o.req<double>("codec_alone_s"),
                    o.req<double>("codec_overlapped_s"), {}, {}};
  if (o.has("rank_backward_slowdown") || o.has("rank_codec_slowdown")) {
    s.rank_backward_slowdown = o.req<std::vector<double>>("rank_backward_slowdown");
    s.rank_codec_slowdown = o.req<std::vector<double>>("rank_codec_slowdown");
    if (s.rank_backward_slowdown.size() != s.rank_codec_slowdown.size() || s.rank_backward_slowdown.empty())
      throw StateError(origin + ": contention.rank_backward_slowdown and rank_codec_slowdown must be non-empty "
                       "arrays of equal length (one entry per rank)");
    for (const auto& [key, values] : {std::pair{"rank_backward_slowdown", &s.rank_backward_slowdown},
                                      std::pair{"rank_codec_slowdown", &s.rank_codec_slowdown}})
      for (const double v : *values)
        if (!(std::isfinite(v) && v > 0))
          throw StateError(origin + ": contention." + key + " has a value that is not a finite positive number");
  }
  return s;
}

// ---- collectives, codecs, errors -----------------------------------------------------

Json to_json(const CollectivesState& s) {
  Json arr = Json::array();
  for (const auto& w : s.sweeps) {
    Json rows = Json::array();
    for (const auto& r : w.rows) {
      rows.push_back({{"bytes", r.bytes}, {"count", r.count}, {"median_s", r.time_s.median},
                      {"p10_s", r.time_s.p10}, {"p90_s", r.time_s.p90}, {"min_s", r.time_s.min},
                      {"max_s", r.time_s.max}, {"n", r.time_s.n}, {"discarded", r.time_s.discarded},
                      {"calls", r.calls}, {"disturbed", r.disturbed}});
      if (std::isfinite(r.time_s.mean_w95)) rows.back()["mean_w95_s"] = r.time_s.mean_w95;  // absent in old files
    }
    arr.push_back({{"kind", model::collective_key(w.kind)}, {"supported", w.supported}, {"note", w.note},
                   {"rows", rows}});
  }
  return {{"world", s.world}, {"sweeps", arr}, {"idle_gap_s", s.idle_gap_s}, {"gap", s.free_running ? "free-running" : s.busy_gap ? "busy" : "idle"}};
}

namespace {
compress::CollectiveKind kind_from_key(const std::string& k, const std::string& where, const std::string& origin) {
  for (auto kind : {compress::CollectiveKind::AllReduce, compress::CollectiveKind::AllGather,
                    compress::CollectiveKind::ReduceScatter, compress::CollectiveKind::Broadcast})
    if (k == model::collective_key(kind)) return kind;
  throw StateError(origin + ": key '" + where + "': unknown collective \"" + k + "\"");
}

SweepRow row_from_json(const Json& j, const std::string& path, const std::string& origin) {
  const Obj o(j, path, origin,
              {"bytes", "count", "median_s", "mean_w95_s", "p10_s", "p90_s", "min_s", "max_s", "n", "discarded",
               "calls", "disturbed"});
  SweepRow r;
  r.bytes = o.req<int64_t>("bytes");
  r.count = o.req<int64_t>("count");
  r.time_s.median = o.req<double>("median_s");
  // State files written before the mean was kept have none: NaN, which a mean fit refuses.
  r.time_s.mean_w95 = o.opt<double>("mean_w95_s").value_or(std::nan(""));
  r.time_s.p10 = o.req<double>("p10_s");
  r.time_s.p90 = o.req<double>("p90_s");
  r.time_s.min = o.req<double>("min_s");
  r.time_s.max = o.req<double>("max_s");
  r.time_s.n = o.req<size_t>("n");
  r.time_s.discarded = o.req<size_t>("discarded");
  r.calls = o.req<int64_t>("calls");
  r.disturbed = o.req<int64_t>("disturbed");
  return r;
}
}  // namespace

CollectivesState collectives_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "collectives", origin, {"world", "sweeps", "idle_gap_s", "gap"});
  CollectivesState s;
  s.world = o.req<int>("world");
  const std::string gap = o.opt<std::string>("gap").value_or("idle");  // absent in old files: asleep
  if (gap != "idle" && gap != "busy" && gap != "free-running")
    throw StateError(origin + ": key 'collectives.gap': \"" + gap + "\" is not \"idle\", \"busy\" or \"free-running\"");
  s.busy_gap = gap != "idle";
  s.free_running = gap == "free-running";
  s.idle_gap_s = o.opt<double>("idle_gap_s").value_or(0.0);  // absent in old files: back-to-back
  if (!std::isfinite(s.idle_gap_s) || s.idle_gap_s < 0 || s.idle_gap_s > 10)
    throw StateError(origin + ": key 'collectives.idle_gap_s': must be in [0, 10] seconds");
  const Json& arr = o.array("sweeps");
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string path = "collectives.sweeps[" + std::to_string(i) + "]";
    const Obj w(arr.at(i), path, origin, {"kind", "supported", "note", "rows"});
    CollectiveSweep sw;
    sw.kind = kind_from_key(w.req<std::string>("kind"), path + ".kind", origin);
    sw.world = s.world;
    sw.supported = w.req<bool>("supported");
    sw.note = w.req<std::string>("note");
    const Json& rows = w.array("rows");
    for (size_t k = 0; k < rows.size(); ++k)
      sw.rows.push_back(row_from_json(rows.at(k), path + ".rows[" + std::to_string(k) + "]", origin));
    s.sweeps.push_back(std::move(sw));
  }
  return s;
}

Json to_json(const CodecState& s) {
  const auto& f = s.fit;
  Json j = {{"encode", {{"fixed_s", f.encode.fixed_s}, {"per_element_s", f.encode.per_element_s},
                        {"per_tensor_s", f.encode.per_tensor_s}}},
            {"decode", {{"fixed_s", f.decode.fixed_s}, {"per_element_s", f.decode.per_element_s},
                        {"per_rank_element_s", f.decode.per_rank_element_s}, {"per_tensor_s", f.decode.per_tensor_s}}},
            {"measured_n", f.measured_n}, {"gathers", s.gathers},
            {"encode_geomean_rel", s.encode_geomean_rel}, {"decode_geomean_rel", s.decode_geomean_rel},
            {"wire_extra_per_element_s", opt_json(s.wire_extra_per_element_s)}};
  if (f.allreduce_floor) j["allreduce_floor"] = model::collective_floor_to_json(*f.allreduce_floor);
  if (f.allgather_floor) j["allgather_floor"] = model::collective_floor_to_json(*f.allgather_floor);
  return j;
}

namespace {
model::CollectiveFloor floor_from_json(const Obj& o, const std::string& key, const std::string& path) {
  const Obj a(o.sub(key), path, o.origin(), {"world", "elements", "seconds", "per_element_s", "se_s"});
  model::CollectiveFloor f;
  f.world = a.req<int>("world");
  f.elements = a.req<std::vector<int64_t>>("elements");
  f.seconds = a.req<std::vector<double>>("seconds");
  f.per_element_s = a.opt<double>("per_element_s").value_or(0.0);
  f.se_s = a.opt<std::vector<double>>("se_s").value_or(std::vector<double>{});
  if (const auto p = model::collective_floor_problem(f))
    throw StateError(o.origin() + ": key '" + path + "', field '" + p->field.substr(1) + "': expected " + p->expected +
                     ", got " + p->got);
  return f;
}
}  // namespace

BySpec<CodecState> codecs_from_json(const Json& j, const std::string& origin) {
  return by_spec<CodecState>(j, "codecs", origin, [](const Json& v, const std::string& path, const std::string& org) {
    const Obj o(v, path, org,
                {"encode", "decode", "measured_n", "gathers", "encode_geomean_rel", "decode_geomean_rel",
                 "wire_extra_per_element_s", "allreduce_floor", "allgather_floor"});
    // per_tensor_s: absent in states written before it was measured (read as 0).
    const Obj e(o.sub("encode"), path + ".encode", org, {"fixed_s", "per_element_s", "per_tensor_s"});
    const Obj d(o.sub("decode"), path + ".decode", org,
                {"fixed_s", "per_element_s", "per_rank_element_s", "per_tensor_s"});
    CodecState s;
    s.fit.encode.fixed_s = e.req<double>("fixed_s");
    s.fit.encode.per_element_s = e.req<double>("per_element_s");
    s.fit.decode.fixed_s = d.req<double>("fixed_s");
    s.fit.decode.per_element_s = d.req<double>("per_element_s");
    s.fit.decode.per_rank_element_s = d.req<double>("per_rank_element_s");
    s.fit.encode.per_tensor_s = e.opt<double>("per_tensor_s").value_or(0.0);
    s.fit.decode.per_tensor_s = d.opt<double>("per_tensor_s").value_or(0.0);
    for (const double v : {s.fit.encode.per_tensor_s, s.fit.decode.per_tensor_s})
      if (!std::isfinite(v) || v < 0) throw StateError(org + ": key '" + path + ".per_tensor_s': must be finite and >= 0");
    s.fit.measured_n = o.req<int64_t>("measured_n");
    s.gathers = o.req<bool>("gathers");
    s.encode_geomean_rel = o.req<double>("encode_geomean_rel");
    s.decode_geomean_rel = o.req<double>("decode_geomean_rel");
    s.wire_extra_per_element_s = o.opt<double>("wire_extra_per_element_s");
    const double wx = s.wire_extra_per_element_s.value_or(0.0);
    if (!std::isfinite(wx) || wx < 0 || wx > s.fit.decode.per_element_s)
      throw StateError(org + ": key '" + path + ".wire_extra_per_element_s': must be in [0, decode.per_element_s]");
    if (o.has("allreduce_floor") && !o.sub("allreduce_floor").is_null())
      s.fit.allreduce_floor = floor_from_json(o, "allreduce_floor", path + ".allreduce_floor");
    if (o.has("allgather_floor") && !o.sub("allgather_floor").is_null())
      s.fit.allgather_floor = floor_from_json(o, "allgather_floor", path + ".allgather_floor");
    return s;
  });
}

Json to_json(const ErrorState& s) {
  return {{"relative_error", s.relative_error}, {"relative_error_ef", s.relative_error_ef},
          {"snapshots", s.snapshots}, {"buckets", s.buckets}};
}

BySpec<ErrorState> errors_from_json(const Json& j, const std::string& origin) {
  return by_spec<ErrorState>(j, "errors", origin, [](const Json& v, const std::string& path, const std::string& org) {
    const Obj o(v, path, org, {"relative_error", "relative_error_ef", "snapshots", "buckets"});
    return ErrorState{o.req<double>("relative_error"), o.req<double>("relative_error_ef"), o.req<int>("snapshots"),
                      o.req<int>("buckets")};
  });
}

Json to_json(const CodecGradientState& s) {
  return {{"encode_factor", s.encode_factor}, {"decode_factor", s.decode_factor}, {"encode_s", s.encode_s},
          {"decode_s", s.decode_s},           {"fit_encode_s", s.fit_encode_s},   {"fit_decode_s", s.fit_decode_s},
          {"buckets", s.buckets},             {"snapshots", s.snapshots},         {"ranks_at_once", s.ranks_at_once}};
}

BySpec<CodecGradientState> codec_gradients_from_json(const Json& j, const std::string& origin) {
  return by_spec<CodecGradientState>(
      j, "codec_gradients", origin, [](const Json& v, const std::string& path, const std::string& org) {
        const Obj o(v, path, org,
                    {"encode_factor", "decode_factor", "encode_s", "decode_s", "fit_encode_s", "fit_decode_s",
                     "buckets", "snapshots", "ranks_at_once"});
        CodecGradientState s{o.req<double>("encode_factor"), o.req<double>("decode_factor"), o.req<double>("encode_s"),
                             o.req<double>("decode_s"),      o.req<double>("fit_encode_s"),  o.req<double>("fit_decode_s"),
                             o.req<int>("buckets"),          o.req<int>("snapshots"),
                             o.opt<int>("ranks_at_once").value_or(1)};
        if (s.ranks_at_once < 1) throw StateError(org + ": key '" + path + ".ranks_at_once': must be >= 1");
        for (const auto& [key, x] : {std::pair{"encode_factor", s.encode_factor}, {"decode_factor", s.decode_factor}})
          if (!std::isfinite(x) || x <= 0 || x > kMaxGradientFactor)
            throw StateError(org + ": key '" + path + "." + key + "': must be in (0, " +
                             std::to_string(static_cast<int>(kMaxGradientFactor)) + "]");
        for (const auto& [key, x] : {std::pair{"encode_s", s.encode_s}, {"decode_s", s.decode_s},
                                     {"fit_encode_s", s.fit_encode_s}, {"fit_decode_s", s.fit_decode_s}})
          if (!std::isfinite(x) || x < 0)
            throw StateError(org + ": key '" + path + "." + key + "': must be a finite number >= 0");
        return s;
      });
}

// ---- convergence ---------------------------------------------------------------------

Json to_json(const ConvergenceState& s) {
  Json schemes = Json::object();
  for (const auto& [spec, v] : s.schemes) schemes[spec] = {{"reaches", v.reaches}, {"iterations", opt_json(v.iterations)}};
  Json constants = Json::object();
  for (const auto& [name, v] : s.constants) constants[name] = v;
  const ValidationState& val = s.validation;
  Json vs = Json::object();
  for (const auto& [spec, h] : val.schemes) {
    Json jh = {{"class", h.cls}, {"measured", opt_json(h.measured)}, {"predicted", opt_json(h.predicted)}};
    if (h.rel_error) jh["rel_error"] = *h.rel_error;
    if (h.agrees) jh["agrees"] = *h.agrees;
    vs[spec] = jh;
  }
  Json jv = {{"method", val.method}, {"cap", val.cap}, {"schemes", vs}, {"validated", val.validated}};
  if (val.median_abs_rel_error) jv["median_abs_rel_error"] = *val.median_abs_rel_error;
  if (val.max_abs_rel_error) jv["max_abs_rel_error"] = *val.max_abs_rel_error;
  jv["never_validated"] = val.never_validated;
  jv["never_agreeing"] = val.never_agreeing;
  return {{"target", s.target}, {"baseline_iterations", s.baseline_iterations}, {"global_batch", s.global_batch},
          {"method", s.method}, {"schemes", schemes}, {"constants", constants}, {"validation", jv},
          {"report", s.report}};
}

namespace {
ValidationState validation_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "convergence.validation", origin,
              {"method", "cap", "schemes", "validated", "median_abs_rel_error", "max_abs_rel_error",
               "never_validated", "never_agreeing"});
  ValidationState v;
  v.method = o.req<std::string>("method");
  v.cap = o.req<double>("cap");
  v.schemes = by_spec<HeldOutState>(o.sub("schemes"), o.at("schemes"), origin,
                                    [](const Json& x, const std::string& path, const std::string& org) {
                                      const Obj h(x, path, org, {"class", "measured", "predicted", "rel_error", "agrees"});
                                      return HeldOutState{h.req<std::string>("class"), h.opt<double>("measured"),
                                                          h.opt<double>("predicted"), h.opt<double>("rel_error"),
                                                          h.opt<bool>("agrees")};
                                    });
  v.validated = o.req<int>("validated");
  v.median_abs_rel_error = o.opt<double>("median_abs_rel_error");
  v.max_abs_rel_error = o.opt<double>("max_abs_rel_error");
  v.never_validated = o.req<int>("never_validated");
  v.never_agreeing = o.req<int>("never_agreeing");
  return v;
}
}  // namespace

ConvergenceState convergence_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "convergence", origin,
              {"target", "baseline_iterations", "global_batch", "method", "schemes", "constants", "validation",
               "report"});
  ConvergenceState s;
  s.target = o.req<std::string>("target");
  s.baseline_iterations = o.req<double>("baseline_iterations");
  s.global_batch = o.req<double>("global_batch");
  s.method = o.req<std::string>("method");
  s.schemes = by_spec<ConvergenceSchemeState>(o.sub("schemes"), "convergence.schemes", origin,
                                              [](const Json& x, const std::string& path, const std::string& org) {
                                                const Obj c(x, path, org, {"reaches", "iterations"});
                                                (void)c.sub("iterations");  // present, number or null
                                                return ConvergenceSchemeState{c.req<bool>("reaches"),
                                                                              c.opt<double>("iterations")};
                                              });
  for (const auto& [name, v] : by_spec<double>(o.sub("constants"), "convergence.constants", origin,
                                               [](const Json& x, const std::string& path, const std::string& org) {
                                                 if (!x.is_number())
                                                   throw StateError(org + ": key '" + path + "' must be a number");
                                                 return x.get<double>();
                                               }))
    s.constants.emplace_back(name, v);
  s.validation = validation_from_json(o.sub("validation"), origin);
  s.report = o.req<std::string>("report");
  return s;
}

// ---- the document and the file -------------------------------------------------------

Json to_json(const CalibrationState& s) {
  Json j;
  j["meta"] = to_json(s.meta);
  j["skipped"] = s.skipped;
  if (s.compute) j["compute"] = to_json(*s.compute);
  if (s.gamma) j["gamma"] = to_json(*s.gamma);
  if (s.collectives) j["collectives"] = to_json(*s.collectives);
  if (s.codecs) j["codecs"] = to_json(*s.codecs);
  if (s.errors) j["errors"] = to_json(*s.errors);
  if (s.codec_gradients) j["codec_gradients"] = to_json(*s.codec_gradients);
  if (s.contention) j["contention"] = to_json(*s.contention);
  if (s.convergence) j["convergence"] = to_json(*s.convergence);
  return j;
}

CalibrationState state_from_json(const Json& j, const std::string& origin) {
  const Obj o(j, "", origin,
              {"meta", "skipped", "compute", "gamma", "collectives", "codecs", "errors", "codec_gradients",
               "contention", "convergence"});
  CalibrationState s;
  s.meta = meta_from_json(o.sub("meta"), origin);
  s.skipped = o.req<std::vector<std::string>>("skipped");
  if (o.has("compute")) s.compute = compute_from_json(o.sub("compute"), origin);
  if (o.has("gamma")) s.gamma = gamma_from_json(o.sub("gamma"), origin);
  if (o.has("collectives")) s.collectives = collectives_from_json(o.sub("collectives"), origin);
  if (o.has("codecs")) s.codecs = codecs_from_json(o.sub("codecs"), origin);
  if (o.has("errors")) s.errors = errors_from_json(o.sub("errors"), origin);
  if (o.has("codec_gradients")) s.codec_gradients = codec_gradients_from_json(o.sub("codec_gradients"), origin);
  if (o.has("contention")) s.contention = contention_from_json(o.sub("contention"), origin);
  if (o.has("convergence")) s.convergence = convergence_from_json(o.sub("convergence"), origin);
  return s;
}

CalibrationState read_state_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw StateError(path + ": cannot read the calibration state file");
  Json j;
  try {
    j = Json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw StateError(path + ": not a JSON calibration state file: " + e.what());
  }
  return state_from_json(j, path);
}

void write_state_file(const std::string& path, const CalibrationState& s) {
  util::write_file_atomic(path, to_json(s).dump(1));
}

}  // namespace gcu::calibrate
