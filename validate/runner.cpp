// Child processes, the testbed (runner.h).
#include "validate/runner.h"


#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
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

namespace {
// A TCP port nobody listens on now (bound to port 0, read back, released).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  int port = 29500;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  return port;
}

// A shaping command's words with {rate} and {ranks} filled in.
std::vector<std::string> shaping_argv(const std::string& text, const Link& link, int ranks) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"{rate}", link.tc_rate},
                                     {"{ranks}", std::to_string(ranks)}})
      for (size_t at = w.find(key); at != std::string::npos; at = w.find(key, at + value.size()))
        w.replace(at, key.size(), value);
    words.push_back(w);
  }
  return words;
}
}  // namespace

std::vector<std::string> parse_launcher_template(const std::string& text) {
  std::vector<std::string> words;
  std::string w;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else w += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(w);
      w.clear();
      in_word = false;
    } else {
      w += c;
      in_word = true;
    }
  }
  const std::string shown = "launcher template '" + text.substr(0, 200) + "'";
  if (quote) throw ValidateError(shown + ": unclosed quote");
  if (in_word) words.push_back(w);
  if (words.empty()) throw ValidateError("the launcher template is empty: give one with {cmd}, e.g. 'mpirun -np {ranks} {cmd}'");
  if (std::count(words.begin(), words.end(), "{cmd}") != 1) {
    const bool inside = text.find("{cmd}") != std::string::npos;
    throw ValidateError(shown + (inside ? ": {cmd} must stand alone, once (a word of its own)"
                                        : " has no {cmd}: write where the rank command goes, e.g. "
                                          "'mpirun -np {ranks} {cmd}' or 'ssh node{rank} {cmd}'"));
  }
  return words;
}

Testbed::Testbed(const TestbedSpec& spec)
    : spec_(spec), script_(spec.netbed_script), dir_(spec.work_dir) {
  if (spec.kind != "auto" && spec.kind != "netns" && spec.kind != "loopback" && spec.kind != "launcher")
    throw ValidateError("testbed '" + spec.kind + "': expected auto, netns, loopback or launcher");
  prefix_ = "gv" + std::to_string(::getpid() % 1000000);
  if (spec.kind == "launcher") {
    launcher_ = parse_launcher_template(spec.launcher);
    if (spec.shape_cmd.empty() != spec.unshape_cmd.empty())
      throw ValidateError("--shape-cmd and --unshape-cmd go together (shape a link, then put it back)");
    note_ = "your launcher: " + spec.launcher + (spec.shape_cmd.empty() ? " (links as they are)" : "");
    return;
  }
  if (!spec.launcher.empty()) throw ValidateError("--launcher needs --testbed launcher");
  if (spec.kind == "loopback") {
    note_ = "loopback testbed (asked for): ranks share the host's network namespace, links are not shaped";
    return;
  }
  const ProcessResult c = run_process({"bash", script_, "check"}, dir_ + "/netbed-check.log", 30);
  if (c.exit_code != 0) {
    const std::string why = c.output_tail.empty() ? "netbed.sh check failed (exit " + std::to_string(c.exit_code) + ")"
                                                   : c.output_tail.substr(0, c.output_tail.find_last_not_of('\n') + 1);
    if (spec.kind == "netns") throw ValidateError("cannot build the shaped testbed: " + why);
    note_ = "loopback fallback, links NOT shaped: " + why;
    return;
  }
  netns_ = true;
}

Testbed::Testbed(const std::string& kind, const std::string& netbed_script, const std::string& work_dir)
    : Testbed(TestbedSpec{kind, netbed_script, work_dir, "", "127.0.0.1", "", ""}) {}

Testbed::~Testbed() {
  try {
    down();
  } catch (...) {
  }
}

void Testbed::down() {
  if (launcher_mode()) {
    if (!rate_.empty() && !spec_.unshape_cmd.empty())
      run_process(shaping_argv(spec_.unshape_cmd, parse_link("unlimited"), ranks_), dir_ + "/shape.log", 120, false);
    rate_.clear();
    return;
  }
  if (!netns_ || ranks_ == 0) return;
  run_process({"bash", script_, "down", prefix_}, dir_ + "/netbed-down.log", 60, /*stoppable=*/false);
  ranks_ = 0;
  rate_.clear();
}


void Testbed::configure(int ranks, const Link& link) {
  if (launcher_mode()) {
    ranks_ = ranks;
    const std::string want = link.unlimited() ? "" : link.tc_rate;
    if (want == rate_) return;
    if (!want.empty() && spec_.shape_cmd.empty())
      throw ValidateError("link " + link.name + ": the launcher testbed shapes nothing itself; give --shape-cmd and "
                          "--unshape-cmd (with {rate}), or run --links unlimited (the network as it is)");
    const std::string& cmd = want.empty() ? spec_.unshape_cmd : spec_.shape_cmd;
    const ProcessResult r = run_process(shaping_argv(cmd, link, ranks), dir_ + "/shape.log", 120, false);
    if (r.exit_code != 0)
      throw ValidateError("link " + link.name + ": " + (want.empty() ? "--unshape-cmd" : "--shape-cmd") +
                          " failed (exit " + std::to_string(r.exit_code) + "): " + r.output_tail);
    rate_ = want;
    return;
  }
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

std::vector<std::string> Testbed::command(const std::string& gcu, int ranks,
                                          const std::vector<std::string>& cmd) const {
  if (!launcher_mode()) {
    std::vector<std::string> a = launch_prefix(gcu, ranks);
    a.insert(a.end(), cmd.begin(), cmd.end());
    return a;
  }
  const bool per_rank = std::any_of(launcher_.begin(), launcher_.end(),
                                    [](const std::string& w) { return w.find("{rank}") != std::string::npos; });
  std::vector<std::string> a;
  if (per_rank)  // gcu launch starts one per rank and fills {rank} (trainer/runtime/train_options.h)
    a = {gcu, "launch", "-n", std::to_string(ranks), "--grace", "5", "--master-addr", spec_.master_addr, "--"};
  else  // the launcher passes its environment on to the ranks it starts (mpirun on its node, srun)
    a = {"env", "MASTER_ADDR=" + spec_.master_addr, "MASTER_PORT=" + std::to_string(free_port())};
  for (std::string w : launcher_) {
    if (w == "{cmd}") {
      a.insert(a.end(), cmd.begin(), cmd.end());
      continue;
    }
    for (size_t at = w.find("{ranks}"); at != std::string::npos; at = w.find("{ranks}", at))
      w.replace(at, 7, std::to_string(ranks));
    a.push_back(w);
  }
  return a;
}

}  // namespace gcu::validate
