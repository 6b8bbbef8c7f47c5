// What `gcu simulate` simulates (subject.h).
#include "simulate/subject.h"

#include "simulate/error.h"

#include <utility>

namespace gcu::simulate {
namespace {

Subject from_described(DescribedProfile d, bool described, bool moved) {
  Subject s;
  s.lp = std::move(d.loaded);
  s.described = described;
  s.moved = moved;
  s.assumptions = std::move(d.assumptions);
  s.notes = std::move(d.notes);
  return s;
}

}  // namespace

Subject load_subject(const SubjectRequest& r) {
  const DescribeFlags& f = r.describe;
  for (const char* e : {"event", "closed", "closed-form"})
    if (f.model == e)
      throw SimulateError("--model names the network now (e.g. --model gpt2, --model resnet:depth=50); the iteration "
                          "engine is --engine " + f.model);
  if (!r.system.empty()) {
    if (r.profile.empty())
      throw SimulateError("--system SYSTEM combines with a model: -p MODEL (a model part or a profile)");
    if (!f.gpu.empty())
      throw SimulateError("--system and --gpu both describe the system: give one (--system FILE, or --gpu with --nic ...)");
    if (f.step_time_s) throw SimulateError("--step-time applies to a described --model; a model part has its compute");
    return from_described(combine_from_flags(r.profile, r.system, r.overrides, f), false, false);
  }
  if (r.profile.empty() && f.model.empty())
    throw SimulateError("give -p PROFILE (a calibrated or shipped profile), -p PROFILE --gpu NAME (that profile moved "
                        "to another system), -p MODEL --system SYSTEM (two parts) or --model SPEC --gpu NAME (a "
                        "described model on a described system; `gcu simulate --help` has examples)");
  const bool moving = !r.profile.empty() && !f.gpu.empty();
  if (!r.profile.empty() && !moving) {
    const std::pair<const char*, bool> system_only[] = {
        {"--model", !f.model.empty()},           {"--nic", !f.nic.empty()},
        {"--intra-link", !f.intra_link.empty()}, {"--nics-per-node", f.nics_per_node != 1},
        {"--write-profile", r.write_profile},     {"--from-gpu", !f.from_gpu.empty()}};
    for (const auto& [flag, given] : system_only)
      if (given)
        throw SimulateError(std::string(flag) + " describes a system: with -p it needs --gpu NAME (the profile moved "
                            "to that system); without --gpu the profile's own system is used");
  }
  if (f.step_time_s && !r.profile.empty())
    throw SimulateError("--step-time applies to a described --model; a profile has its measured compute");
  if (r.profile.empty() && !r.overrides.empty())
    throw SimulateError("--set applies to a profile file (-p); --model describes its own");
  if (!r.profile.empty() && !moving) {
    Subject s;
    s.lp = load_profile_file(r.profile, r.overrides);
    return s;
  }
  if (moving) return from_described(move_from_flags(load_for_described_system(r.profile, r.overrides), f), true, true);
  return from_described(describe_from_flags(f), true, false);
}

}  // namespace gcu::simulate
