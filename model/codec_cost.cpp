// Encode/decode cost fits for any scheme spec (codec_cost.h): exact, ef(...) overhead,
// interpolation over a scheme's measured parameter values.
#include "model/codec_cost.h"

#include "compressors/error_feedback.h"
#include "compressors/registry.h"
#include "util/text.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace gcu::model {
namespace {

using Coeffs = std::array<double, 7>;

Coeffs coeffs(const CodecFit& f) {
  return {f.encode.fixed_s, f.encode.per_element_s, f.decode.fixed_s, f.decode.per_element_s,
          f.decode.per_rank_element_s, f.encode.per_tensor_s, f.decode.per_tensor_s};
}
CodecFit from_coeffs(const Coeffs& c, int64_t measured_n) {
  return {{c[0], c[1], c[5]}, {c[2], c[3], c[4], c[6]}, measured_n, std::nullopt, std::nullopt};
}
// The five coefficients of f replaced by c; the rest of f (its collective floors) stays.
void set_coeffs(CodecFit& f, const Coeffs& c) {
  const CodecFit n = from_coeffs(c, f.measured_n);
  f.encode = n.encode, f.decode = n.decode;
}

// The point nearest x (in log10 when log_scale) among those `keep` accepts; null if none.
template <class Keep>
const ParamPoint* nearest(const std::vector<ParamPoint>& pts, double x, bool log_scale, Keep keep) {
  auto t = [&](double v) { return log_scale ? std::log10(v) : v; };
  const ParamPoint* best = nullptr;
  for (const auto& p : pts)
    if (keep(p) && (!best || std::abs(t(p.x) - t(x)) < std::abs(t(best->x) - t(x)))) best = &p;
  return best;
}

std::string num4g(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

bool parse_number(const std::string& s, double* v) {
  char* end = nullptr;
  errno = 0;
  *v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0' && errno != ERANGE && std::isfinite(*v);
}

// The profile's fits by canonical spec (keys the registry cannot build are left out).
using Index = std::map<std::string, const CodecFit*>;
Index canonical_index(const std::map<std::string, CodecFit>& fits) {
  Index out;
  for (const auto& [key, fit] : fits) {
    try {
      out.emplace(compress::make_compressor(key)->spec(), &fit);
    } catch (const std::exception&) {
      // not a spec this build knows: cannot stand for another parameter value
    }
  }
  return out;
}

std::string field_hint(const std::string& spec, const Index& index) {
  std::string known;
  for (const auto& [k, v] : index) known += (known.empty() ? "" : ", ") + k;
  return "add field compressors.\"" + spec + "\" (profile has: " + (known.empty() ? "none" : known) + ")";
}

// Sorted points: the segment [i, i+1] used for x (the nearest one outside the range).
size_t segment(const std::vector<ParamPoint>& pts, double x) {
  size_t i = 0;
  while (i + 2 < pts.size() && x > pts[i + 1].x) ++i;
  return i;
}

// Measured fits of the same scheme differing from `spec` in one numeric parameter.
struct Family {
  std::vector<std::string> members;  // same scheme, any parameters
  std::string key;                   // the differing parameter ("" when none usable)
  std::vector<ParamPoint> points;    // sorted by x
  double x = 0;                      // spec's value of `key`
};

Family family_of(const std::string& spec, const Index& index) {
  const auto target = compress::SchemeArgs::parse(spec);
  std::map<std::string, std::vector<ParamPoint>> by_key;
  Family f;
  std::string inner;
  for (const auto& [other, fit] : index) {
    if (compress::parse_ef_spec(other, &inner)) continue;
    const auto a = compress::SchemeArgs::parse(other);
    if (a.name() != target.name()) continue;
    f.members.push_back(other);
    std::vector<std::string> diff;
    for (const auto& [k, v] : target.values())
      if (!a.has(k) || a.values().at(k) != v) diff.push_back(k);
    for (const auto& [k, v] : a.values())
      if (!target.has(k)) diff.push_back(k);
    double xo = 0, xt = 0;
    if (diff.size() == 1 && a.has(diff[0]) && target.has(diff[0]) && parse_number(a.values().at(diff[0]), &xo) &&
        parse_number(target.values().at(diff[0]), &xt))
      by_key[diff[0]].push_back({xo, *fit});
  }
  for (auto& [k, pts] : by_key)
    if (pts.size() > f.points.size()) {
      f.key = k;
      f.points = pts;
    }
  if (!f.key.empty()) {
    parse_number(target.values().at(f.key), &f.x);
    std::sort(f.points.begin(), f.points.end(), [](const ParamPoint& a, const ParamPoint& b) { return a.x < b.x; });
  }
  return f;
}

bool is_fraction_axis(const Family& f) {
  auto frac = [](double v) { return v > 0 && v <= 1; };
  return frac(f.x) && std::all_of(f.points.begin(), f.points.end(), [&](const ParamPoint& p) { return frac(p.x); });
}

// The collective floors (CodecFit::allreduce_floor, allgather_floor) of an unmeasured
// parameter value: the nearest measured value's (in the axis' scale) that has one. A floor
// is the fixed cost of the scheme's collectives at the model's bucket sizes, set by the
// collective and the placement rather than by the parameter: dropping it would make the
// derived value cheaper than every measured one. An assumption line says which it took.
void carry_floors(ResolvedCodec& r, const std::string& spec, const Family& f, bool log_scale) {
  auto take = [&](std::optional<CollectiveFloor> CodecFit::*which, const char* name) {
    const ParamPoint* best = nearest(f.points, f.x, log_scale, [&](const ParamPoint& p) { return (p.fit.*which).has_value(); });
    if (!best) return;
    r.fit.*which = best->fit.*which;
    r.assumptions.push_back(std::string(name) + " of " + spec + " assumed equal to the measured " + f.key + "=" +
                            num4g(best->x) + "'s (the nearest " + f.key + " with one measured)");
  };
  take(&CodecFit::allreduce_floor, "allreduce_floor");
  take(&CodecFit::allgather_floor, "allgather_floor");
}

ResolvedCodec from_family(const std::string& spec, const Index& index) {
  const Family f = family_of(spec, index);
  if (f.members.empty())
    throw ModelError("scheme '" + spec + "' has no encode/decode cost fit in the profile: " + field_hint(spec, index));
  if (f.points.empty()) {
    std::string m;
    for (const auto& s : f.members) m += (m.empty() ? "" : ", ") + s;
    throw ModelError("scheme '" + spec + "' has no encode/decode cost fit in the profile, and its measured values (" +
                     m + ") differ from it in more than one parameter or in a non-numeric one: add field "
                     "compressors.\"" + spec + "\"");
  }
  const bool log_scale = is_fraction_axis(f);
  ResolvedCodec r;
  r.fit = interpolate_fit(f.points, f.x, log_scale);
  const std::string k = f.key;
  carry_floors(r, spec, f, log_scale);
  const std::string how = std::string("(linear in ") + (log_scale ? "log10 " : "") + k + ")";
  const std::string lead = "encode/decode cost of " + spec + " ";
  if (f.points.size() == 1) {
    r.assumptions.push_back(lead + "assumed equal to the measured " + k + "=" + num4g(f.points[0].x) +
                            " (the only " + k + " measured)");
    return r;
  }
  const size_t i = segment(f.points, f.x);
  const std::string lo = num4g(f.points[i].x), hi = num4g(f.points[i + 1].x);
  const std::string range = k + "=" + num4g(f.points.front().x) + ".." + num4g(f.points.back().x);
  if (f.x < f.points.front().x || f.x > f.points.back().x)
    r.assumptions.push_back(lead + "extrapolated " + how + " from " + k + "=" + lo + ".." + hi +
                            " measured (outside the measured " + range + "; coefficients kept >= 0)");
  else
    r.notes.push_back(lead + "interpolated " + how + " between " + k + "=" + lo + " and " + k + "=" + hi +
                      " measured");
  return r;
}

ResolvedCodec resolve(const std::string& spec, const Index& index);

// ef(Y) - Y per element, averaged over the pairs the profile measured; else assumed.
ResolvedCodec ef_overhead(const std::string& spec, const Index& index) {
  ResolvedCodec r;
  std::string pairs;
  int n = 0;
  for (const auto& [key, fit] : index) {
    std::string inner;
    if (!compress::parse_ef_spec(key, &inner) || !index.count(inner)) continue;
    const CodecFit& y = *index.at(inner);
    r.fit.encode.per_element_s += std::max(0.0, fit->encode.per_element_s - y.encode.per_element_s);
    r.fit.decode.per_element_s += std::max(0.0, fit->decode.per_element_s - y.decode.per_element_s);
    pairs += (pairs.empty() ? "" : ", ") + key + " - " + inner;
    ++n;
  }
  const std::string lead = "error-feedback overhead of " + spec + ": +";
  if (n > 0) {
    r.fit.encode.per_element_s /= n;
    r.fit.decode.per_element_s /= n;
    r.notes.push_back(lead + num4g(r.fit.encode.per_element_s * 1e12) + " ps/element encode, +" +
                      num4g(r.fit.decode.per_element_s * 1e12) + " ps/element decode, measured (" + pairs + ")");
    return r;
  }
  const std::string cast = compress::Registry::instance().baseline(compress::Baseline::FP16).name;
  if (!index.count(cast))
    throw ModelError("scheme '" + spec + "': no error-feedback overhead: the profile has no ef(...) fit and no \"" +
                     cast + "\" fit to assume it from: add field compressors.\"" + spec + "\"");
  const Seconds c = index.at(cast)->encode.per_element_s;
  r.fit = ef_overhead_from_cast(c);
  r.assumptions.push_back(lead + num4g(r.fit.encode.per_element_s * 1e12) + " ps/element encode, +" +
                          num4g(r.fit.decode.per_element_s * 1e12) + " ps/element decode (assumed, no ef(...) fit "
                          "measured: " + num4g(kEfEncodeBytesPerElement) + " + " + num4g(kEfDecodeBytesPerElement) +
                          " bytes/element of fp32 residual traffic at the speed of the profile's " + cast +
                          " encode, " + num4g(kCastEncodeBytesPerElement) + " bytes/element in " + num4g(c * 1e12) + " ps)");
  return r;
}

ResolvedCodec resolve(const std::string& spec, const Index& index) {
  if (auto it = index.find(spec); it != index.end()) return {*it->second, {}, {}};
  std::string inner;
  if (!compress::parse_ef_spec(spec, &inner)) return from_family(spec, index);
  ResolvedCodec r;
  if (!compress::Registry::instance().facts(inner).lossless) r = resolve(inner, index);
  const ResolvedCodec o = ef_overhead(spec, index);
  Coeffs c = coeffs(r.fit);
  const Coeffs d = coeffs(o.fit);
  for (size_t i = 0; i < c.size(); ++i) c[i] += d[i];
  // ef(...) sends what its inner scheme sends: the inner scheme's collective floors stay.
  set_coeffs(r.fit, c);
  if (r.fit.allreduce_floor || r.fit.allgather_floor)
    r.notes.push_back("collective floors of " + spec + ": those of " + inner + " (error feedback sends what it sends)");
  r.notes.insert(r.notes.end(), o.notes.begin(), o.notes.end());
  r.assumptions.insert(r.assumptions.end(), o.assumptions.begin(), o.assumptions.end());
  return r;
}

}  // namespace

CodecFit interpolate_fit(std::vector<ParamPoint> pts, double x, bool log_scale) {
  if (pts.empty()) throw ModelError("interpolate_fit: no measured points");
  std::sort(pts.begin(), pts.end(), [](const ParamPoint& a, const ParamPoint& b) { return a.x < b.x; });
  if (pts.size() == 1) return pts[0].fit;
  auto t = [&](double v) { return log_scale ? std::log10(v) : v; };
  const size_t i = segment(pts, x);
  const double u0 = t(pts[i].x), u1 = t(pts[i + 1].x);
  const double w = (t(x) - u0) / (u1 - u0);
  const Coeffs a = coeffs(pts[i].fit), b = coeffs(pts[i + 1].fit);
  Coeffs c{};
  for (size_t j = 0; j < c.size(); ++j) c[j] = std::max(0.0, (1 - w) * a[j] + w * b[j]);
  return from_coeffs(c, nearest(pts, x, log_scale, [](const ParamPoint&) { return true; })->fit.measured_n);
}

CodecFit ef_overhead_from_cast(Seconds cast_encode_per_element_s) {
  const double per_byte = cast_encode_per_element_s / kCastEncodeBytesPerElement;
  CodecFit f;
  f.encode.per_element_s = kEfEncodeBytesPerElement * per_byte;
  f.decode.per_element_s = kEfDecodeBytesPerElement * per_byte;
  return f;
}

ResolvedCodec resolve_codec_fit(const std::string& canonical_spec, const std::map<std::string, CodecFit>& fits) {
  compress::check_ef_nesting(canonical_spec);
  return resolve(canonical_spec, canonical_index(fits));
}

}  // namespace gcu::model
