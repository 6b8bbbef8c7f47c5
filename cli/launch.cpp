// `gcu launch`: start N ranks of a command on this machine, torchrun style
// (trainer/runtime/launch.cpp does the work).
#include "command.h"
#include "descriptions.h"

#include "trainer/runtime/train_options.h"

#include <memory>

namespace {

void setup_launch(CLI::App& app) {
  auto opt = std::make_shared<gcu::trainer::LaunchOptions>();
  auto* sub = app.add_subcommand(gcu::cli::describe::kLaunch.name, gcu::cli::describe::kLaunch.description);
  sub->footer(R"(Each rank gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and
MASTER_PORT; "{rank}" and "{nproc}" in the command become the rank and the rank count
(per-rank templates: `gcu launch -n 2 -- ip netns exec ns{rank} gcu train`). Output lines
are prefixed with "[rank N] ". If a rank fails, the others get
--grace seconds to notice (they fail their next collective), then SIGTERM, then SIGKILL;
the exit code is the failed rank's. SIGINT/SIGTERM/SIGHUP sent to the launcher are
forwarded to every rank (to its process group); ranks still running --grace seconds
later, or at a second signal, get SIGKILL; the exit code is then 128 + the signal.

Examples:
  gcu launch -n 2 -- gcu train --scheme fp16 --iters 200
  gcu launch -n 4 --master-port 29600 -- gcu train --data synthetic --model resnet18
  OMP_NUM_THREADS=1 gcu launch -n 2 -- gcu train --threads 1 --target-acc 0.85 --eval-every 50
For several machines, start `gcu train` on each with torchrun-style variables, mpirun or
srun instead: ranks read OMPI_COMM_WORLD_* and SLURM_* too, and rank 0's address from
srun's node list or, for mpirun on one node, 127.0.0.1 (docs/trainer.md).)");
  sub->add_option("-n,--nproc", opt->nproc, "number of ranks")->required()
      ->check(CLI::Range(1, 1024));
  sub->add_option("--master-addr", opt->master_addr, "rendezvous address")->capture_default_str();
  sub->add_option("--master-port", opt->master_port, "rendezvous port (0: a free one)")
      ->check(CLI::Range(0, 65535))->capture_default_str();
  sub->add_option("--grace", opt->grace_s, "seconds before the others are stopped after a failure, or killed after a forwarded signal")
      ->check(gcu::cli::kNonNegativeFinite)->capture_default_str();
  sub->add_flag("!--no-prefix", opt->prefix_output, "do not prefix output lines with the rank");
  sub->add_option("command", opt->command, "the command each rank runs, after --")->required();
  sub->callback([opt] {
    int rc = 0;
    try {
      rc = gcu::trainer::run_launch(*opt);
    } catch (const gcu::trainer::DistributedError&) {
      throw;  // a rank died or stalled: exit 1
    } catch (const gcu::trainer::TrainError& e) {
      throw gcu::cli::UsageError(e.what());
    }
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

const gcu::cli::Registrar reg_launch{gcu::cli::describe::kLaunch.name, gcu::cli::describe::kLaunch.order,
                                     &setup_launch};

}  // namespace
