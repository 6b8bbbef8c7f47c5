// Table, CSV and JSON output of a result table (format.h).
#include "simulate/format.h"

#include "compressors/registry.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <map>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace gcu::simulate {
namespace {

using Json = nlohmann::ordered_json;

std::string printf_str(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string tta_text(const ResultRow& r) { return fmt_tta(r.tta); }


std::string opt_ratio(const std::optional<double>& v) { return v ? fmt_ratio(*v) : "-"; }

double ratio_of(const ResultRow& r) {
  return r.iteration.wire_bytes > 0 ? r.iteration.raw_bytes / r.iteration.wire_bytes : 0;
}

std::string x_text(const ResultTable& t, double x) {
  if (!t.sweep) return "";
  return sweep_axis_is_integer(t.sweep->axis) ? std::to_string(int64_t(std::llround(x))) : fmt_number(std::round(x * 1e4) / 1e4);
}

}  // namespace

std::string fmt_number(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char b[32];
  auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}
std::string fmt_ms(double s) { return printf_str(s * 1e3 >= 100 ? "%.1f" : "%.2f", s * 1e3); }
std::string fmt_ratio(double r) { return printf_str(r >= 100 ? "%.0fx" : "%.2fx", r); }
std::string fmt_duration(double s) {
  if (s >= 3600) return printf_str("%.2f h", s / 3600);
  if (s >= 60) return printf_str("%.1f min", s / 60);
  return printf_str("%.1f s", s);
}
std::string fmt_tta(const std::optional<model::TtaResult>& t) {
  if (!t) return "-";
  if (t->status == model::TtaStatus::NeverReaches) return "never";
  if (!t->tta_s) return t->status == model::TtaStatus::Uncertain ? "uncertain" : "-";
  std::string s = fmt_duration(*t->tta_s);
  if (t->tta_lo_s && t->tta_hi_s) s += " [" + fmt_duration(*t->tta_lo_s) + "-" + fmt_duration(*t->tta_hi_s) + "]";
  if (t->status == model::TtaStatus::Uncertain) s = "uncertain " + s;
  return s;
}
std::string fmt_bytes(double b) {
  if (b >= 1024.0 * 1024 * 1024) return printf_str("%.2f GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return printf_str("%.1f MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return printf_str("%.1f KiB", b / 1024.0);
  return printf_str("%.0f B", b);
}

namespace {
// "name:a=1,b=2" -> name and the key=value items in their printed order.
std::pair<std::string, std::vector<std::string>> split_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  std::vector<std::string> items;
  if (colon == std::string::npos) return {spec, items};
  size_t pos = colon + 1;
  while (pos <= spec.size()) {
    const auto comma = spec.find(',', pos);
    items.push_back(spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return {spec.substr(0, colon), items};
}
}  // namespace

std::string short_label(const std::string& spec) {
  if (spec.size() > 4 && spec.compare(0, 3, "ef(") == 0 && spec.back() == ')')
    return "ef(" + short_label(spec.substr(3, spec.size() - 4)) + ")";
  const auto [name, items] = split_spec(spec);
  if (items.size() < 2) return spec;
  std::vector<std::string> defaults;
  try {
    defaults = split_spec(compress::make_compressor(name)->spec()).second;
  } catch (const std::exception&) {
    return spec;
  }
  std::string out = name + ":" + items.front();
  for (size_t i = 1; i < items.size(); ++i)
    if (std::find(defaults.begin(), defaults.end(), items[i]) == defaults.end()) out += "," + items[i];
  return out;
}

std::string convergence_banner(const std::string& source) {
  if (source == "none")
    return "  convergence: none (no figures for this model): schemes compare by iteration time; gcu pilot measures "
           "time to accuracy on your job\n";
  if (source == "assumed")
    return "  convergence: ASSUMED (illustrative, not measured): TTA shows how the model behaves, not what a run "
           "would give; measure with gcu calibrate or gcu pilot\n";
  return "  convergence: " + std::string(source == "pilot" ? "from paired pilot runs (gcu pilot)"
                                                            : "calibrated from short training runs (gcu calibrate)") +
         "\n";
}

std::string mode_note(const std::string& requested) {
  if (requested == "auto")
    return "mode auto = every scheme overlapped, per bucket as backward fills it (as gcu train and DDP comm hooks "
           "run them);\n  --mode after compresses the whole gradient after backward (GRACE-style)";
  if (requested == "after-backward") return "mode after: every scheme compresses the whole gradient after backward";
  return "mode overlap: every scheme compresses each bucket as backward fills it";
}

std::string align_columns(const std::vector<std::vector<std::string>>& rows, size_t left_aligned) {
  std::vector<size_t> w;
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], r[i].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string pad(w[i] - r[i].size(), ' ');
      if (i) line += "  ";
      line += i < left_aligned ? r[i] + pad : pad + r[i];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string format_table(const ResultTable& t, const std::string& profile_label) {
  const RunContext& c = t.context;
  std::ostringstream h;
  h << "gcu simulate: " << c.model_name << " (" << c.parameters << " parameters, " << profile_label << ")\n"
    << "  " << c.nodes * c.gpus_per_node << " GPUs (" << c.nodes << " nodes x " << c.gpus_per_node
    << "), batch " << c.batch_size << "/GPU, inter-node " << fmt_number(c.inter_bandwidth_gbps)
    << " Gbps, intra-node " << fmt_number(c.intra_bandwidth_gbps) << " Gbps; iteration model: "
    << c.iteration_model << ", compression mode: " << c.mode << "\n";
  if (t.sweep) h << "  sweep: " << sweep_axis_label(t.sweep->axis) << ", " << t.sweep->values.size() << " points\n";
  if (!c.tta_target.empty() || c.convergence_source == "none") h << convergence_banner(c.convergence_source);
  h << "\n";

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head;
  if (t.sweep) head.push_back(sweep_axis_name(t.sweep->axis));
  for (const char* s : {"scheme", "iter (ms)", "vs FP32", "vs FP16", "exposed (ms)", "enc+dec (ms)", "ratio", "TTA",
                        "model", "mode"})
    head.push_back(s);
  rows.push_back(head);
  double prev_x = std::nan("");
  std::string out = h.str();
  std::map<std::string, std::string> label;  // once per scheme, not per row of a long sweep
  for (const auto& s : t.schemes) label[s] = short_label(s);
  for (const auto& r : t.rows) {
    if (t.sweep && r.x != prev_x && !std::isnan(prev_x) && t.schemes.size() > 1) rows.push_back({});
    prev_x = r.x;
    std::vector<std::string> row;
    if (t.sweep) row.push_back(x_text(t, r.x));
    const auto l = label.find(r.scheme);
    row.push_back(l != label.end() ? l->second : short_label(r.scheme));
    row.push_back(fmt_ms(r.iteration.total_s));
    row.push_back(opt_ratio(r.vs_fp32));
    row.push_back(opt_ratio(r.vs_fp16));
    row.push_back(fmt_ms(r.iteration.exposed_s));
    row.push_back(fmt_ms(r.iteration.encode_s + r.iteration.decode_s));
    row.push_back(ratio_of(r) > 0 ? fmt_ratio(ratio_of(r)) : "-");
    row.push_back(tta_text(r));
    row.push_back(model::model_name(r.iteration.model));
    row.push_back(model::mode_name(r.iteration.mode));
    rows.push_back(row);
  }
  out += align_columns(rows, t.sweep ? 2 : 1);
  out += "\n  iter = predicted iteration time (forward + backward/communication + optimizer); vs FP32/FP16 = speed-up\n"
         "  over DDP without compression / with FP16 compression at the same point (>1 = faster);\n"
         "  exposed = communication + encode/decode not hidden behind backward; enc+dec = encode + decode time;\n"
         "  ratio = FP32 bytes / wire bytes.\n  " + mode_note(c.mode) + ".\n";
  if (!c.tta_target.empty())
    out += "  TTA = time to " + c.tta_target + " (baseline " + printf_str("%.6g", c.baseline_iterations) +
           " iterations at global batch " + fmt_number(c.reference_global_batch) +
           ", rescaled to each point's global batch, x the scheme's iteration multiplier; \"never\" = does not "
           "reach it).\n";
  for (const auto& n : t.notes) out += "  note: " + n + "\n";
  for (const auto& a : t.assumptions) out += "  assumption: " + a + "\n";
  return out;
}

std::vector<std::string> csv_header() {
  return {"axis", "x", "scheme", "model", "mode", "gpus", "batch_size", "inter_bandwidth_gbps",
          "iteration_s", "speedup_vs_fp32", "speedup_vs_fp16", "linear_s", "scaling_efficiency",
          "data_s", "forward_s", "backward_s", "backward_comm_s", "exposed_s", "comm_s", "encode_s",
          "decode_s", "optimizer_s", "buckets", "raw_bytes", "wire_bytes", "compression_ratio",
          "tta_status", "iterations", "tta_s", "global_batch", "tta_batch_factor",
          "tta_lo_s", "tta_hi_s", "tta_basis", "convergence_source"};
}

std::string format_csv(const ResultTable& t) {
  std::string out;
  for (const auto& h : csv_header()) out += (out.empty() ? "" : ",") + h;
  out += "\n";
  auto opt = [](const std::optional<double>& v) { return v ? fmt_number(*v) : std::string(); };
  for (const auto& r : t.rows) {
    const auto& it = r.iteration;
    std::vector<std::string> f = {
        t.sweep ? sweep_axis_name(t.sweep->axis) : "",
        t.sweep ? fmt_number(r.x) : "",
        "\"" + r.scheme + "\"",
        model::model_name(it.model),
        model::mode_name(it.mode),
        std::to_string(it.world),
        std::to_string(it.batch_size),
        fmt_number(r.inter_bandwidth_gbps),
        fmt_number(it.total_s),
        opt(r.vs_fp32),
        opt(r.vs_fp16),
        fmt_number(r.linear_s),
        it.total_s > 0 ? fmt_number(r.linear_s / it.total_s) : "",
        fmt_number(it.data_s), fmt_number(it.forward_s), fmt_number(it.backward_s),
        fmt_number(it.backward_comm_s), fmt_number(it.exposed_s), fmt_number(it.comm_s),
        fmt_number(it.encode_s), fmt_number(it.decode_s), fmt_number(it.optimizer_s),
        std::to_string(it.buckets), fmt_number(it.raw_bytes), fmt_number(it.wire_bytes),
        ratio_of(r) > 0 ? fmt_number(ratio_of(r)) : "",
        r.tta ? model::tta_status_name(r.tta->status) : "",
        r.tta ? opt(r.tta->iterations) : "",
        r.tta ? opt(r.tta->tta_s) : "",
        fmt_number(double(it.world) * it.batch_size),
        r.tta ? fmt_number(r.tta->batch_factor) : ""};
    f.push_back(r.tta ? opt(r.tta->tta_lo_s) : "");
    f.push_back(r.tta ? opt(r.tta->tta_hi_s) : "");
    f.push_back(r.tta ? "\"" + r.tta->basis + "\"" : "");
    f.push_back(t.context.convergence_source);
    std::string line;
    for (size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + f[i];
    out += line + "\n";
  }
  return out;
}

std::string format_json(const ResultTable& t, const std::string& profile_label) {
  const RunContext& c = t.context;
  Json j;
  j["schema"] = kSimulateSchema;
  j["profile"] = {{"file", profile_label}, {"model", c.model_name}, {"parameters", c.parameters}};
  j["setup"] = {{"nodes", c.nodes}, {"gpus_per_node", c.gpus_per_node}, {"gpus", c.nodes * c.gpus_per_node},
                {"batch_size", c.batch_size}, {"inter_bandwidth_gbps", c.inter_bandwidth_gbps},
                {"intra_bandwidth_gbps", c.intra_bandwidth_gbps}, {"iteration_model", c.iteration_model},
                {"mode", c.mode}};
  j["convergence"] = {{"source", c.convergence_source}, {"target", c.tta_target}, {"baseline_iterations", c.baseline_iterations},
                      {"reference_global_batch", c.reference_global_batch},
                      {"critical_batch_size", c.critical_batch_size},
                      {"critical_batch_size_source", c.critical_batch_defaulted ? "default (= reference_global_batch)"
                                                                               : "profile"}};
  if (t.sweep) j["sweep"] = {{"axis", sweep_axis_name(t.sweep->axis)}, {"values", t.sweep->values}};
  else j["sweep"] = nullptr;
  j["schemes"] = t.schemes;
  Json rows = Json::array();
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  for (const auto& r : t.rows) {
    const auto& it = r.iteration;
    Json x;
    if (t.sweep) x["x"] = r.x;
    x["scheme"] = r.scheme;
    x["model"] = model::model_name(it.model);
    x["mode"] = model::mode_name(it.mode);
    x["gpus"] = it.world;
    x["batch_size"] = it.batch_size;
    x["global_batch"] = double(it.world) * it.batch_size;
    x["inter_bandwidth_gbps"] = r.inter_bandwidth_gbps;
    x["iteration_s"] = it.total_s;
    x["speedup_vs_fp32"] = opt(r.vs_fp32);
    x["speedup_vs_fp16"] = opt(r.vs_fp16);
    x["linear_s"] = r.linear_s;
    x["breakdown_s"] = {{"data", it.data_s}, {"forward", it.forward_s}, {"backward", it.backward_s},
                        {"backward_comm", it.backward_comm_s}, {"exposed", it.exposed_s}, {"comm", it.comm_s},
                        {"encode", it.encode_s}, {"decode", it.decode_s}, {"optimizer", it.optimizer_s}};
    x["buckets"] = it.buckets;
    x["raw_bytes"] = it.raw_bytes;
    x["wire_bytes"] = it.wire_bytes;
    if (r.tta) {
      x["tta"] = {{"status", model::tta_status_name(r.tta->status)}, {"iterations", opt(r.tta->iterations)},
                  {"tta_s", opt(r.tta->tta_s)}, {"multiplier", opt(r.tta->multiplier)},
                  {"batch_factor", r.tta->batch_factor}, {"basis", r.tta->basis}};
      if (r.tta->tta_lo_s && r.tta->tta_hi_s) x["tta"]["interval_s"] = {*r.tta->tta_lo_s, *r.tta->tta_hi_s};
      if (!r.tta->evidence.empty()) x["tta"]["evidence"] = r.tta->evidence;
    } else {
      x["tta"] = nullptr;
      x["tta_note"] = r.tta_note;
    }
    if (!it.note.empty()) x["note"] = it.note;
    rows.push_back(std::move(x));
  }
  j["rows"] = std::move(rows);
  j["notes"] = t.notes;
  j["assumptions"] = t.assumptions;
  return j.dump(2) + "\n";
}

}  // namespace gcu::simulate
