// Running things for a validation: child processes with a timeout and their involuntary
// context switches, the shaped-network testbed (scripts/netbed.sh), one cell's ranks
// (`gcu launch -n R [--master-addr 10.77.0.1] -- [netbed.sh exec PREFIX --] gcu train ...`),
// the link-rate measurement (a short all-reduce sweep of `gcu calibrate` through the
// link) and `gcu calibrate` for --calibrate. docs/validation.md §1.
#pragma once

#include "validate/grid.h"

#include <string>
#include <vector>

namespace gcu::validate {

struct ProcessResult {
  int exit_code = 0;      // 128 + signal when killed by a signal
  bool timed_out = false;
  bool interrupted = false;  // validate itself got SIGINT/SIGTERM/SIGHUP
  double wall_s = 0;
  long nivcsw = 0;        // involuntary context switches of all waited-for descendants
  std::string output_tail;  // last lines of stdout+stderr
};

// Runs argv (argv[0] searched in PATH) in its own process group, stdout+stderr to
// `log_path`; after timeout_s: SIGTERM to the group, 10 s later SIGKILL. `stoppable`:
// a SIGINT/SIGTERM/SIGHUP to validate stops it (false for the testbed's tear-down, which
// must run precisely then).
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s,
                          bool stoppable = true);

// SIGINT/SIGTERM/SIGHUP set a flag (the running child is stopped, run_process returns
// interrupted) instead of killing validate, so that the testbed is torn down.
void install_signal_handlers();
bool interrupted();

// 1-minute load average from /proc/loadavg (-1 when unreadable).
double load_average();

// How the ranks are started and the links made (`gcu validate --testbed`).
struct TestbedSpec {
  std::string kind = "auto";    // auto | netns | loopback | launcher
  std::string netbed_script;    // scripts/netbed.sh
  std::string work_dir;
  // launcher: the cluster's own launcher, a template with {cmd} standing alone where the
  // rank command goes: whole-job ("mpirun -np {ranks} {cmd}", "srun -N2 --ntasks-per-node=4
  // {cmd}": one process that starts every rank) or per-rank, with {rank} ("ssh node{rank}
  // {cmd}", "ip netns exec ns{rank} {cmd}": gcu launch starts one per rank). {ranks} is the
  // rank count. Split at white space; '...' and "..." group.
  std::string launcher;
  std::string master_addr = "127.0.0.1";  // rank 0's address for the ranks (MASTER_ADDR)
  // Shaping, only where the user gives it: run before a shaped link's cells with {rate}
  // (tc's rate, "200000kbit") and {ranks}; unshape before an unlimited link's. Without them
  // the launcher testbed runs only unlimited links: the network as it is ("native").
  std::string shape_cmd, unshape_cmd;
};

// A launcher template split into words (TestbedSpec::launcher). Throws ValidateError for an
// empty one, an unclosed quote or one without {cmd} standing alone.
std::vector<std::string> parse_launcher_template(const std::string& text);

class Testbed {
 public:
  explicit Testbed(const TestbedSpec& spec);
  // kind: "auto" (netns when root with ip and tc, else loopback with a message),
  // "netns" (an error when impossible), "loopback".
  Testbed(const std::string& kind, const std::string& netbed_script, const std::string& work_dir);
  ~Testbed();  // tears down
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  // Whether links are shaped: the namespace testbed, or the launcher with --shape-cmd.
  bool shaped() const { return netns_ || (launcher_mode() && !spec_.shape_cmd.empty()); }
  // "netns", "loopback" or "launcher".
  std::string name() const { return netns_ ? "netns" : launcher_mode() ? "launcher" : "loopback"; }
  // Whether the links are a real network (netns or the user's launcher), so that a probe of
  // the link measures the link and not loopback.
  bool real_links() const { return netns_ || launcher_mode(); }
  const std::string& note() const { return note_; }  // why loopback, when it is
  const std::string& prefix() const { return prefix_; }
  // Makes `ranks` ranks exist with every link at `link`. Throws ValidateError (e.g. a rate
  // tc refuses, a shaped link on the launcher testbed without --shape-cmd) after removing
  // what it created.
  void configure(int ranks, const Link& link);
  // The argv that runs `cmd` on every one of `ranks` ranks.
  std::vector<std::string> command(const std::string& gcu, int ranks, const std::vector<std::string>& cmd) const;
  // The command prefix for a rank command: launcher args and the exec wrapper (netns and
  // loopback; command() is the general form).
  std::vector<std::string> launch_prefix(const std::string& gcu, int ranks) const;
  void down();

 private:
  bool launcher_mode() const { return !launcher_.empty(); }
  TestbedSpec spec_;
  std::string script_, dir_, prefix_, note_;
  std::vector<std::string> launcher_;  // the parsed template (launcher kind)
  bool netns_ = false;
  int ranks_ = 0;    // ranks of the testbed now up (0: none)
  std::string rate_;  // tc rate now applied
};

}  // namespace gcu::validate
