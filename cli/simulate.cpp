// `gcu simulate`: what-if analysis on a profile (docs/model.md). Predicts iteration time,
// speed-up against FP32 and FP16 DDP and time-to-accuracy of compression schemes, over an
// optional sweep axis; writes a table, CSV, JSON, a gnuplot plot and a Chrome trace.
// Sub-subcommands: crossover, ratio, trade, recommend. All logic is in simulate/.
#include "command.h"

#include "compressors/compressor.h"
#include "model/iteration.h"
#include "model/profile_json.h"
#include "model/units.h"
#include "simulate/whatif.h"
#include "simulate/analyses.h"
#include "simulate/error.h"
#include "util/output_file.h"
#include "simulate/format.h"
#include "simulate/plot.h"
#include "simulate/profile_file.h"
#include "simulate/run.h"
#include "simulate/sweep_spec.h"
#include "simulate/trace.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace gcu::cli {
namespace {
namespace sim = gcu::simulate;

struct SimulateOptions {
  std::string profile;
  std::vector<std::string> overrides;
  std::vector<std::string> schemes;
  std::string sweep;
  int gpus = 0, batch = 0;
  double bandwidth_gbps = 0, intra_bandwidth_gbps = 0, compute_speedup = 1;
  std::string model = "event", mode = "auto", format = "table";
  std::string csv, json, plot, trace, output;
  bool no_tta = false, mkdir = false;
  // analyses
  std::string baseline = "fp16", range = "0.1:400", metric = "auto", ks = "1,2,4,8,16", candidates;
  double within = 0.1, l = 1;
  size_t top = 10;
};

const char* kDefaultSchemes = "none,fp16,powersgd:rank=4,topk:k=0.01";

sim::RunRequest request(const SimulateOptions& o, const model::Profile& p) {
  sim::RunRequest r;
  r.schemes = sim::split_schemes(o.schemes.empty() ? std::vector<std::string>{kDefaultSchemes} : o.schemes);
  if (!o.sweep.empty()) r.sweep = sim::parse_sweep(o.sweep);
  r.gpus = o.gpus;
  r.base.model = model::parse_model(o.model);
  r.base.mode = model::parse_mode(o.mode);
  r.base.batch_size = o.batch;
  if (o.gpus > 0) std::tie(r.base.nodes, r.base.gpus_per_node) = sim::nodes_for_gpus(p, o.gpus);
  r.cond.inter_bandwidth_gbps = o.bandwidth_gbps;
  r.cond.intra_bandwidth_gbps = o.intra_bandwidth_gbps;
  r.cond.compute_speedup = o.compute_speedup;
  r.with_tta = !o.no_tta;
  return r;
}

util::OutputOptions out_opts(const SimulateOptions& o) {
  util::OutputOptions u;
  u.create_parents = o.mkdir;
  u.mkdir_hint = "or pass --mkdir";
  return u;
}

// Every output is checked before the work starts (util/output_file.h): a symlink, a
// device or a missing directory fails at once, not after a long sweep.
void check_outputs(const SimulateOptions& o) {
  for (const std::string* p : {&o.output, &o.csv, &o.json, &o.plot, &o.trace})
    if (!p->empty()) util::check_output_target(*p, out_opts(o));
}

void wrote(const std::string& what, const std::string& path) {
  std::fprintf(stderr, "gcu simulate: wrote %s %s\n", what.c_str(), path.c_str());
}

// What --format selects goes to stdout, or to -o FILE (temporary file + rename).
void emit(const SimulateOptions& o, const std::string& text) {
  if (o.output.empty() || o.output == "-") {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    return;
  }
  util::write_file_atomic(o.output, text, out_opts(o));
  wrote(o.format == "table" ? "report" : o.format == "csv" ? "CSV" : "JSON", o.output);
}

void run_main(const SimulateOptions& o, const sim::LoadedProfile& lp) {
  const sim::RunRequest req = request(o, lp.profile);
  const sim::ResultTable t = sim::run_simulation(lp.profile, req);
  if (o.format == "table") emit(o, sim::format_table(t, lp.path));
  else if (o.format == "csv") emit(o, sim::format_csv(t));
  else emit(o, sim::format_json(t, lp.path));
  if (!o.csv.empty()) util::write_file_atomic(o.csv, sim::format_csv(t), out_opts(o)), wrote("CSV", o.csv);
  if (!o.json.empty()) util::write_file_atomic(o.json, sim::format_json(t, lp.path), out_opts(o)), wrote("JSON", o.json);
  if (!o.plot.empty()) {
    const std::string title = sim::describe_setup(t);
    const auto f = sim::write_plot(t, o.plot, title, true, out_opts(o));
    wrote("plot", f.image + " (gnuplot script " + f.script + ", data " + f.data + ")");
  }
  if (!o.trace.empty()) {
    const auto its = sim::predict_timelines(lp.profile, req);
    util::write_file_atomic(o.trace, sim::chrome_trace_json(its, lp.profile.model.name + " (" + lp.path + ")"),
                            out_opts(o));
    wrote("Chrome trace", o.trace + " (open in ui.perfetto.dev or chrome://tracing)");
  }
}

sim::AnalysisBase analysis_base(const SimulateOptions& o, const model::Profile& p, const std::string& label) {
  const sim::RunRequest r = request(o, p);
  return {r.base, r.cond, label};
}

// auto: time to accuracy when the profile's convergence figures are measured (pilot or
// calibrated), otherwise iteration time: an assumed TTA must not decide the answer.
model::Metric metric_of(const std::string& m, const model::Profile& p) {
  if (m == "auto") return model::convergence_is_measured(p.convergence) ? model::Metric::Tta : model::Metric::Iteration;
  if (m == "tta") return model::Metric::Tta;
  if (m == "iteration" || m == "iter") return model::Metric::Iteration;
  throw UsageError("--metric " + m + ": expected auto, tta or iteration");
}

void dispatch(const SimulateOptions& o, CLI::App* crossover, CLI::App* ratio, CLI::App* trade, CLI::App* recommend) {
  for (CLI::App* a : {crossover, ratio, trade, recommend}) {
    if (!a->parsed()) continue;
    const std::pair<const char*, const std::string*> sweep_only[] = {
        {"--sweep", &o.sweep}, {"--csv", &o.csv}, {"--json", &o.json}, {"--plot", &o.plot}, {"--trace", &o.trace}};
    for (const auto& [name, value] : sweep_only)
      if (!value->empty())
        throw UsageError(std::string(name) + " " + *value + " applies to the sweep table, not to `gcu simulate " +
                         a->get_name() + "` (use --format csv|json and -o FILE for its output)");
  }
  try {
    check_outputs(o);
    const sim::LoadedProfile lp = sim::load_profile_file(o.profile, o.overrides);
    const auto& p = lp.profile;
    const sim::OutputFormat fmt = sim::parse_output_format(o.format);
    std::string out;
    auto schemes_or = [&](const char* fallback) {
      return sim::split_schemes(o.schemes.empty() ? std::vector<std::string>{fallback} : o.schemes);
    };
    if (crossover->parsed()) {
      const auto colon = o.range.find(':');
      if (colon == std::string::npos) throw UsageError("--range " + o.range + ": expected LO:HI in Gbps, e.g. 0.1:400");
      const auto lo = sim::parse_number_list(o.range.substr(0, colon), "--range");
      const auto hi = sim::parse_number_list(o.range.substr(colon + 1), "--range");
      if (lo.size() != 1 || hi.size() != 1)
        throw UsageError("--range " + o.range + ": expected LO:HI in Gbps, e.g. 0.1:400");
      out = sim::format_analysis(
          sim::run_crossover(p, analysis_base(o, p, lp.path), schemes_or("powersgd:rank=4,topk:k=0.01"), o.baseline,
                             lo[0], hi[0], metric_of(o.metric, p)),
          fmt);
    } else if (ratio->parsed()) {
      out = sim::format_analysis(
          sim::run_ratio(p, analysis_base(o, p, lp.path), schemes_or("none,fp16,powersgd:rank=4"), o.within), fmt);
    } else if (trade->parsed()) {
      const auto s = schemes_or("powersgd:rank=4");
      if (s.size() != 1) throw UsageError("trade takes one scheme (--schemes), got " + std::to_string(s.size()));
      out = sim::format_analysis(
          sim::run_trade(p, analysis_base(o, p, lp.path), s[0], sim::parse_number_list(o.ks, "--k"), o.l), fmt);
    } else if (recommend->parsed()) {
      std::vector<std::string> cands;
      if (!o.candidates.empty())
        for (const auto& pat : sim::split_schemes({o.candidates}))
          for (const auto& c : model::expand_candidates(pat)) {
            cands.push_back(c);
            if (cands.size() > model::kMaxCandidates)
              throw UsageError("--candidates: more than " + std::to_string(model::kMaxCandidates) + " specs (the limit)");
          }
      out = sim::format_analysis(
          sim::run_recommend(p, analysis_base(o, p, lp.path), cands, metric_of(o.metric, p), o.top), fmt);
    } else {
      run_main(o, lp);
      return;
    }
    emit(o, out);
  } catch (const model::ModelError& e) {  // ProfileError included
    throw UsageError(e.what());
  } catch (const sim::SimulateError& e) {
    throw UsageError(e.what());
  } catch (const util::FileError& e) {
    throw UsageError(e.what());
  } catch (const compress::CompressorError& e) {
    throw UsageError(e.what());
  }
}

void add_common(CLI::App* s, SimulateOptions& o) {
  s->add_option("-p,--profile", o.profile, "Profile JSON (schema gcu.profile/2, docs/profile-schema.md)")
      ->required();
  s->add_option("--set", o.overrides,
                "Override a profile field before validation: PATH=VALUE, PATH a JSON pointer "
                "(/cluster/gamma_stretch) or dotted (cluster.levels.inter.alpha_s); repeatable");
  s->add_option("-s,--schemes", o.schemes,
                std::string("Scheme specs, comma-separated (default ") + kDefaultSchemes + "; see `gcu schemes`)");
  s->add_option("--gpus", o.gpus,
                "Total GPUs: whole nodes of cluster.gpus_per_node, or fewer than one node (default: the profile's)")
      ->check(positive_count(1'000'000));
  s->add_option("--batch", o.batch, "Per-GPU batch size (default: the profile's first compute entry)")
      ->check(positive_count(1'000'000));
  s->add_option("--bandwidth", o.bandwidth_gbps, "Inter-node bandwidth in Gbps (default: the profile's)")
      ->check(kPositiveFinite);
  s->add_option("--intra-bandwidth", o.intra_bandwidth_gbps, "Intra-node bandwidth in Gbps (default: the profile's)")
      ->check(kPositiveFinite);
  s->add_option("--compute-speedup", o.compute_speedup,
                "GPUs this many times faster (compute and encode/decode; network unchanged)")
      ->check(kPositiveFinite)
      ->capture_default_str();
  s->add_option("--format", o.format,
                "What to print: table, csv or json (the sweep: schema gcu.simulate/1; analyses: "
                "gcu.simulate.<analysis>/1)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  s->add_option("-o,--output", o.output,
                "Write what --format selects to this file (temporary file + rename) instead of stdout");
  s->add_flag("--mkdir", o.mkdir, "Create missing directories of the output files (default: an error)");
  s->add_option("--model", o.model, "Iteration model: event (per-layer ready times) or closed (published closed form)")
      ->capture_default_str();
  s->add_option("--mode", o.mode,
                "Compression: auto (as gcu train runs it: every scheme per bucket as backward fills it, like DDP "
                "comm hooks), after (the whole gradient after backward, GRACE-style), or overlap")
      ->capture_default_str();
}

// Every analysis also takes `gcu simulate`'s own options (CLI11 lets them fall through);
// its --help says which, since CLI11 lists only the analysis' own.
constexpr const char* kInherited =
    "\nAlso takes the options of `gcu simulate`, before or after the analysis name: -p/--profile (required),\n"
    "--schemes, --gpus, --batch, --bandwidth, --intra-bandwidth, --compute-speedup, --set, --model, --mode,\n"
    "--format, -o/--output, --mkdir (`gcu simulate --help` explains each).";

void setup_simulate(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  auto* s = app.add_subcommand("simulate",
                               "What-if analysis: predicted iteration time, speed-up vs FP32/FP16 DDP and "
                               "time-to-accuracy of compression schemes on a profile");
  s->fallthrough();
  add_common(s, *o);
  s->add_option("--sweep", o->sweep,
                "AXIS=VALUES; AXIS: bandwidth_gbps, gpus (total: whole nodes, or one partly used node), nodes, "
                "batch_size (per GPU), compute_speedup; VALUES: a list 8,16,32 or a range A:B:N (N points from A "
                "to B inclusive) or A:B:N:log. TTA follows the global batch (docs/model.md §4.1)");
  s->add_option("--csv", o->csv, "Also write the results as CSV to this file");
  s->add_option("--json", o->json, "Also write the results as JSON (schema gcu.simulate/1) to this file");
  s->add_option("--plot", o->plot, "Plot (gnuplot) to this .png or .svg; the .gp script and .dat go next to it")
      ->check(CLI::Validator(
          [](std::string& f) {
            const auto ends = [&](const char* e) {
              const std::string x(e);
              return f.size() > x.size() && f.compare(f.size() - x.size(), x.size(), x) == 0;
            };
            return ends(".png") || ends(".svg") ? std::string() : "expected a file name ending in .png or .svg";
          },
          "FILE.png|FILE.svg"));
  s->add_option("--trace", o->trace,
                "Chrome-trace JSON of one predicted iteration per scheme (at the base point, not swept)");
  s->add_flag("--no-tta", o->no_tta, "Leave out time-to-accuracy");
  s->footer(
      "Examples:\n"
      "  # the four baselines/schemes of the published study, 64 V100s at 10 Gbps\n"
      "  gcu simulate -p data/profiles/v100-resnet50.json\n"
      "  # bandwidth sweep 1..40 Gbps (40 points), with CSV, JSON, plot and a trace\n"
      "  gcu simulate -p data/profiles/v100-resnet50.json --schemes none,fp16,powersgd:rank=4,topk:k=0.01 \\\n"
      "      --sweep bandwidth_gbps=1:40:40 --csv out/sweep.csv --json out/sweep.json --plot out/sweep.png \\\n"
      "      --trace out/trace.json\n"
      "  # BERT-base at 25 Gbps while scaling out\n"
      "  gcu simulate -p data/profiles/v100-bert-base.json --bandwidth 25 --sweep gpus=8,16,32,64,96\n"
      "  # GPUs 3x faster, network unchanged; gamma overridden\n"
      "  gcu simulate -p data/profiles/v100-resnet101.json --compute-speedup 3 --set cluster.gamma_stretch=1.1\n"
      "  # the published closed form instead of the event model\n"
      "  gcu simulate -p data/profiles/v100-resnet50.json --model closed --format csv\n"
      "  # where does PowerSGD start to beat FP16 DDP? which ratio gives 90% scaling? what is best?\n"
      "  gcu simulate crossover -p data/profiles/v100-bert-base.json --schemes powersgd:rank=4 --gpus 64\n"
      "  gcu simulate ratio -p data/profiles/v100-resnet50.json --within 0.1\n"
      "  gcu simulate recommend -p data/profiles/v100-bert-base.json --bandwidth 25\n"
      "  # any analysis as JSON or CSV, to a file\n"
      "  gcu simulate crossover -p data/profiles/v100-resnet50.json --format json -o out/crossover.json\n"
      "Speed-ups compare with DDP at the same point: vs FP32 (no compression) and vs FP16.");

  auto* cross = s->add_subcommand("crossover", "Inter-node bandwidth where a scheme starts to beat a baseline");
  cross->add_option("--baseline", o->baseline, "Scheme to beat")->capture_default_str();
  cross->add_option("--range", o->range, "Bandwidths searched, LO:HI in Gbps")->capture_default_str();
  cross->add_option("--metric", o->metric,
                    "Compare tta or iteration time; auto: tta when the profile's convergence is measured (pilot "
                    "or calibrated), else iteration")
      ->capture_default_str();
  cross->footer("Example:\n  gcu simulate crossover -p data/profiles/v100-bert-base.json "
                "--schemes powersgd:rank=4,topk:k=0.01 --baseline fp16" + std::string(kInherited));

  auto* ratio = s->add_subcommand("ratio", "Compression ratio needed to come within X of linear scaling");
  ratio->add_option("--within", o->within, "Allowed slowdown over linear scaling, as a fraction (0.1 = 10%)")
      ->check(kPositiveFinite)
      ->capture_default_str();
  ratio->footer("Example:\n  gcu simulate ratio -p data/profiles/v100-resnet50.json --schemes fp16 --within 0.1 --gpus 96" + std::string(kInherited));

  auto* trade = s->add_subcommand("trade", "Encode/decode k times faster for l*k times more bytes");
  trade->add_option("--k", o->ks, "Codec speed-ups, comma-separated")->capture_default_str();
  trade->add_option("--l", o->l, "Bytes cost factor per unit of speed-up")->check(kPositiveFinite)->capture_default_str();
  trade->footer("Example:\n  gcu simulate trade -p data/profiles/v100-resnet50.json --schemes topk:k=0.01 --k 1,2,4,8 --l 1" + std::string(kInherited));

  auto* rec = s->add_subcommand("recommend",
                                "Rank schemes and parameters by predicted time to accuracy (measured convergence) or "
                                "iteration time");
  rec->add_option("--candidates", o->candidates,
                  "Specs to rank; {a|b} expands: powersgd:rank={1|2|4|8},topk:k={0.1|0.01} (default: all "
                  "registered schemes with usual parameters)");
  rec->add_option("--metric", o->metric,
                  "Rank by tta or iteration time; auto: tta when the profile's convergence is measured (pilot or "
                  "calibrated), else iteration")
      ->capture_default_str();
  rec->add_option("--top", o->top, "Rows to print (0 = all)")->capture_default_str();
  rec->footer("Example:\n  gcu simulate recommend -p data/profiles/v100-bert-base.json --gpus 96 --bandwidth 25" + std::string(kInherited));

  s->callback([o, cross, ratio, trade, rec] { dispatch(*o, cross, ratio, trade, rec); });
}

const Registrar reg_simulate{"simulate", 10, &setup_simulate};

}  // namespace
}  // namespace gcu::cli
