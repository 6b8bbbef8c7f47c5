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

class Testbed {
 public:
  // kind: "auto" (netns when root with ip and tc, else loopback with a message),
  // "netns" (an error when impossible), "loopback".
  Testbed(const std::string& kind, const std::string& netbed_script, const std::string& work_dir);
  ~Testbed();  // tears down
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  bool shaped() const { return netns_; }
  const std::string& note() const { return note_; }  // why loopback, when it is
  const std::string& prefix() const { return prefix_; }
  // Makes `ranks` ranks exist with every link at `link`. Throws ValidateError (e.g. a rate
  // tc refuses) after removing what it created.
  void configure(int ranks, const Link& link);
  // The command prefix for a rank command: launcher args and the exec wrapper.
  std::vector<std::string> launch_prefix(const std::string& gcu, int ranks) const;
  void down();

 private:
  std::string script_, dir_, prefix_, note_;
  bool netns_ = false;
  int ranks_ = 0;    // ranks of the testbed now up (0: none)
  std::string rate_;  // tc rate now applied
};

}  // namespace gcu::validate
