// Child processes, the testbed (runner.h).
#include "validate/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

namespace gcu::validate {

namespace {
volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

long children_nivcsw() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_nivcsw;
}

std::string tail_of(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> q;
  std::string l;
  while (std::getline(in, l)) {
    q.push_back(l);
    if (q.size() > lines) q.pop_front();
  }
  std::string out;
  for (auto& s : q) out += s + "\n";
  return out;
}
}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: sleeps return early
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
}

bool interrupted() { return g_signal != 0; }

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  if (!(in >> l)) return -1;
  return l;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s,
                          bool stoppable) {
  ProcessResult r;
  if (stoppable && interrupted()) {
    r.interrupted = true;
    r.exit_code = 128 + int(g_signal);
    return r;
  }
  const long ctx0 = children_nivcsw();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw ValidateError(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) signal(s, SIG_DFL);
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "gcu validate: cannot run %s: %s\n", a[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0;
  bool termed = false;
  double term_at = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool stop = stoppable && interrupted();
    if (!termed && (el > timeout_s || stop)) {
      r.timed_out = !stop;
      r.interrupted = stop;
      kill(-pid, SIGTERM);
      termed = true;
      term_at = el;
    } else if (termed && el > term_at + 10) {
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.nivcsw = children_nivcsw() - ctx0;
  r.output_tail = tail_of(log_path, 12);
  return r;
}

// ---- testbed -------------------------------------------------------------------------

Testbed::Testbed(const std::string& kind, const std::string& netbed_script, const std::string& work_dir)
    : script_(netbed_script), dir_(work_dir) {
  if (kind != "auto" && kind != "netns" && kind != "loopback")
    throw ValidateError("testbed '" + kind + "': expected auto, netns or loopback");
  prefix_ = "gv" + std::to_string(::getpid() % 1000000);
  if (kind == "loopback") {
    note_ = "loopback testbed (asked for): ranks share the host's network namespace, links are not shaped";
    return;
  }
  const ProcessResult c = run_process({"bash", script_, "check"}, dir_ + "/netbed-check.log", 30);
  if (c.exit_code != 0) {
    const std::string why = c.output_tail.empty() ? "netbed.sh check failed (exit " + std::to_string(c.exit_code) + ")"
                                                   : c.output_tail.substr(0, c.output_tail.find_last_not_of('\n') + 1);
    if (kind == "netns") throw ValidateError("cannot build the shaped testbed: " + why);
    note_ = "loopback fallback, links NOT shaped: " + why;
    return;
  }
  netns_ = true;
}

Testbed::~Testbed() {
  try {
    down();
  } catch (...) {
  }
}

void Testbed::down() {
  if (!netns_ || ranks_ == 0) return;
  run_process({"bash", script_, "down", prefix_}, dir_ + "/netbed-down.log", 60, /*stoppable=*/false);
  ranks_ = 0;
  rate_.clear();
}

void Testbed::configure(int ranks, const Link& link) {
  if (!netns_) return;
  if (ranks_ != ranks) {
    down();
    const ProcessResult u = run_process({"bash", script_, "up", prefix_, std::to_string(ranks), link.tc_rate},
                                        dir_ + "/netbed-up.log", 120);
    if (u.exit_code != 0) {
      run_process({"bash", script_, "down", prefix_}, dir_ + "/netbed-down.log", 60, false);
      throw ValidateError("testbed set-up for link " + link.name + " failed: " + u.output_tail);
    }
    ranks_ = ranks;
    rate_ = link.tc_rate;
    return;
  }
  if (rate_ == link.tc_rate) return;
  const ProcessResult s = run_process({"bash", script_, "rate", prefix_, std::to_string(ranks), link.tc_rate},
                                      dir_ + "/netbed-rate.log", 60);
  if (s.exit_code != 0) {
    down();
    throw ValidateError("link " + link.name + ": " + s.output_tail);
  }
  rate_ = link.tc_rate;
}

std::vector<std::string> Testbed::launch_prefix(const std::string& gcu, int ranks) const {
  std::vector<std::string> a = {gcu, "launch", "-n", std::to_string(ranks), "--grace", "5"};
  if (netns_) {
    a.insert(a.end(), {"--master-addr", "10.77.0.1", "--", "bash", script_, "exec", prefix_, "--"});
  } else {
    a.insert(a.end(), {"--master-addr", "127.0.0.1", "--"});
  }
  return a;
}

}  // namespace gcu::validate
