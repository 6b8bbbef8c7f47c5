// `gcu simulate`: what-if analysis on a profile (docs/model.md). Predicts iteration time,
// speed-up against FP32 and FP16 DDP and time-to-accuracy of compression schemes, over an
// optional sweep axis; writes a table, CSV, JSON, a gnuplot plot and a Chrome trace.
// Sub-subcommands: crossover, ratio, trade, recommend. All logic is in simulate/.
#include "command.h"

#include "compressors/compressor.h"
#include "model/iteration.h"
#include "model/profile_json.h"
#include "model/quantity.h"
#include "model/units.h"
#include "simulate/whatif.h"
#include "simulate/analyses.h"
#include "simulate/subject.h"
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
  std::string bandwidth, intra_bandwidth;  // rates with units (model/quantity.h)
  double compute_speedup = 1;
  std::string engine = "event", mode = "auto", format = "table";
  // A described model on a described system (simulate/described.h).
  std::string network, gpu, nic, intra_link, step_time, precision = "bf16", optimizer = "adamw", catalog;
  std::string from_gpu, from_precision = "fp32", system;
  bool precision_given = false;
  std::string write_profile;
  int nodes = 0, gpus_per_node = 0, nics_per_node = 1;
  double mfu = 0.4;
  std::string csv, json, plot, trace, output;
  bool no_tta = false, mkdir = false;
  // analyses
  std::string baseline = "fp16", range = "0.1:400", metric = "auto", ks = "1,2,4,8,16", candidates;
  double within = 0.1, l = 1;
  size_t top = 10;
};

const char* kDefaultSchemes = "none,fp16,powersgd:rank=4,topk:k=0.01";

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

using sim::Subject;

double rate_gbps(const std::string& text) { return text.empty() ? 0.0 : model::parse_bandwidth_gbps(text); }

// The flags to what they describe (simulate/subject.h checks their combinations).
Subject load_subject(const SimulateOptions& o) {
  sim::SubjectRequest r;
  r.profile = o.profile;
  r.system = o.system;
  r.overrides = o.overrides;
  r.write_profile = !o.write_profile.empty();
  sim::DescribeFlags& f = r.describe;
  f.model = o.network;
  f.gpu = o.gpu;
  f.nodes = o.nodes;
  f.gpus_per_node = o.gpus_per_node;
  f.gpus = o.gpus;
  f.nic = o.nic;
  f.nics_per_node = o.nics_per_node;
  f.intra_link = o.intra_link;
  if (!o.bandwidth.empty()) f.bandwidth_gbps = rate_gbps(o.bandwidth);
  if (!o.intra_bandwidth.empty()) f.intra_bandwidth_gbps = rate_gbps(o.intra_bandwidth);
  f.batch = o.batch;
  f.precision = o.precision;
  f.precision_given = o.precision_given;
  f.mfu = o.mfu;
  if (!o.step_time.empty()) f.step_time_s = model::parse_duration_s(o.step_time);
  f.optimizer = o.optimizer;
  f.catalog_dir = o.catalog;
  f.from_gpu = o.from_gpu;
  f.from_precision = o.from_precision;
  Subject s = sim::load_subject(r);
  if (!o.write_profile.empty()) {
    util::write_file_atomic(o.write_profile, model::profile_to_json(s.lp.profile).dump(1) + "\n", out_opts(o));
    wrote("profile", o.write_profile);
  }
  return s;
}

sim::RunRequest request(const SimulateOptions& o, const Subject& s) {
  const model::Profile& p = s.lp.profile;
  sim::RunRequest r;
  r.schemes = sim::split_schemes(o.schemes.empty() ? std::vector<std::string>{kDefaultSchemes} : o.schemes);
  if (!o.sweep.empty()) r.sweep = sim::parse_sweep(o.sweep);
  r.base.model = model::parse_model(o.engine);
  r.base.mode = model::parse_mode(o.mode);
  r.base.batch_size = s.described && !s.moved ? 0 : o.batch;  // a described model's compute is at its batch
  if (s.described) {
    r.gpus = 0;  // the described system has its shape
  } else if (o.nodes > 0 || o.gpus_per_node > 0) {
    r.base.nodes = o.nodes > 0 ? o.nodes : p.cluster.nodes;
    r.base.gpus_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : p.cluster.gpus_per_node;
    if (o.gpus > 0 && o.gpus != r.base.nodes * r.base.gpus_per_node)
      throw UsageError("--gpus " + std::to_string(o.gpus) + " disagrees with --nodes x --gpus-per-node (" +
                       std::to_string(r.base.nodes) + " x " + std::to_string(r.base.gpus_per_node) + ")");
  } else {
    r.gpus = o.gpus;
    if (o.gpus > 0) std::tie(r.base.nodes, r.base.gpus_per_node) = sim::nodes_for_gpus(p, o.gpus);
  }
  // A described system already has the rates asked for.
  if (!s.described) {
    r.cond.inter_bandwidth_gbps = rate_gbps(o.bandwidth);
    r.cond.intra_bandwidth_gbps = rate_gbps(o.intra_bandwidth);
  }
  r.cond.compute_speedup = o.compute_speedup;
  r.with_tta = !o.no_tta;
  return r;
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

void run_main(const SimulateOptions& o, const Subject& s) {
  const sim::LoadedProfile& lp = s.lp;
  const sim::RunRequest req = request(o, s);
  sim::ResultTable t = sim::run_simulation(lp.profile, req);
  t.notes.insert(t.notes.begin(), s.notes.begin(), s.notes.end());
  t.assumptions.insert(t.assumptions.begin(), s.assumptions.begin(), s.assumptions.end());
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

sim::AnalysisBase analysis_base(const SimulateOptions& o, const Subject& s) {
  const sim::RunRequest r = request(o, s);
  return {r.base, r.cond, s.lp.path};
}

// A described model's lines (its compute's basis, the catalog's figures, its warnings) go
// with every analysis' assumptions.
template <class Result>
Result with_subject(Result r, const Subject& s) {
  std::vector<std::string> lines = s.notes;
  lines.insert(lines.end(), s.assumptions.begin(), s.assumptions.end());
  r.context.assumptions.insert(r.context.assumptions.begin(), lines.begin(), lines.end());
  return r;
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
    const Subject subject = load_subject(o);
    const sim::LoadedProfile& lp = subject.lp;
    const auto& p = lp.profile;
    const auto base = [&] { return analysis_base(o, subject); };
    const sim::OutputFormat fmt = sim::parse_output_format(o.format);
    std::string out;
    auto schemes_or = [&](const char* fallback) {
      return sim::split_schemes(o.schemes.empty() ? std::vector<std::string>{fallback} : o.schemes);
    };
    if (crossover->parsed()) {
      const auto colon = o.range.find(':');
      if (colon == std::string::npos) throw UsageError("--range " + o.range + ": expected LO:HI in Gbps, e.g. 0.1:400");
      const double lo = model::parse_bandwidth_gbps(o.range.substr(0, colon));
      const double hi = model::parse_bandwidth_gbps(o.range.substr(colon + 1));
      out = sim::format_analysis(
          with_subject(sim::run_crossover(p, base(), schemes_or("powersgd:rank=4,topk:k=0.01"), o.baseline, lo, hi,
                                          metric_of(o.metric, p)),
                       subject),
          fmt);
    } else if (ratio->parsed()) {
      out = sim::format_analysis(
          with_subject(sim::run_ratio(p, base(), schemes_or("none,fp16,powersgd:rank=4"), o.within), subject), fmt);
    } else if (trade->parsed()) {
      const auto s = schemes_or("powersgd:rank=4");
      if (s.size() != 1) throw UsageError("trade takes one scheme (--schemes), got " + std::to_string(s.size()));
      out = sim::format_analysis(
          with_subject(sim::run_trade(p, base(), s[0], sim::parse_number_list(o.ks, "--k"), o.l), subject), fmt);
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
          with_subject(sim::run_recommend(p, base(), cands, metric_of(o.metric, p), o.top), subject), fmt);
    } else {
      run_main(o, subject);
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

// A rate with units (model/quantity.h), checked when parsed.
const CLI::Validator kRate(
    [](std::string& s) {
      try {
        model::parse_bandwidth_gbps(s);
        return std::string();
      } catch (const model::QuantityError& e) {
        return std::string(e.what());
      }
    },
    "RATE");

void add_common(CLI::App* s, SimulateOptions& o) {
  s->add_option("-p,--profile", o.profile,
                "Profile JSON (schema gcu.profile/2, docs/profile-schema.md): calibrated or shipped. Or describe the "
                "model and system instead: --model SPEC --gpu NAME ...");
  s->add_option("--model", o.network,
                "The network, described: a family (transformer:layers=24,hidden=2048,heads=16,seq=2048,... | "
                "resnet:depth=50 | vgg:depth=16), a preset (gpt2, gpt2-medium, gpt2-xl, bert-base, bert-large, "
                "llama-7b, llama-13b, llama-70b, resnet50, resnet101; keys override: gpt2:seq=512) or "
                "tensors:FILE.csv|json (name,shape in backward order). Needs --gpu");
  s->add_option("--gpu", o.gpu, "GPU type from the catalog (`gcu hardware gpus`): h100-sxm, a100-80gb, ...");
  s->add_option("--nodes", o.nodes, "Nodes (with --gpus-per-node; default: the profile's, or 1)")
      ->check(positive_count(1'000'000));
  s->add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node (default: the profile's, or 8 for --model)")
      ->check(positive_count(1'000'000));
  s->add_option("--nic", o.nic, "Inter-node NIC from the catalog (`gcu hardware nics`): ib-ndr, eth-100g, ...");
  s->add_option("--nics-per-node", o.nics_per_node, "NICs per node: the node's bandwidth is NIC x this (default 1)")
      ->check(positive_count(1024));
  s->add_option("--intra-link", o.intra_link,
                "Intra-node link from the catalog (`gcu hardware links`): nvlink4, pcie5, ... (default: the GPU's)");
  s->add_option("--step-time", o.step_time,
                "Measured forward+backward+optimizer time of one step of the --model on one GPU (420ms, 0.42s): "
                "split by the layers' roofline shares instead of the roofline's level");
  s->add_option("--mfu", o.mfu,
                "Fraction of the GPU's dense peak FLOP/s that compute-bound layers reach in the roofline estimate "
                "of a --model (memory-bound layers: 80% of memory bandwidth)")
      ->check(kPositiveFinite)
      ->capture_default_str();
  s->add_option("--precision", o.precision,
                "Compute precision on the --gpu: fp32, tf32, bf16, fp16 (a --model's roofline; a moved -p profile "
                "keeps its --from-precision unless given)")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16", "fp16"}))
      ->capture_default_str()
      ->each([&o](const std::string&) { o.precision_given = true; });
  s->add_option("--from-gpu", o.from_gpu,
                "The GPU a -p profile was measured on, when moving it with --gpu (default: the one its "
                "provenance.device names)");
  s->add_option("--from-precision", o.from_precision, "The precision a -p profile computed in, when moving it")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16", "fp16"}))
      ->capture_default_str();
  s->add_option("--optimizer", o.optimizer, "Optimizer of a --model (its step's memory traffic): adamw or sgd")
      ->check(CLI::IsMember({"adamw", "adam", "sgd"}))
      ->capture_default_str();
  s->add_option("--catalog", o.catalog, "Hardware catalog directory (default: data/hardware)");
  s->add_option("--system", o.system,
                "A system part (gcu.system-part/1: cluster and codec costs, e.g. data/parts/systems/"
                "p3.8xlarge-v100.json) to combine with -p's model part or profile; the compute moves to its GPU "
                "when the two name different catalog GPUs");
  s->add_option("--write-profile", o.write_profile,
                "Also write the profile of the described --model and system (gcu.profile/2) to this file");
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
  s->add_option("--bandwidth", o.bandwidth,
                "Inter-node bandwidth per node: 25 (Gbit/s), 25Gbps, 400Mbps, 3.2Tbit/s or 50GB/s (B = bytes) "
                "(default: the profile's, or the --nic's)")
      ->check(kRate);
  s->add_option("--intra-bandwidth", o.intra_bandwidth,
                "Intra-node bandwidth per GPU, same units: 300GB/s, 2400Gbps (default: the profile's, or the "
                "--intra-link's)")
      ->check(kRate);
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
  s->add_option("--engine", o.engine,
                "Iteration engine: event (per-layer ready times) or closed (the published closed form)")
      ->check(CLI::IsMember({"event", "closed", "closed-form"}))
      ->capture_default_str();
  s->add_option("--mode", o.mode,
                "Compression: auto (as gcu train runs it: every scheme per bucket as backward fills it, like DDP "
                "comm hooks), after (the whole gradient after backward, GRACE-style), or overlap")
      ->capture_default_str();
}

// Every analysis also takes `gcu simulate`'s own options (CLI11 lets them fall through);
// its --help says which, since CLI11 lists only the analysis' own.
constexpr const char* kInherited =
    "\nAlso takes the options of `gcu simulate`, before or after the analysis name: -p/--profile or --model,\n"
    "--schemes, --gpus, --batch, --bandwidth, --intra-bandwidth, --compute-speedup, --set, --engine, --mode,\n"
    "--model, --gpu, --nodes, --gpus-per-node, --nic, --intra-link, --step-time, --mfu, --precision,\n"
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
      "  gcu simulate -p data/profiles/v100-resnet50.json --engine closed --format csv\n"
      "  # your model on your cluster, described: a 1.3B GPT on 64 H100s, 8 per node, 400 Gbit/s\n"
      "  gcu simulate recommend --model transformer:layers=24,hidden=2048,heads=16,seq=2048,vocab=50257 \\\n"
      "      --gpu h100-sxm --gpus 64 --gpus-per-node 8 --nic ib-ndr\n"
      "  # the shipped V100 profile moved to 64 H100s, layer by layer\n"
      "  gcu simulate -p data/profiles/v100-resnet50.json --gpu h100-sxm --gpus 64 --nic eth-100g\n"
      "  # LLaMA-7B, 16 nodes of 8 A100s, the measured step time instead of the roofline\n"
      "  gcu simulate --model llama-7b --gpu a100-80gb --nodes 16 --bandwidth 100Gbps --step-time 2.1s\n"
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
