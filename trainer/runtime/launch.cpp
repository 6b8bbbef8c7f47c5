// `gcu launch`: a local launcher, like torchrun --standalone (run_launch, train_options.h).
// Forks one child per rank with the torchrun-style variables set, relays each child's
// stdout and stderr line by line with a "[rank N] " prefix, and when a rank fails
// (non-zero exit or signal) waits grace_s for the others to notice, then sends SIGTERM
// and, 3 s later, SIGKILL to those still running. SIGINT, SIGTERM or SIGHUP sent to the
// launcher is forwarded to every rank; ranks still running grace_s later get SIGKILL (a
// second signal kills them at once); the launcher then exits with 128 + the signal.
// Each rank runs in its own process group and signals go to the group, so what a rank
// started itself is stopped too. Torch-free. Children get PR_SET_PDEATHSIG, so killing
// the launcher with SIGKILL kills the ranks.
#include "trainer/runtime/train_options.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace gcu::trainer {

int pick_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw TrainError(std::string("cannot open a socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    throw TrainError(std::string("cannot find a free port: ") + std::strerror(errno));
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

namespace {
using Clock = std::chrono::steady_clock;

// Signals received by the launcher (set by the handler, read by the loop).
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_signal_count = 0;
extern "C" void on_launcher_signal(int sig) {
  g_signal = sig;
  g_signal_count = g_signal_count + 1;
}

// Installs the forwarding handlers; restores the previous ones on destruction.
class SignalForwarding {
 public:
  SignalForwarding() {
    g_signal = 0;
    g_signal_count = 0;
    struct sigaction sa {};
    sa.sa_handler = on_launcher_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~SignalForwarding() {
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

struct Child {
  int rank = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
  std::string out_buf, err_buf;
  bool running = true;
  int status = 0;
};

void relay(Child& c, int& fd, std::string& buf, std::FILE* to, bool prefix, bool flush_all) {
  char chunk[4096];
  if (fd >= 0) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) buf.append(chunk, static_cast<size_t>(n));
    else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      ::close(fd);
      fd = -1;
      flush_all = true;
    }
  }
  size_t pos;
  while ((pos = buf.find('\n')) != std::string::npos) {
    if (prefix) std::fprintf(to, "[rank %d] ", c.rank);
    std::fwrite(buf.data(), 1, pos + 1, to);
    buf.erase(0, pos + 1);
  }
  if (flush_all && !buf.empty()) {
    if (prefix) std::fprintf(to, "[rank %d] ", c.rank);
    std::fprintf(to, "%s\n", buf.c_str());
    buf.clear();
  }
  std::fflush(to);
}

const char* sigabbrev(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status)) +
                                  " (" + strsignal(WTERMSIG(status)) + ")";
  return "ended with status " + std::to_string(status);
}

}  // namespace

std::vector<std::string> rank_command(const std::vector<std::string>& command, int rank, int nproc) {
  std::vector<std::string> out = command;
  for (std::string& a : out)
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"{rank}", std::to_string(rank)},
                                     {"{nproc}", std::to_string(nproc)}})
      for (size_t at = a.find(key); at != std::string::npos; at = a.find(key, at + value.size()))
        a.replace(at, key.size(), value);
  return out;
}

namespace {

// The child's side of the fork: its own process group, the pipes as stdout and stderr,
// the torchrun-style variables, then exec (never returns).
[[noreturn]] void exec_rank(const LaunchOptions& opt, const std::vector<std::string>& command,
                            const std::string& program, int r, int port, const int out[2], const int err[2]) {
  ::setpgid(0, 0);  // own process group: signals reach what the rank starts too
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::dup2(out[1], 1);
  ::dup2(err[1], 2);
  ::close(out[0]); ::close(out[1]); ::close(err[0]); ::close(err[1]);
  ::setenv("RANK", std::to_string(r).c_str(), 1);
  ::setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
  ::setenv("WORLD_SIZE", std::to_string(opt.nproc).c_str(), 1);
  ::setenv("LOCAL_WORLD_SIZE", std::to_string(opt.nproc).c_str(), 1);
  ::setenv("MASTER_ADDR", opt.master_addr.c_str(), 1);
  ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  if (program.find('/') == std::string::npos) ::execvp(program.c_str(), argv.data());
  std::fprintf(stderr, "gcu launch: cannot run '%s': %s\n", opt.command[0].c_str(),
               std::strerror(errno));
  ::_exit(127);
}

// Forks one child per rank, its stdout and stderr on non-blocking pipes.
std::vector<Child> spawn_ranks(const LaunchOptions& opt, const std::string& program, int port) {
  std::vector<Child> kids(static_cast<size_t>(opt.nproc));
  for (int r = 0; r < opt.nproc; ++r) {
    int out[2], err[2];
    if (::pipe(out) != 0 || ::pipe(err) != 0)
      throw TrainError(std::string("pipe failed: ") + std::strerror(errno));
    const std::vector<std::string> command = rank_command(opt.command, r, opt.nproc);  // before fork: no allocation after it
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw TrainError(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) exec_rank(opt, command, program, r, port, out, err);
    ::setpgid(pid, pid);  // also here: no race with the kill() calls below
    ::close(out[1]);
    ::close(err[1]);
    ::fcntl(out[0], F_SETFL, O_NONBLOCK);
    ::fcntl(err[0], F_SETFL, O_NONBLOCK);
    kids[r] = Child{r, pid, out[0], err[0], {}, {}, true, 0};
  }
  return kids;
}

// The launcher's loop over the running ranks: forwards signals, relays output, reaps the
// ranks that end and escalates (SIGTERM, SIGKILL) after a failure or a signal.
class Supervisor {
 public:
  Supervisor(const LaunchOptions& opt, std::vector<Child>& kids) : opt_(opt), kids_(kids) {}

  // Runs until every rank has ended, then drains their pipes; returns the exit code.
  int run() {
    while (true) {
      forward_signals();
      relay_ready_output();
      if (!reap()) break;
      escalate();
    }
    drain();
    return exit_code();
  }

 private:
  void signal_all(int sig) {
    for (auto& c : kids_)
      if (c.running) ::kill(-c.pid, sig);
  }

  void forward_signals() {
    if (g_signal_count <= forwarded_count_) return;
    const int sig = g_signal;
    if (forwarded_count_ == 0) {
      got_signal_ = sig;
      signalled_at_ = Clock::now();
      std::fprintf(stderr, "gcu launch: received %s: forwarding it to the ranks; SIGKILL to "
                           "those still running in %.0f s\n", sigabbrev(sig), opt_.grace_s);
      signal_all(sig);
    } else if (!killed_) {
      std::fprintf(stderr, "gcu launch: received %s again: killing the ranks\n", sigabbrev(sig));
      signal_all(SIGKILL);
      killed_ = true;
    }
    forwarded_count_ = g_signal_count;
  }

  void relay_ready_output() {
    std::vector<pollfd> fds;
    std::vector<std::pair<int, bool>> who;  // (child, is_err)
    for (auto& c : kids_) {
      if (c.out_fd >= 0) { fds.push_back({c.out_fd, POLLIN, 0}); who.push_back({c.rank, false}); }
      if (c.err_fd >= 0) { fds.push_back({c.err_fd, POLLIN, 0}); who.push_back({c.rank, true}); }
    }
    ::poll(fds.empty() ? nullptr : fds.data(), fds.size(), 100);  // also: sleep when no pipes
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto& c = kids_[who[i].first];
      if (who[i].second) relay(c, c.err_fd, c.err_buf, stderr, opt_.prefix_output, false);
      else relay(c, c.out_fd, c.out_buf, stdout, opt_.prefix_output, false);
    }
  }

  // Collects the ranks that ended; false when none is running any more.
  bool reap() {
    bool any_running = false;
    for (auto& c : kids_) {
      if (!c.running) continue;
      int st = 0;
      if (::waitpid(c.pid, &st, WNOHANG) == c.pid) {
        c.running = false;
        c.status = st;
        const bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (got_signal_) {
          std::fprintf(stderr, "gcu launch: rank %d %s\n", c.rank, describe(st).c_str());
        } else if (!ok && first_failed_ < 0) {
          first_failed_ = c.rank;
          failed_at_ = Clock::now();
          std::fprintf(stderr, "gcu launch: rank %d %s; stopping the other ranks in %.0f s\n",
                       c.rank, describe(st).c_str(), opt_.grace_s);
        }
      } else {
        any_running = true;
      }
    }
    return any_running;
  }

  void escalate() {
    if (got_signal_) {
      const double waited = std::chrono::duration<double>(Clock::now() - signalled_at_).count();
      if (!killed_ && waited > opt_.grace_s) {
        std::fprintf(stderr, "gcu launch: ranks still running %.0f s after %s: SIGKILL\n",
                     opt_.grace_s, sigabbrev(got_signal_));
        signal_all(SIGKILL);
        killed_ = true;
      }
    } else if (first_failed_ >= 0) {
      const double waited = std::chrono::duration<double>(Clock::now() - failed_at_).count();
      if (!termed_ && waited > opt_.grace_s) {
        signal_all(SIGTERM);
        termed_ = true;
      }
      if (!killed_ && waited > opt_.grace_s + 3.0) {
        signal_all(SIGKILL);
        killed_ = true;
      }
    }
  }

  void drain() {  // what is left in the pipes (bounded: never hang here)
    for (auto& c : kids_) {
      for (int i = 0; i < 10000 && c.out_fd >= 0; ++i)
        relay(c, c.out_fd, c.out_buf, stdout, opt_.prefix_output, true);
      for (int i = 0; i < 10000 && c.err_fd >= 0; ++i)
        relay(c, c.err_fd, c.err_buf, stderr, opt_.prefix_output, true);
    }
  }

  int exit_code() const {
    if (got_signal_) {
      std::fprintf(stderr, "gcu launch: stopped by %s\n", sigabbrev(got_signal_));
      return 128 + got_signal_;
    }
    if (first_failed_ < 0) return 0;
    const int st = kids_[first_failed_].status;
    std::fprintf(stderr, "gcu launch: failed: rank %d %s (first failure; see its output above)\n",
                 first_failed_, describe(st).c_str());
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
  }

  const LaunchOptions& opt_;
  std::vector<Child>& kids_;
  int first_failed_ = -1;
  Clock::time_point failed_at_{};
  bool termed_ = false, killed_ = false;
  int got_signal_ = 0;  // first signal the launcher received
  int forwarded_count_ = 0;
  Clock::time_point signalled_at_{};
};
}  // namespace

int run_launch(const LaunchOptions& opt) {
  if (opt.nproc < 1) throw TrainError("-n must be >= 1, got " + std::to_string(opt.nproc));
  if (opt.command.empty())
    throw TrainError("no command to launch: give it after --, e.g. gcu launch -n 2 -- gcu train");
  if (opt.master_port < 0 || opt.master_port > 65535)
    throw TrainError("--master-port " + std::to_string(opt.master_port) + " is not a port");
  const int port = opt.master_port ? opt.master_port : pick_free_port();
  std::string program = opt.command[0];
  if (program == "gcu") program = "/proc/self/exe";  // this very binary

  std::vector<Child> kids = spawn_ranks(opt, program, port);
  std::fprintf(stderr, "gcu launch: %d ranks, MASTER_ADDR=%s MASTER_PORT=%d\n", opt.nproc,
               opt.master_addr.c_str(), port);

  // Installed after the forks: the children start with the default dispositions.
  SignalForwarding forwarding;
  return Supervisor(opt, kids).run();
}

}  // namespace gcu::trainer
