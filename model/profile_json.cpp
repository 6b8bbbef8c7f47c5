// Profile JSON reading (with strict type checks), validation and writing
// (profile_json.h; the schema is documented in docs/profile-schema.md).
//
// Reading is in two passes: the reader below checks types and field names while it
// fills the structs, then validate_profile() checks ranges and consistency on the
// structs. Both report the field as a JSON pointer.
#include "model/profile_json.h"

#include "model/interference.h"

#include "compressors/params.h"
#include "util/json_pointer.h"
#include "util/text.h"

#include <cmath>
#include <set>
#include <vector>

namespace gcu::model {
namespace {

std::string message(const std::string& file, const std::string& path, const std::string& expected,
                    const std::string& got) {
  std::string m;
  // Every part is capped and made printable: a 50 MB key or a cut UTF-8 character never
  // reaches the terminal (util/text.h).
  if (!file.empty()) m += util::printable(file, 400) + ": ";
  m += (path.empty() ? std::string("(document)") : util::printable(path, 300)) + ": expected " +
       util::printable(expected, 1000) + ", got " + util::printable(got, 400);
  return m;
}

[[noreturn]] void fail(const std::string& path, const std::string& expected, const std::string& got) {
  throw ProfileError(path, expected, got);
}

// What a JSON value looks like, for "got ...".
std::string describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array of " + std::to_string(v.size());
    case Json::value_t::string: return "the string " + util::quote(v.get<std::string>(), 60);
    case Json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    default: return util::printable(v.dump(), 60);
  }
}

std::string child(const std::string& path, const std::string& key) { return util::pointer_child(path, key); }
std::string child(const std::string& path, size_t i) { return util::pointer_child(path, i); }

// An object being read: remembers which keys were read to report unknown ones.
class Fields {
 public:
  Fields(const Json& j, std::string path, std::vector<std::string> known)
      : j_(j), path_(std::move(path)), known_(std::move(known)) {
    if (!j_.is_object()) fail(path_, "an object", describe(j_));
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      const std::string& k = it.key();
      if (!k.empty() && k[0] == '_') continue;  // comment
      bool ok = false;
      for (const auto& n : known_) ok = ok || n == k;
      if (!ok) {
        std::string list;
        for (const auto& n : known_) list += (list.empty() ? "" : ", ") + n;
        fail(child(path_, util::printable(k, 60)), "one of the fields of " + (path_.empty() ? std::string("the profile") : path_) +
                                  " (" + list + ")",
             "an unknown field");
      }
    }
  }
  const Json* opt(const std::string& key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const Json& req(const std::string& key, const std::string& expected) const {
    const Json* v = opt(key);
    if (!v) fail(child(path_, key), expected, "nothing (the field is missing)");
    return *v;
  }
  std::string at(const std::string& key) const { return child(path_, key); }

 private:
  const Json& j_;
  std::string path_;
  std::vector<std::string> known_;
};

double number(const Json& v, const std::string& path) {
  if (!v.is_number()) fail(path, "a number", describe(v));
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(path, "a finite number", describe(v));
  return d;
}

int64_t integer(const Json& v, const std::string& path) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<int64_t>(d);
  }
  fail(path, "an integer", describe(v));
}

std::string string(const Json& v, const std::string& path) {
  if (!v.is_string()) fail(path, "a string", describe(v));
  return v.get<std::string>();
}

bool boolean(const Json& v, const std::string& path) {
  if (!v.is_boolean()) fail(path, "true or false", describe(v));
  return v.get<bool>();
}

const Json& array(const Json& v, const std::string& path, const std::string& of) {
  if (!v.is_array()) fail(path, "an array of " + of, describe(v));
  return v;
}

// Optional number into a field that has a default.
void opt_number(const Fields& f, const std::string& key, double& out) {
  if (const Json* v = f.opt(key)) out = number(*v, f.at(key));
}

// ---- readers, one per struct -----------------------------------------------------------
Provenance read_provenance(const Json& j, const std::string& path) {
  Fields f(j, path, {"source", "device", "date", "command", "libraries", "assumptions"});
  Provenance p;
  if (auto v = f.opt("source")) p.source = string(*v, f.at("source"));
  if (auto v = f.opt("device")) p.device = string(*v, f.at("device"));
  if (auto v = f.opt("date")) p.date = string(*v, f.at("date"));
  if (auto v = f.opt("command")) p.command = string(*v, f.at("command"));
  if (auto v = f.opt("libraries")) {
    if (!v->is_object()) fail(f.at("libraries"), "an object of name: version strings", describe(*v));
    for (auto it = v->begin(); it != v->end(); ++it)
      p.libraries[it.key()] = string(it.value(), child(f.at("libraries"), it.key()));
  }
  if (auto v = f.opt("assumptions")) {
    const auto& a = array(*v, f.at("assumptions"), "strings");
    for (size_t i = 0; i < a.size(); ++i) p.assumptions.push_back(string(a[i], child(f.at("assumptions"), i)));
  }
  return p;
}

LinkLevel read_level(const Json& j, const std::string& path) {
  Fields f(j, path, {"bandwidth_gbps", "alpha_s", "collectives"});
  LinkLevel l;
  l.bandwidth_gbps = number(f.req("bandwidth_gbps", "a bandwidth in Gbps (a number > 0)"), f.at("bandwidth_gbps"));
  // A level that is written down must have a bandwidth (0 would read as "no level").
  if (!(l.bandwidth_gbps > 0))
    fail(f.at("bandwidth_gbps"), "a bandwidth in Gbps (a number > 0)", describe(*f.opt("bandwidth_gbps")));
  l.alpha_s = number(f.req("alpha_s", "a latency in seconds (a number >= 0)"), f.at("alpha_s"));
  if (auto v = f.opt("collectives")) {
    const std::string cp = f.at("collectives");
    Fields c(*v, cp, {"allreduce", "allgather", "reducescatter", "broadcast"});
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '_') continue;
      std::string kp = child(cp, it.key());
      const Json* ranges = &it.value();
      std::optional<double> curve_alpha;
      if (it.value().is_object()) {  // a curve: {"alpha_s", "ranges": [...]} (LinkLevel::curves)
        Fields cv(it.value(), kp, {"alpha_s", "ranges"});
        curve_alpha = number(cv.req("alpha_s", "the collective's latency in seconds"), cv.at("alpha_s"));
        ranges = &cv.req("ranges", "the size ranges of the per-byte curve");
        kp = cv.at("ranges");
        l.curves.insert(it.key());
      }
      const auto& a = array(*ranges, kp, "size-range fits");
      auto& fits = l.collectives[it.key()];
      for (size_t i = 0; i < a.size(); ++i) {
        const std::string ip = child(kp, i);
        std::vector<std::string> keys = {"min_bytes", "max_bytes", "beta_s_per_byte"};
        if (!curve_alpha) keys.push_back("alpha_s");
        Fields r(a[i], ip, keys);
        SizeRangeFit s;
        opt_number(r, "min_bytes", s.min_bytes);
        if (auto m = r.opt("max_bytes"); m && !m->is_null()) s.max_bytes = number(*m, r.at("max_bytes"));
        s.alpha_s = curve_alpha ? *curve_alpha : number(r.req("alpha_s", "a latency in seconds"), r.at("alpha_s"));
        s.beta_s_per_byte = number(r.req("beta_s_per_byte", "seconds per byte"), r.at("beta_s_per_byte"));
        fits.push_back(s);
      }
    }
  }
  return l;
}

// cluster.interference (gcu.profile/2).
void read_interference(const Json& j, const std::string& path, Cluster& c) {
  Fields f(j, path, {"backward_by_collective", "collective_by_backward", "backward_codec", "host_link", "fit"});
  if (f.opt("backward_by_collective")) {
    opt_number(f, "backward_by_collective", c.gamma);
    c.gamma_from_stretch = false;
  }
  opt_number(f, "collective_by_backward", c.comm_contention);
  opt_number(f, "backward_codec", c.overlap_contention);
  if (auto v = f.opt("host_link")) c.comm_contention_reference = read_level(*v, f.at("host_link"));
  if (auto v = f.opt("fit")) {
    Fields t(*v, f.at("fit"),
             {"step", "backward_alone_s", "backward_beside_s", "comm_beside_s", "backward_beside_model_s",
              "comm_beside_model_s", "gamma_at_bound", "comm_contention_at_bound"});
    Cluster::InterferenceFit fit;
    fit.step = string(t.req("step", "the measured step (a string)"), t.at("step"));
    for (auto [key, out] : {std::pair<const char*, double*>{"backward_alone_s", &fit.backward_alone_s},
                            {"backward_beside_s", &fit.backward_beside_s},
                            {"comm_beside_s", &fit.comm_beside_s},
                            {"backward_beside_model_s", &fit.backward_beside_model_s},
                            {"comm_beside_model_s", &fit.comm_beside_model_s}})
      *out = number(t.req(key, "seconds (a number >= 0)"), t.at(key));
    if (auto b = t.opt("gamma_at_bound")) fit.gamma_at_bound = boolean(*b, t.at("gamma_at_bound"));
    if (auto b = t.opt("comm_contention_at_bound"))
      fit.comm_contention_at_bound = boolean(*b, t.at("comm_contention_at_bound"));
    c.interference_fit = fit;
  }
}

// v1: "gamma", "overlap_contention", "comm_contention", "comm_contention_reference" at the
// cluster's top level; its gamma is both the closed form's stretch and the event rate.
Cluster read_cluster(const Json& j, const std::string& path, bool v1) {
  std::vector<std::string> known = {"nodes", "gpus_per_node", "levels", "algorithms", "allreduce_element_bytes"};
  const std::vector<std::string> own =
      v1 ? std::vector<std::string>{"gamma", "overlap_contention", "comm_contention", "comm_contention_reference"}
         : std::vector<std::string>{"gamma_stretch", "interference"};
  known.insert(known.end(), own.begin(), own.end());
  Fields f(j, path, known);
  Cluster c;
  c.nodes = static_cast<int>(integer(f.req("nodes", "an integer >= 1"), f.at("nodes")));
  c.gpus_per_node = static_cast<int>(integer(f.req("gpus_per_node", "an integer >= 1"), f.at("gpus_per_node")));
  const std::string lp = f.at("levels");
  Fields lv(f.req("levels", "an object with \"intra\" and \"inter\" link levels"), lp, {"intra", "inter"});
  // A level may be left out when the cluster shape does not use it (one GPU per node:
  // no intra; one node: no inter); validate_profile() checks that.
  if (auto v = lv.opt("intra")) c.intra = read_level(*v, lv.at("intra"));
  if (auto v = lv.opt("inter")) c.inter = read_level(*v, lv.at("inter"));
  if (auto v = f.opt("algorithms")) {
    const auto& a = array(*v, f.at("algorithms"), "algorithm names");
    c.algorithms.clear();
    for (size_t i = 0; i < a.size(); ++i) c.algorithms.push_back(string(a[i], child(f.at("algorithms"), i)));
  }
  if (v1) {
    opt_number(f, "gamma", c.gamma);
    c.gamma_stretch = c.gamma;
    opt_number(f, "overlap_contention", c.overlap_contention);
    opt_number(f, "comm_contention", c.comm_contention);
    if (auto v = f.opt("comm_contention_reference"))
      c.comm_contention_reference = read_level(*v, f.at("comm_contention_reference"));
  } else {
    opt_number(f, "gamma_stretch", c.gamma_stretch);
    c.gamma_from_stretch = true;  // unless interference gives backward_by_collective
    if (auto v = f.opt("interference")) read_interference(*v, f.at("interference"), c);
  }
  if (auto v = f.opt("allreduce_element_bytes")) {
    if (!v->is_object()) fail(f.at("allreduce_element_bytes"), "an object of wire type -> bytes", describe(*v));
    for (auto it = v->begin(); it != v->end(); ++it)
      c.allreduce_element_bytes[it.key()] =
          static_cast<int>(integer(it.value(), child(f.at("allreduce_element_bytes"), it.key())));
  }
  return c;
}

Model read_model(const Json& j, const std::string& path) {
  Fields f(j, path, {"name", "parameters", "tensors", "compute"});
  Model m;
  m.name = string(f.req("name", "the model's name (a string)"), f.at("name"));
  m.parameters = integer(f.req("parameters", "the number of parameters (an integer)"), f.at("parameters"));
  const std::string tp = f.at("tensors");
  const auto& ts = array(f.req("tensors", "the gradient tensors in backward order"), tp, "tensors");
  for (size_t i = 0; i < ts.size(); ++i) {
    const std::string ip = child(tp, i);
    Fields t(ts[i], ip, {"name", "shape"});
    TensorInfo ti;
    ti.name = string(t.req("name", "the tensor's name (a string)"), t.at("name"));
    const auto& sh = array(t.req("shape", "the tensor's shape (an array of integers)"), t.at("shape"), "integers");
    for (size_t d = 0; d < sh.size(); ++d) ti.shape.push_back(integer(sh[d], child(t.at("shape"), d)));
    m.tensors.push_back(std::move(ti));
  }
  const std::string cp = f.at("compute");
  const auto& cs = array(f.req("compute", "compute timings per batch size"), cp, "compute entries");
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::string ip = child(cp, i);
    Fields c(cs[i], ip, {"batch_size", "forward_s", "backward_s", "optimizer_s", "data_s", "ready_s"});
    ComputeEntry e;
    e.batch_size = static_cast<int>(integer(c.req("batch_size", "the per-GPU batch size (an integer >= 1)"),
                                            c.at("batch_size")));
    e.forward_s = number(c.req("forward_s", "the forward time in seconds"), c.at("forward_s"));
    e.backward_s = number(c.req("backward_s", "the backward time in seconds"), c.at("backward_s"));
    opt_number(c, "optimizer_s", e.optimizer_s);
    opt_number(c, "data_s", e.data_s);
    if (auto v = c.opt("ready_s")) {
      const auto& a = array(*v, c.at("ready_s"), "times in seconds");
      for (size_t k = 0; k < a.size(); ++k) e.ready_s.push_back(number(a[k], child(c.at("ready_s"), k)));
    }
    m.compute.push_back(std::move(e));
  }
  return m;
}

DdpConfig read_ddp(const Json& j, const std::string& path) {
  Fields f(j, path, {"first_bucket_bytes", "bucket_cap_bytes"});
  DdpConfig d;
  opt_number(f, "first_bucket_bytes", d.first_bucket_bytes);
  opt_number(f, "bucket_cap_bytes", d.bucket_cap_bytes);
  return d;
}

CollectiveFloor read_floor(const Json& v, const std::string& path) {
  Fields a(v, path, {"world", "elements", "seconds", "per_element_s", "se_s"});
  CollectiveFloor fl;
  const int64_t world = integer(a.req("world", "the ranks it was measured with"), a.at("world"));
  if (world < 2 || world > 1000000) fail(a.at("world"), "a number of ranks >= 2 and <= 1000000", std::to_string(world));
  fl.world = int(world);
  const auto& xs = array(a.req("elements", "bucket elements, increasing"), a.at("elements"), "integers");
  for (size_t k = 0; k < xs.size(); ++k) fl.elements.push_back(integer(xs[k], child(a.at("elements"), k)));
  const auto& ys = array(a.req("seconds", "seconds per bucket, one per element count"), a.at("seconds"),
                         "times in seconds");
  for (size_t k = 0; k < ys.size(); ++k) fl.seconds.push_back(number(ys[k], child(a.at("seconds"), k)));
  opt_number(a, "per_element_s", fl.per_element_s);
  if (auto e = a.opt("se_s")) {
    const auto& es = array(*e, a.at("se_s"), "standard errors in seconds");
    for (size_t k = 0; k < es.size(); ++k) fl.se_s.push_back(number(es[k], child(a.at("se_s"), k)));
  }
  return fl;
}

CodecFit read_codec(const Json& j, const std::string& path) {
  Fields f(j, path, {"encode", "decode", "measured_n", "allreduce_floor", "allgather_floor"});
  CodecFit c;
  Fields e(f.req("encode", "the encode cost fit {fixed_s, per_element_s[, per_tensor_s]}"), f.at("encode"),
           {"fixed_s", "per_element_s", "per_tensor_s"});
  opt_number(e, "fixed_s", c.encode.fixed_s);
  opt_number(e, "per_element_s", c.encode.per_element_s);
  opt_number(e, "per_tensor_s", c.encode.per_tensor_s);
  Fields d(f.req("decode", "the decode cost fit {fixed_s, per_element_s, per_rank_element_s[, per_tensor_s]}"),
           f.at("decode"), {"fixed_s", "per_element_s", "per_rank_element_s", "per_tensor_s"});
  opt_number(d, "fixed_s", c.decode.fixed_s);
  opt_number(d, "per_element_s", c.decode.per_element_s);
  opt_number(d, "per_rank_element_s", c.decode.per_rank_element_s);
  opt_number(d, "per_tensor_s", c.decode.per_tensor_s);
  if (auto v = f.opt("measured_n")) c.measured_n = integer(*v, f.at("measured_n"));
  if (auto v = f.opt("allreduce_floor")) c.allreduce_floor = read_floor(*v, f.at("allreduce_floor"));
  if (auto v = f.opt("allgather_floor")) c.allgather_floor = read_floor(*v, f.at("allgather_floor"));
  return c;
}

PilotFigures read_pilot(const Json& j, const std::string& path) {
  Fields f(j, path, {"status", "basis", "multiplier", "multiplier_lo", "multiplier_hi", "widened", "evidence", "seeds",
                     "baseline_seeds"});
  PilotFigures p;
  p.status = string(f.req("status", "\"reaches\", \"never\" or \"uncertain\""), f.at("status"));
  if (p.status != "reaches" && p.status != "never" && p.status != "uncertain")
    fail(f.at("status"), "\"reaches\", \"never\" or \"uncertain\"", "\"" + p.status + "\"");
  if (auto v = f.opt("basis")) p.basis = string(*v, f.at("basis"));
  if (auto v = f.opt("multiplier")) p.multiplier = number(*v, f.at("multiplier"));
  if (auto v = f.opt("multiplier_lo")) p.multiplier_lo = number(*v, f.at("multiplier_lo"));
  if (auto v = f.opt("multiplier_hi")) p.multiplier_hi = number(*v, f.at("multiplier_hi"));
  if (auto v = f.opt("widened")) p.widened = boolean(*v, f.at("widened"));
  if (auto v = f.opt("evidence")) {
    const auto& a = array(*v, f.at("evidence"), "strings");
    for (size_t k = 0; k < a.size(); ++k) p.evidence.push_back(string(a[k], child(f.at("evidence"), k)));
  }
  for (const auto& [key, out] : {std::pair{"seeds", &p.seeds}, std::pair{"baseline_seeds", &p.baseline_seeds}})
    if (auto v = f.opt(key)) {
      const int64_t n = integer(*v, f.at(key));
      if (n < 1 || n > 1000000) fail(f.at(key), "a number of seeds >= 1", std::to_string(n));
      *out = static_cast<int>(n);
    }
  if (p.seeds && p.baseline_seeds && *p.seeds > *p.baseline_seeds)
    fail(f.at("seeds"), "at most baseline_seeds (" + std::to_string(*p.baseline_seeds) + ")", std::to_string(*p.seeds));
  if (p.status != "never" && !p.multiplier)
    fail(f.at("multiplier"), "a multiplier > 0 for status \"" + p.status + "\"", "nothing");
  if (p.multiplier && !(*p.multiplier > 0)) fail(f.at("multiplier"), "a number > 0", std::to_string(*p.multiplier));
  return p;
}

Convergence read_convergence(const Json& j, const std::string& path) {
  Fields f(j, path, {"source", "target", "baseline_iterations", "baseline_global_batch", "critical_batch_size",
                     "schemes", "constants"});
  Convergence c;
  if (auto v = f.opt("source")) {
    c.source = string(*v, f.at("source"));
    if (c.source != "assumed" && c.source != "pilot" && c.source != "calibrated" && c.source != "none")
      fail(f.at("source"), "\"assumed\", \"pilot\", \"calibrated\" or \"none\"", describe(*v));
  }
  if (auto v = f.opt("target")) c.target = string(*v, f.at("target"));
  opt_number(f, "baseline_iterations", c.baseline_iterations);
  opt_number(f, "baseline_global_batch", c.baseline_global_batch);
  if (auto v = f.opt("critical_batch_size")) c.critical_batch_size = number(*v, f.at("critical_batch_size"));
  if (auto v = f.opt("schemes")) {
    const std::string sp = f.at("schemes");
    if (!v->is_object()) fail(sp, "an object keyed by scheme spec", describe(*v));
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '_') continue;
      const std::string kp = child(sp, it.key());
      Fields s(it.value(), kp, {"relative_error", "relative_error_ef", "error_feedback", "iterations",
                                "reaches_target", "pilot"});
      ConvergenceFigures cf;
      if (auto x = s.opt("relative_error")) cf.relative_error = number(*x, s.at("relative_error"));
      if (auto x = s.opt("relative_error_ef")) cf.relative_error_ef = number(*x, s.at("relative_error_ef"));
      if (auto x = s.opt("error_feedback")) cf.error_feedback = boolean(*x, s.at("error_feedback"));
      if (auto x = s.opt("iterations")) cf.iterations = number(*x, s.at("iterations"));
      if (auto x = s.opt("reaches_target")) cf.reaches_target = boolean(*x, s.at("reaches_target"));
      if (auto x = s.opt("pilot")) cf.pilot = read_pilot(*x, s.at("pilot"));
      c.schemes[it.key()] = cf;
    }
  }
  if (auto v = f.opt("constants")) {
    Fields k(*v, f.at("constants"),
             {"ef_scale", "variance_scale", "biased_scale", "max_biased_error", "max_multiplier"});
    opt_number(k, "ef_scale", c.constants.ef_scale);
    opt_number(k, "variance_scale", c.constants.variance_scale);
    opt_number(k, "biased_scale", c.constants.biased_scale);
    opt_number(k, "max_biased_error", c.constants.max_biased_error);
    opt_number(k, "max_multiplier", c.constants.max_multiplier);
  }
  return c;
}

}  // namespace

ProfileError::ProfileError(std::string path, std::string expected, std::string got, std::string file)
    : ModelError(message(file, path, expected, got)),
      path_(std::move(path)),
      expected_(std::move(expected)),
      got_(std::move(got)),
      file_(std::move(file)) {}

Profile profile_from_string(std::string_view text) { return profile_from_json(parse_json_text(text)); }

Profile profile_from_json(const Json& j) {
  Fields f(j, "", {"schema", "provenance", "cluster", "model", "ddp", "compressors", "convergence"});
  Profile p;
  const Json& schema = f.req("schema", std::string("\"") + kProfileSchema + "\"");
  const bool v1 = schema.is_string() && schema.get<std::string>() == kProfileSchemaV1;
  if (!schema.is_string() || (!v1 && schema.get<std::string>() != kProfileSchema))
    fail("/schema", std::string("\"") + kProfileSchema + "\" (or \"" + kProfileSchemaV1 + "\", read as it)",
         describe(schema));
  if (auto v = f.opt("provenance")) p.provenance = read_provenance(*v, "/provenance");
  p.cluster = read_cluster(f.req("cluster", "the cluster description"), "/cluster", v1);
  p.model = read_model(f.req("model", "the model description"), "/model");
  if (auto v = f.opt("ddp")) p.ddp = read_ddp(*v, "/ddp");
  if (auto v = f.opt("compressors")) {
    if (!v->is_object()) fail("/compressors", "an object keyed by scheme spec", describe(*v));
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (!it.key().empty() && it.key()[0] == '_') continue;
      p.compressors[it.key()] = read_codec(it.value(), child("/compressors", it.key()));
    }
  }
  if (auto v = f.opt("convergence")) p.convergence = read_convergence(*v, "/convergence");
  validate_profile(p);
  // A profile that gives only the published stretch: the event model's rate is the one
  // that stretches its own FP32 backward as much (interference.h).
  if (p.cluster.gamma_from_stretch) {
    try {
      p.cluster.gamma = rate_from_stretch(p, p.cluster.gamma_stretch);
    } catch (const ProfileError&) {
      throw;
    } catch (const ModelError& e) {
      fail("/cluster/gamma_stretch", "a stretch the event model can derive its rate from (the profile's own FP32 step)",
           e.what());
    }
  }
  return p;
}

}  // namespace gcu::model
