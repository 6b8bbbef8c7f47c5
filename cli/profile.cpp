// `gcu profile from-trace`: the model part of a profile from a PyTorch profiler trace of
// the user's own DDP job (import/: trace_events.h reads it streamed, trace_job.h finds
// the iterations, phases and buckets, trace_profile.h writes the part and a report).
#include "command.h"
#include "import/trace_events.h"
#include "import/trace_job.h"
#include "import/trace_profile.h"
#include "model/network/network.h"
#include "model/profile_json.h"
#include "util/output_file.h"
#include "util/text.h"
#ifndef GCU_FRONT
#include "scripted_network.h"
#endif

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace gcu::cli {
namespace {

struct FromTraceOptions {
  std::string trace;
  std::string output;
  std::string network;
  std::string report;
  std::string name;
  int batch = 0;
  bool json = false;
};

std::string fixed2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}
std::string ms_text(double s) { return fixed2(s * 1e3); }

void print_summary(const import::TracedJob& job, const import::Imported& im, const FromTraceOptions& o) {
  const import::TracedIteration& m = job.median;
  std::printf("trace %s: %s, %s%s%s; %d iteration%s traced, %zu used (medians below)\n", o.trace.c_str(),
              job.format.c_str(), job.device.c_str(), job.gpu.empty() ? "" : (" " + job.gpu).c_str(),
              job.world_size > 0 ? (", " + std::to_string(job.world_size) + " ranks").c_str() : "",
              job.iterations_traced, job.iterations_traced == 1 ? "" : "s", job.used.size());
  for (const auto& n : job.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("iteration %s ms = data %s + forward %s + backward %s + tail %s + optimizer %s (+ gaps)\n",
              ms_text(m.iteration_s).c_str(), ms_text(m.data_s).c_str(), ms_text(m.forward_s).c_str(),
              ms_text(m.backward_s).c_str(), ms_text(m.tail_s).c_str(), ms_text(m.optimizer_s).c_str());
  std::printf("%-7s %8s %12s %10s\n", "bucket", "tensors", "MiB", "ready ms");
  const auto& buckets = im.report["buckets"];
  for (size_t k = 0; k < buckets.size(); ++k) {
    const auto& b = buckets[k];
    const std::string size = b.contains("bytes") ? fixed2(b["bytes"].get<double>() / 1048576.0) : "?";
    std::printf("%-7zu %8d %12s %10s\n", k, b["tensors"].get<int>(), size.c_str(),
                ms_text(b["ready_s"].get<double>()).c_str());
  }
  std::printf("collectives as measured (%zu):", m.collectives.size());
  for (size_t k = 0; k < m.collectives.size() && k < 12; ++k)
    std::printf(" %s %s ms%s", import::collective_name(m.collectives[k].kind), ms_text(m.collectives[k].seconds).c_str(),
                k + 1 < m.collectives.size() ? ";" : "");
  std::printf("%s\n", m.collectives.size() > 12 ? " ..." : "");
  std::printf("DDP buckets: %s\n", im.caps.note.c_str());
  std::printf("wrote %s (gcu.model-part/1: %zu tensors, %lld parameters)%s\n", o.output.c_str(),
              im.profile.model.tensors.size(), static_cast<long long>(im.profile.model.parameters),
              o.report.empty() ? "" : (" and " + o.report).c_str());
  std::printf("next: gcu simulate -p %s --system SYSTEM.json (a system part or profile of your cluster: gcu calibrate "
              "--system-part, or data/parts/systems/)\n",
              o.output.c_str());
}

void run_from_trace(const FromTraceOptions& o, const std::string& command) {
  try {
    std::optional<model::net::Network> network;
    if (!o.network.empty()) {
      if (o.network.rfind("torchscript:", 0) == 0) {
#ifdef GCU_FRONT  // main() hands such a command to gcu-torch first (cli/forward.h)
        throw UsageError("--network " + util::quote(o.network) + " needs gcu-torch (a build with LibTorch)");
#else
        network = scripted_network(o.network);
#endif
      } else {
        network = model::net::make_network(o.network);
      }
    }
    // Check the outputs before reading a large trace.
    util::check_output_target(o.output);
    if (!o.report.empty()) util::check_output_target(o.report);
    const import::TraceEvents events = import::read_trace_file(o.trace);
    const import::TracedJob job = import::analyze_trace(events);
    import::ImportOptions io;
    io.trace_label = std::filesystem::path(o.trace).filename().string();
    io.batch_size = o.batch;
    io.name = o.name;
    io.command = command;
    const import::Imported im = import::import_job(job, network, io);
    // The part must read back as a model part (a profile's validation, minus a cluster).
    const std::string part = im.model_part.dump(2) + "\n";
    const std::string report = im.report.dump(2) + "\n";
    util::write_file_atomic(o.output, part);
    if (!o.report.empty()) util::write_file_atomic(o.report, report);
    if (o.json)
      std::printf("%s", report.c_str());
    else
      print_summary(job, im, o);
  } catch (const import::TraceError& e) {
    throw UsageError(o.trace.substr(0, 200) + ": " + e.what());
  } catch (const model::ModelError& e) {
    throw UsageError(e.what());
  } catch (const util::FileError& e) {
    throw UsageError(e.what());
  }
}

void setup_profile(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("profile", "Profiles from what you already have: a PyTorch profiler trace of your job");
  sub->require_subcommand(1);
  auto o = std::make_shared<FromTraceOptions>();
  CLI::App* ft = sub->add_subcommand(
      "from-trace",
      "The model part of a profile from a PyTorch profiler trace of your DDP job (Chrome trace JSON from\n"
      "torch.profiler's export_chrome_trace; CPU or CUDA; PyTorch 1.13 or 2.x): forward, backward and optimizer\n"
      "time (the median over the traced iterations), each gradient's ready time, DDP's buckets, and the\n"
      "collectives as measured. Combine it with your cluster's system part in `gcu simulate -p PART --system SYS`.\n\n"
      "Record the trace with a few steps of torch.profiler (schedule(wait=1, warmup=1, active=3), p.step() per\n"
      "iteration) on one rank. A trace from PyTorch without Kineto gives no tensor sizes: name them with\n"
      "--network (tensors:FILE.csv lists the parameters in backward order, name,shape per line).\n\n"
      "Examples:\n"
      "  gcu profile from-trace rank0.json --network tensors:model.csv --batch 32 -o my-model.json\n"
      "  gcu profile from-trace rank0.json --network resnet50 --batch 64 -o r50.json --report r50-trace.json\n"
      "  gcu simulate -p my-model.json --system data/parts/systems/p3.8xlarge-v100.json --sweep bandwidth_gbps=1:40:8");
  ft->add_option("trace", o->trace, "The trace (Chrome trace JSON)")->required();
  ft->add_option("-o,--output", o->output, "Model part to write (gcu.model-part/1)")->required();
  ft->add_option("--network", o->network,
                 "The model's tensors: a family (transformer:..., resnet:depth=50), a preset (gcu simulate --model "
                 "list), tensors:FILE.csv|json, or your TorchScript file torchscript:FILE.pt (its parameters, "
                 "read with LibTorch; the file is not run); required when the trace has no sizes");
  ft->add_option("--batch", o->batch, "Per-rank batch size the traced job ran with")
      ->required()
      ->check(positive_count(1 << 24));
  ft->add_option("--name", o->name, "The model's name in the part (default: the network's description)");
  ft->add_option("--report", o->report, "Also write what the trace measured (gcu.trace-import/1 JSON)");
  ft->add_flag("--json", o->json, "Print the report as JSON instead of the summary");
  ft->callback([o, ft] {
    std::string command = "gcu profile from-trace " + std::filesystem::path(o->trace).filename().string();
    if (!o->network.empty()) command += " --network " + o->network;
    command += " --batch " + std::to_string(o->batch);
    run_from_trace(*o, command);
  });
}

const Registrar reg_profile{"profile", 35, &setup_profile};

}  // namespace
}  // namespace gcu::cli
