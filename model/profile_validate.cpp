// Range and consistency checks of a profile (validate_profile) and command-line
// overrides of profile fields (apply_override); see profile_json.h.
#include "model/profile_json.h"

#include "compressors/compressor.h"
#include "compressors/params.h"
#include "util/json_pointer.h"
#include "util/text.h"

#include <charconv>
#include <cmath>
#include <set>

namespace gcu::model {
namespace {

std::string num_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string at(const std::string& path, const std::string& key) { return util::pointer_child(path, key); }
std::string at(const std::string& path, size_t i) { return util::pointer_child(path, i); }

[[noreturn]] void reject(const std::string& path, const std::string& expected, const std::string& got) {
  throw ProfileError(path, expected, got);
}

// Limits that keep every derived quantity finite (docs/robustness.md): element counts
// stay exact in a double, times, bandwidths and costs stay far from overflow and
// underflow when multiplied by counts, ranks and bytes.
constexpr int64_t kMaxElements = int64_t{1} << 50;
constexpr double kMaxSeconds = 1e9;          // any time, latency or cost (about 31 years)
constexpr double kMinBandwidthGbps = 1e-6;   // 1 kbit/s
constexpr double kMaxBandwidthGbps = 1e9;
constexpr double kMaxFactor = 1e6;           // gamma, contention, iterations factors

void require(bool ok, const std::string& path, const std::string& expected, double got) {
  if (!ok) reject(path, expected, num_text(got));
}
void positive(double v, const std::string& path, const std::string& what, double max = kMaxSeconds) {
  require(std::isfinite(v) && v > 0 && v <= max, path, what + " (a number > 0 and <= " + num_text(max) + ")", v);
}
void non_negative(double v, const std::string& path, const std::string& what, double max = kMaxSeconds) {
  require(std::isfinite(v) && v >= 0 && v <= max, path, what + " (a number >= 0 and <= " + num_text(max) + ")", v);
}

void check_scheme_key(const std::string& key, const std::string& path) {
  try {
    (void)compress::SchemeArgs::parse(key);
  } catch (const std::exception& e) {
    reject(path, "a scheme spec such as \"powersgd:rank=4\" as the key", "\"" + key + "\" (" + e.what() + ")");
  }
}

// `needed`: the cluster shape uses this level (gpus_per_node > 1 for intra, nodes > 1
// for inter). An absent level reads as bandwidth 0 without fits.
void check_level(const LinkLevel& l, const std::string& path, bool needed, const std::string& why) {
  if (l.bandwidth_gbps == 0 && l.collectives.empty()) {
    if (needed) reject(path, "a link level {bandwidth_gbps, alpha_s} (" + why + ")", "nothing (the level is missing)");
    return;
  }
  require(std::isfinite(l.bandwidth_gbps) && l.bandwidth_gbps >= kMinBandwidthGbps &&
              l.bandwidth_gbps <= kMaxBandwidthGbps,
          at(path, "bandwidth_gbps"), "a bandwidth in Gbps from 1e-06 to 1e+09", l.bandwidth_gbps);
  non_negative(l.alpha_s, at(path, "alpha_s"), "a latency in seconds");
  static const std::set<std::string> kinds = {"allreduce", "allgather", "reducescatter", "broadcast"};
  for (const auto& k : l.curves)
    if (!l.collectives.count(k)) reject(at(at(path, "collectives"), k), "a curve with its size ranges", "no ranges");
  for (const auto& [k, fits] : l.collectives) {
    const bool curve = l.curves.count(k) > 0;
    const std::string kp = curve ? at(at(at(path, "collectives"), k), "ranges") : at(at(path, "collectives"), k);
    if (!kinds.count(k)) reject(at(at(path, "collectives"), k), "one of allreduce, allgather, reducescatter, broadcast", "\"" + k + "\"");
    if (curve && fits.empty()) reject(kp, "at least one size range", "none");
    if (curve && fits.front().min_bytes != 0)
      reject(at(at(kp, 0), "min_bytes"), "0: a curve's ranges start at 0 bytes", num_text(fits.front().min_bytes));
    if (curve && std::isfinite(fits.back().max_bytes))
      reject(at(at(kp, fits.size() - 1), "max_bytes"), "no max_bytes: a curve's last range has no upper bound",
             num_text(fits.back().max_bytes));
    for (size_t i = 0; i < fits.size(); ++i) {
      const SizeRangeFit& s = fits[i];
      const std::string ip = at(kp, i);
      if (curve && i > 0 && s.min_bytes != fits[i - 1].max_bytes)
        reject(at(ip, "min_bytes"), "the previous range's max_bytes (" + num_text(fits[i - 1].max_bytes) +
                                        "): a curve's ranges have no gaps", num_text(s.min_bytes));
      if (curve && s.alpha_s != fits.front().alpha_s)
        reject(at(at(at(path, "collectives"), k), "alpha_s"), "one latency for the curve", num_text(s.alpha_s));
      non_negative(s.min_bytes, at(ip, "min_bytes"), "a message size in bytes", 1e15);
      require(s.max_bytes > s.min_bytes, at(ip, "max_bytes"),
              "a size above min_bytes (" + num_text(s.min_bytes) + "), or no max_bytes for no upper bound",
              s.max_bytes);
      non_negative(s.alpha_s, curve ? at(at(at(path, "collectives"), k), "alpha_s") : at(ip, "alpha_s"),
                   "a latency in seconds");
      positive(s.beta_s_per_byte, at(ip, "beta_s_per_byte"), "seconds per byte");
      if (i > 0)
        require(s.min_bytes >= fits[i - 1].max_bytes, at(ip, "min_bytes"),
                "ranges sorted and not overlapping: min_bytes >= the previous range's max_bytes (" +
                    num_text(fits[i - 1].max_bytes) + ")",
                s.min_bytes);
    }
  }
}

void check_cluster(const Cluster& c) {
  // Bounded so that nodes x GPUs per node (and sweeps of up to 1e6 nodes) fit an int.
  require(c.nodes >= 1 && c.nodes <= 1'000'000, "/cluster/nodes", "an integer >= 1 and <= 1000000", c.nodes);
  require(c.gpus_per_node >= 1 && c.gpus_per_node <= 1024, "/cluster/gpus_per_node", "an integer >= 1 and <= 1024",
          c.gpus_per_node);
  check_level(c.intra, "/cluster/levels/intra", c.gpus_per_node > 1, "needed with gpus_per_node > 1");
  check_level(c.inter, "/cluster/levels/inter", c.nodes > 1, "needed with nodes > 1");
  if (c.algorithms.empty()) reject("/cluster/algorithms", "at least one of \"ring\", \"tree\", \"ps\"", "an empty list");
  std::set<std::string> seen;
  for (size_t i = 0; i < c.algorithms.size(); ++i) {
    const std::string& a = c.algorithms[i];
    if (a != "ring" && a != "tree" && a != "ps")
      reject(at("/cluster/algorithms", i), "one of \"ring\", \"tree\", \"ps\"", "\"" + a + "\"");
    if (!seen.insert(a).second) reject(at("/cluster/algorithms", i), "each algorithm once", "\"" + a + "\" again");
  }
  require(std::isfinite(c.gamma_stretch) && c.gamma_stretch >= 1 && c.gamma_stretch <= kMaxFactor, "/cluster/gamma_stretch",
          "a number >= 1 (the closed form's whole-backward stretch under overlapped communication)", c.gamma_stretch);
  require(std::isfinite(c.gamma) && c.gamma >= 1 && c.gamma <= kMaxFactor, "/cluster/interference/backward_by_collective",
          "a number >= 1 (backward's slowdown while a collective runs)", c.gamma);
  require(std::isfinite(c.overlap_contention) && c.overlap_contention >= 1 && c.overlap_contention <= kMaxFactor,
          "/cluster/interference/backward_codec",
          "a number >= 1 (backward's and a codec's slowdown side by side)", c.overlap_contention);
  require(std::isfinite(c.comm_contention) && c.comm_contention >= 1 && c.comm_contention <= kMaxFactor,
          "/cluster/interference/collective_by_backward",
          "a number >= 1 (slowdown of a collective's CPU side beside backward)", c.comm_contention);
  if (c.comm_contention_reference)
    check_level(*c.comm_contention_reference, "/cluster/interference/host_link", true,
                "the link whose collective costs are the CPU side");
  if (c.interference_fit) {
    const Cluster::InterferenceFit& f = *c.interference_fit;
    for (auto [v, key] : {std::pair<double, const char*>{f.backward_alone_s, "backward_alone_s"},
                          {f.backward_beside_s, "backward_beside_s"},
                          {f.comm_beside_s, "comm_beside_s"},
                          {f.backward_beside_model_s, "backward_beside_model_s"},
                          {f.comm_beside_model_s, "comm_beside_model_s"}})
      require(std::isfinite(v) && v >= 0 && v <= kMaxSeconds, std::string("/cluster/interference/fit/") + key,
              "seconds (a number >= 0)", v);
  }
  for (const auto& [type, bytes] : c.allreduce_element_bytes) {
    const std::string path = util::pointer_child("/cluster/allreduce_element_bytes", type);
    int64_t nominal = 0;
    for (auto t : compress::kWireTypes)
      if (type == compress::wire_type_name(t)) nominal = compress::wire_type_bytes(t);
    if (nominal == 0)
      reject(path, "a wire type (f32, f16, bf16, i32, i16, i8, u8, u32, u64)", "\"" + util::printable(type, 40) + "\"");
    require(bytes >= nominal && bytes <= 8 && (bytes & (bytes - 1)) == 0, path,
            "1, 2, 4 or 8 bytes, at least the type's own " + std::to_string(nominal), bytes);
  }
}

void check_model(const Model& m) {
  if (m.name.empty()) reject("/model/name", "a non-empty name", "\"\"");
  if (m.tensors.empty()) reject("/model/tensors", "at least one tensor", "an empty list");
  std::set<std::string> names;
  int64_t total = 0;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const TensorInfo& t = m.tensors[i];
    const std::string ip = at("/model/tensors", i);
    if (t.name.empty()) reject(at(ip, "name"), "a non-empty name", "\"\"");
    if (!names.insert(t.name).second) reject(at(ip, "name"), "a name not used by another tensor", "\"" + t.name + "\" again");
    int64_t n = 1;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      require(t.shape[d] >= 1, at(at(ip, "shape"), d), "a dimension >= 1", static_cast<double>(t.shape[d]));
      // Checked: a 64-bit product could wrap to a negative count or to 0.
      if (__builtin_mul_overflow(n, t.shape[d], &n) || n > kMaxElements)
        reject(at(ip, "shape"), "dimensions whose product (the tensor's size) is at most 2^50 elements",
             "a product above that (exceeded at dimension " + std::to_string(d) + ")");
    }
    if (__builtin_add_overflow(total, n, &total) || total > kMaxElements)
      reject(ip, "tensors whose sizes sum to at most 2^50 elements", "a larger sum at this tensor");
  }
  if (m.parameters != total)
    reject("/model/parameters",
         "the sum of the tensor sizes in /model/tensors (" + std::to_string(total) + ")",
         std::to_string(m.parameters));
  if (m.compute.empty()) reject("/model/compute", "at least one compute entry (one per batch size)", "an empty list");
  std::set<int> batches;
  for (size_t i = 0; i < m.compute.size(); ++i) {
    const ComputeEntry& e = m.compute[i];
    const std::string ip = at("/model/compute", i);
    require(e.batch_size >= 1, at(ip, "batch_size"), "a batch size >= 1", e.batch_size);
    if (!batches.insert(e.batch_size).second)
      reject(at(ip, "batch_size"), "a batch size not listed in another /model/compute entry",
           std::to_string(e.batch_size) + " again");
    non_negative(e.forward_s, at(ip, "forward_s"), "a time in seconds");
    positive(e.backward_s, at(ip, "backward_s"), "a time in seconds");
    non_negative(e.optimizer_s, at(ip, "optimizer_s"), "a time in seconds");
    non_negative(e.data_s, at(ip, "data_s"), "a time in seconds");
    if (e.ready_s.empty()) continue;
    const std::string rp = at(ip, "ready_s");
    if (e.ready_s.size() != m.tensors.size())
      reject(rp, std::to_string(m.tensors.size()) + " entries (one per tensor in /model/tensors)",
           std::to_string(e.ready_s.size()) + " entries");
    for (size_t k = 0; k < e.ready_s.size(); ++k) {
      const double r = e.ready_s[k];
      non_negative(r, at(rp, k), "a time in seconds");
      if (k > 0)
        require(r >= e.ready_s[k - 1], at(rp, k),
                "a time >= the previous entry (" + num_text(e.ready_s[k - 1]) +
                    "): tensors are listed in the order their gradients become ready",
                r);
      require(r <= e.backward_s * (1 + 1e-6), at(rp, k),
              "a time <= backward_s (" + num_text(e.backward_s) + ")", r);
    }
  }
}

void check_compressors(const std::map<std::string, CodecFit>& cs) {
  for (const auto& [k, c] : cs) {
    const std::string kp = at("/compressors", k);
    check_scheme_key(k, kp);
    non_negative(c.encode.fixed_s, kp + "/encode/fixed_s", "seconds per bucket");
    non_negative(c.encode.per_element_s, kp + "/encode/per_element_s", "seconds per element");
    non_negative(c.decode.fixed_s, kp + "/decode/fixed_s", "seconds per bucket");
    non_negative(c.decode.per_element_s, kp + "/decode/per_element_s", "seconds per element");
    non_negative(c.decode.per_rank_element_s, kp + "/decode/per_rank_element_s", "seconds per element per rank");
    non_negative(c.encode.per_tensor_s, kp + "/encode/per_tensor_s", "seconds per tensor");
    non_negative(c.decode.per_tensor_s, kp + "/decode/per_tensor_s", "seconds per tensor");
    require(c.measured_n >= 0, kp + "/measured_n", "a number of elements >= 0", static_cast<double>(c.measured_n));
    if (c.allreduce_floor)
      if (const auto p = collective_floor_problem(*c.allreduce_floor))
        reject(kp + "/allreduce_floor" + p->field, p->expected, p->got);
    if (c.allgather_floor)
      if (const auto p = collective_floor_problem(*c.allgather_floor))
        reject(kp + "/allgather_floor" + p->field, p->expected, p->got);
  }
}

void check_convergence(const Convergence& c) {
  non_negative(c.baseline_iterations, "/convergence/baseline_iterations", "iterations to target (0 = unknown)", 1e15);
  non_negative(c.baseline_global_batch, "/convergence/baseline_global_batch",
               "samples per iteration over all GPUs (0 = the profile's own setup)", 1e12);
  if (c.critical_batch_size)
    non_negative(*c.critical_batch_size, "/convergence/critical_batch_size",
                 "samples per iteration over all GPUs (0 = iterations independent of the batch)", 1e12);
  for (const auto& [k, f] : c.schemes) {
    const std::string kp = at("/convergence/schemes", k);
    check_scheme_key(k, kp);
    if (f.relative_error) non_negative(*f.relative_error, kp + "/relative_error", "E||C(g)-g||^2/||g||^2", kMaxFactor);
    if (f.relative_error_ef) non_negative(*f.relative_error_ef, kp + "/relative_error_ef", "E||C(g)-g||^2/||g||^2", kMaxFactor);
    if (f.iterations) positive(*f.iterations, kp + "/iterations", "iterations to target", 1e15);
    if (f.pilot && f.pilot->multiplier) {
      const double m = *f.pilot->multiplier;
      if (f.pilot->multiplier_lo)
        require(*f.pilot->multiplier_lo > 0 && *f.pilot->multiplier_lo <= m, kp + "/pilot/multiplier_lo",
                "0 < multiplier_lo <= multiplier", *f.pilot->multiplier_lo);
      if (f.pilot->multiplier_hi)
        require(std::isfinite(*f.pilot->multiplier_hi) && *f.pilot->multiplier_hi >= m, kp + "/pilot/multiplier_hi",
                "multiplier_hi >= multiplier", *f.pilot->multiplier_hi);
    }
  }
  const ConvergenceConstants& k = c.constants;
  non_negative(k.ef_scale, "/convergence/constants/ef_scale", "a scale", kMaxFactor);
  non_negative(k.variance_scale, "/convergence/constants/variance_scale", "a scale", kMaxFactor);
  non_negative(k.biased_scale, "/convergence/constants/biased_scale", "a scale", kMaxFactor);
  require(k.max_biased_error > 0 && k.max_biased_error <= 1, "/convergence/constants/max_biased_error",
          "a number in (0, 1]", k.max_biased_error);
  require(std::isfinite(k.max_multiplier) && k.max_multiplier >= 1 && k.max_multiplier <= kMaxFactor,
          "/convergence/constants/max_multiplier",
          "a number >= 1", k.max_multiplier);
}

// "cluster.levels.inter" -> "/cluster/levels/inter"; pointers pass unchanged.
std::string to_pointer(const std::string& path) {
  std::string out = util::dotted_to_pointer(path);
  if (out.empty() && !path.empty())
    throw ProfileError("--set " + util::printable(path), "a dotted path like cluster.gamma", "an empty segment");
  return out;
}

bool contains(const Json& j, const std::string& ptr) {
  try {
    return j.contains(Json::json_pointer(ptr));
  } catch (const Json::exception&) {
    return false;
  }
}

bool parent_exists(const Json& j, const std::string& ptr) {
  try {
    Json::json_pointer p(ptr);
    if (p.empty()) return false;
    const auto parent = p.parent_pointer();
    return j.contains(parent) && (j.at(parent).is_object() || j.at(parent).is_array());
  } catch (const Json::exception&) {
    return false;
  }
}

}  // namespace

std::optional<FieldProblem> collective_floor_problem(const CollectiveFloor& f) {
  const auto bad_number = [](double v, const std::string& field, const std::string& expected) {
    return std::optional<FieldProblem>(FieldProblem{field, expected, num_text(v)});
  };
  if (f.world < 2 || f.world > 1000000) return bad_number(f.world, "/world", "a number of ranks >= 2");
  if (!(std::isfinite(f.per_element_s) && f.per_element_s >= 0 && f.per_element_s <= kMaxSeconds))
    return bad_number(f.per_element_s, "/per_element_s", "seconds per element (a number >= 0)");
  if (f.elements.empty() || f.elements.size() != f.seconds.size())
    return bad_number(double(f.seconds.size()), "/seconds",
                      "one time per entry of elements (" + std::to_string(f.elements.size()) + ", at least 1)");
  for (size_t i = 0; i < f.elements.size(); ++i) {
    const std::string ip = "/elements/" + std::to_string(i);
    if (f.elements[i] <= 0 || f.elements[i] > int64_t(1) << 50)
      return bad_number(double(f.elements[i]), ip, "a bucket size in elements > 0");
    if (i > 0 && f.elements[i] <= f.elements[i - 1])
      return bad_number(double(f.elements[i]), ip,
                        "a size larger than the one before (" + std::to_string(f.elements[i - 1]) + ")");
    if (!(std::isfinite(f.seconds[i]) && f.seconds[i] >= 0 && f.seconds[i] <= kMaxSeconds))
      return bad_number(f.seconds[i], "/seconds/" + std::to_string(i), "seconds per bucket (a number >= 0)");
  }
  if (!f.se_s.empty() && f.se_s.size() != f.seconds.size())
    return bad_number(double(f.se_s.size()), "/se_s",
                      "one standard error per entry of seconds (" + std::to_string(f.seconds.size()) + ") or none");
  for (size_t i = 0; i < f.se_s.size(); ++i)
    if (!(std::isfinite(f.se_s[i]) && f.se_s[i] >= 0 && f.se_s[i] <= kMaxSeconds))
      return bad_number(f.se_s[i], "/se_s/" + std::to_string(i), "a standard error in seconds (a number >= 0)");
  return std::nullopt;
}

void validate_profile(const Profile& p) {
  if (p.schema != kProfileSchema)
    reject("/schema", std::string("\"") + kProfileSchema + "\"", "\"" + p.schema + "\"");
  check_cluster(p.cluster);
  check_model(p.model);
  positive(p.ddp.first_bucket_bytes, "/ddp/first_bucket_bytes", "a size in bytes", 1e15);
  positive(p.ddp.bucket_cap_bytes, "/ddp/bucket_cap_bytes", "a size in bytes", 1e15);
  check_compressors(p.compressors);
  check_convergence(p.convergence);
}

std::pair<std::string, std::string> split_override(const Json& j, const std::string& assignment) {
  std::vector<size_t> eqs;
  for (size_t i = 0; i < assignment.size(); ++i)
    if (assignment[i] == '=' && i > 0) eqs.push_back(i);
  if (eqs.empty())
    throw ProfileError("--set " + util::printable(assignment), "PATH=VALUE, e.g. /cluster/gamma=1.1 or cluster.gamma=1.1",
                       "no '=' after a path");
  auto pointer_at = [&](size_t pos) -> std::string {
    try {
      return to_pointer(assignment.substr(0, pos));
    } catch (const ProfileError&) {
      return "";
    }
  };
  for (auto it = eqs.rbegin(); it != eqs.rend(); ++it)
    if (auto p = pointer_at(*it); !p.empty() && contains(j, p)) return {p, assignment.substr(*it + 1)};
  for (auto it = eqs.rbegin(); it != eqs.rend(); ++it)
    if (auto p = pointer_at(*it); !p.empty() && parent_exists(j, p)) return {p, assignment.substr(*it + 1)};
  const std::string p = to_pointer(assignment.substr(0, eqs.back()));
  return {p, assignment.substr(eqs.back() + 1)};
}

namespace {
// Array indices along `ptr` stay within the array or one past its end (append one
// element): "/model/tensors/100000000" would otherwise pad with nulls until memory runs
// out. Throws ProfileError naming the index.
void check_indices(const Json& j, const std::string& ptr, const std::string& assignment) {
  const Json* cur = &j;
  std::string at_ptr;
  size_t pos = 1;
  while (pos <= ptr.size()) {
    const size_t slash = ptr.find('/', pos);
    const std::string token = ptr.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (!cur) {  // below a missing key: nlohmann creates it
      // A digit token below a missing key makes nlohmann create an array padded with
      // nulls up to that index: only 0 (a new one-element array) is allowed.
      const bool digits = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
      at_ptr += "/" + token;
      if (digits && token != "0")
        reject(util::printable(at_ptr, 200),
             "index 0 of a new array (from --set " + util::printable(assignment, 100) + ")",
             util::quote(token, 40));
    } else if (cur->is_array()) {
      const std::string here = at_ptr + "/" + token;
      const bool digits = !token.empty() && token.size() < 19 && token.find_first_not_of("0123456789") == std::string::npos;
      const size_t index = digits ? std::stoull(token) : 0;
      if (token != "-" && (!digits || index > cur->size()))
        reject(util::printable(here, 200),
             "an index <= " + std::to_string(cur->size()) + " (an existing element, or one past the end to append; "
             "from --set " + util::printable(assignment, 100) + ")",
             util::quote(token, 40));
      cur = token != "-" && index < cur->size() ? &(*cur)[index] : nullptr;
      at_ptr = here;
    } else if (cur->is_object()) {
      std::string key;  // unescape ~1 and ~0
      for (size_t i = 0; i < token.size(); ++i)
        key += token[i] == '~' && i + 1 < token.size() ? (token[++i] == '1' ? '/' : '~') : token[i];
      const auto it = cur->find(key);
      cur = it == cur->end() ? nullptr : &*it;
      at_ptr += "/" + token;
    } else {
      cur = nullptr;  // a scalar: nlohmann refuses to descend (an error below)
      at_ptr += "/" + token;
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}
}  // namespace

void apply_override(Json& j, const std::string& assignment) {
  const auto [ptr, text] = split_override(j, assignment);
  check_indices(j, ptr, assignment);
  Json value;
  try {
    value = parse_json_text(text);  // the same limits as a profile (depth, duplicate keys, 1e999)
  } catch (const ProfileError& e) {
    if (e.got().rfind("a syntax error", 0) != 0)
      throw ProfileError(ptr, e.expected() + " (from --set " + util::printable(assignment, 100) + ")", e.got());
    value = text;  // a plain string: --set /convergence/target=76% top-1
  }
  try {
    j[Json::json_pointer(ptr)] = std::move(value);
  } catch (const Json::exception& e) {
    throw ProfileError(ptr, "a path through objects and arrays of the profile (from --set " +
                                util::printable(assignment, 100) + ")",
                       std::string("a path that cannot be set: ") + util::printable(e.what()));
  }
}

}  // namespace gcu::model
