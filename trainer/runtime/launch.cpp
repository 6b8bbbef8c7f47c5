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

int run_launch(const LaunchOptions& opt) {
  if (opt.nproc < 1) throw TrainError("-n must be >= 1, got " + std::to_string(opt.nproc));
  if (opt.command.empty())
    throw TrainError("no command to launch: give it after --, e.g. gcu launch -n 2 -- gcu train");
  if (opt.master_port < 0 || opt.master_port > 65535)
    throw TrainError("--master-port " + std::to_string(opt.master_port) + " is not a port");
  const int port = opt.master_port ? opt.master_port : pick_free_port();
  std::string program = opt.command[0];
  if (program == "gcu") program = "/proc/self/exe";  // this very binary

  std::vector<Child> kids(static_cast<size_t>(opt.nproc));
  for (int r = 0; r < opt.nproc; ++r) {
    int out[2], err[2];
    if (::pipe(out) != 0 || ::pipe(err) != 0)
      throw TrainError(std::string("pipe failed: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw TrainError(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
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
      for (const auto& a : opt.command) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(program.c_str(), argv.data());
      if (program.find('/') == std::string::npos) ::execvp(program.c_str(), argv.data());
      std::fprintf(stderr, "gcu launch: cannot run '%s': %s\n", opt.command[0].c_str(),
                   std::strerror(errno));
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: no race with the kill() calls below
    ::close(out[1]);
    ::close(err[1]);
    ::fcntl(out[0], F_SETFL, O_NONBLOCK);
    ::fcntl(err[0], F_SETFL, O_NONBLOCK);
    kids[r] = Child{r, pid, out[0], err[0], {}, {}, true, 0};
  }
  std::fprintf(stderr, "gcu launch: %d ranks, MASTER_ADDR=%s MASTER_PORT=%d\n", opt.nproc,
               opt.master_addr.c_str(), port);

  // Installed after the forks: the children start with the default dispositions.
  SignalForwarding forwarding;
  auto signal_all = [&kids](int sig) {
    for (auto& c : kids)
      if (c.running) ::kill(-c.pid, sig);
  };
  int first_failed = -1;
  Clock::time_point failed_at{};
  bool termed = false, killed = false;
  int got_signal = 0;              // first signal the launcher received
  int forwarded_count = 0;
  Clock::time_point signalled_at{};
  while (true) {
    if (g_signal_count > forwarded_count) {
      const int sig = g_signal;
      if (forwarded_count == 0) {
        got_signal = sig;
        signalled_at = Clock::now();
        std::fprintf(stderr, "gcu launch: received %s: forwarding it to the ranks; SIGKILL to "
                             "those still running in %.0f s\n", sigabbrev(sig), opt.grace_s);
        signal_all(sig);
      } else if (!killed) {
        std::fprintf(stderr, "gcu launch: received %s again: killing the ranks\n", sigabbrev(sig));
        signal_all(SIGKILL);
        killed = true;
      }
      forwarded_count = g_signal_count;
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<int, bool>> who;  // (child, is_err)
    for (auto& c : kids) {
      if (c.out_fd >= 0) { fds.push_back({c.out_fd, POLLIN, 0}); who.push_back({c.rank, false}); }
      if (c.err_fd >= 0) { fds.push_back({c.err_fd, POLLIN, 0}); who.push_back({c.rank, true}); }
    }
    ::poll(fds.empty() ? nullptr : fds.data(), fds.size(), 100);  // also: sleep when no pipes
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto& c = kids[who[i].first];
      if (who[i].second) relay(c, c.err_fd, c.err_buf, stderr, opt.prefix_output, false);
      else relay(c, c.out_fd, c.out_buf, stdout, opt.prefix_output, false);
    }
    bool any_running = false;
    for (auto& c : kids) {
      if (!c.running) continue;
      int st = 0;
      if (::waitpid(c.pid, &st, WNOHANG) == c.pid) {
        c.running = false;
        c.status = st;
        const bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (got_signal) {
          std::fprintf(stderr, "gcu launch: rank %d %s\n", c.rank, describe(st).c_str());
        } else if (!ok && first_failed < 0) {
          first_failed = c.rank;
          failed_at = Clock::now();
          std::fprintf(stderr, "gcu launch: rank %d %s; stopping the other ranks in %.0f s\n",
                       c.rank, describe(st).c_str(), opt.grace_s);
        }
      } else {
        any_running = true;
      }
    }
    if (!any_running) break;
    if (got_signal) {
      const double waited = std::chrono::duration<double>(Clock::now() - signalled_at).count();
      if (!killed && waited > opt.grace_s) {
        std::fprintf(stderr, "gcu launch: ranks still running %.0f s after %s: SIGKILL\n",
                     opt.grace_s, sigabbrev(got_signal));
        signal_all(SIGKILL);
        killed = true;
      }
    } else if (first_failed >= 0) {
      const double waited = std::chrono::duration<double>(Clock::now() - failed_at).count();
      if (!termed && waited > opt.grace_s) {
        signal_all(SIGTERM);
        termed = true;
      }
      if (!killed && waited > opt.grace_s + 3.0) {
        signal_all(SIGKILL);
        killed = true;
      }
    }
  }
  for (auto& c : kids) {  // drain what is left in the pipes (bounded: never hang here)
    for (int i = 0; i < 10000 && c.out_fd >= 0; ++i)
      relay(c, c.out_fd, c.out_buf, stdout, opt.prefix_output, true);
    for (int i = 0; i < 10000 && c.err_fd >= 0; ++i)
      relay(c, c.err_fd, c.err_buf, stderr, opt.prefix_output, true);
  }
  if (got_signal) {
    std::fprintf(stderr, "gcu launch: stopped by %s\n", sigabbrev(got_signal));
    return 128 + got_signal;
  }
  if (first_failed < 0) return 0;
  const int st = kids[first_failed].status;
  std::fprintf(stderr, "gcu launch: failed: rank %d %s (first failure; see its output above)\n",
               first_failed, describe(st).c_str());
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}

}  // namespace gcu::trainer
