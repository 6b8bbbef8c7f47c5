// `gcu` and `gcu-torch`: thin entry point. Wires the registered subcommands
// (cli/command.h) and turns exceptions into one clear message and a non-zero exit code.
// Built twice (cli/CMakeLists.txt): `gcu`, torch-free, hands the LibTorch subcommands to
// `gcu-torch` beside it (cli/forward.h).
#include "command.h"
#include "util/text.h"
#ifdef GCU_FRONT
#include "forward.h"
#endif
#include "util/malloc_tuning.h"

#ifdef GCU_CLI_CUDA
#include "compressors/cuda/register_cuda.h"
#endif

#include <algorithm>
#include <cstdio>
#include <exception>

namespace gcu::cli {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

namespace {
// After a parse error: the first word of argv that is not a subcommand where one is
// expected but is a typo of one ("gcu simulate recomend"), as a message; "" when none.
std::string subcommand_typo(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string path = "gcu";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    std::vector<std::string> names;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
      if (sub->get_name() == word) next = sub;
    }
    if (next) {
      level = next;
      path += " " + word;
      continue;
    }
    if (const std::string near = util::did_you_mean(word, names); !near.empty())
      return util::quote(word) + " is not a subcommand of `" + path + "`; did you mean '" + near + "'? (`" + path +
             " --help` lists them)";
  }
  return "";
}
}  // namespace
}  // namespace gcu::cli

int main(int argc, char** argv) {
#ifdef GCU_FRONT
  if (const int rc = gcu::cli::forward_to_torch(argc, argv); rc >= 0) return rc;
#endif
  // Before any allocation that matters: every gcu process (train, calibrate, ...) serves
  // per-iteration tensors from the heap alike, so their timings compare
  // (util/malloc_tuning.h).
  gcu::util::pin_malloc_thresholds();
#ifdef GCU_CLI_CUDA
  gcu::compress::cuda::register_cuda();  // Device::CUDA compressors (gcu_compressors_cuda)
#endif
  CLI::App app{
      "gcu: does gradient compression pay off on my cluster, end to end?\n"
      "Predicts iteration time and time-to-accuracy of compression schemes against FP32 and\n"
      "FP16 data-parallel baselines, calibrates the predictions on real hardware, and runs\n"
      "real compressed training to check them. `gcu <subcommand> --help` for each.",
      "gcu"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gcu 0.1.0");
  auto& cmds = gcu::cli::commands();
  std::stable_sort(cmds.begin(), cmds.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  for (auto& c : cmds) c.setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return app.exit(e);  // a subcommand's own exit code (gcu train)
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0)
      if (const std::string typo = gcu::cli::subcommand_typo(app, argc, argv); !typo.empty()) {
        std::fprintf(stderr, "gcu: error: %s\n", typo.c_str());
        return 2;
      }
    const int rc = app.exit(e);  // prints help, or the option's problem
    return rc == 0 ? 0 : 2;      // a usage error: exit code 2, like every input error
  } catch (const gcu::cli::UsageError& e) {
    std::fprintf(stderr, "gcu: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gcu: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
