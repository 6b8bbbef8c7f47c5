// The registry of live temporary files and its signal handler (temp_registry.h).
#include "util/temp_registry.h"

#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <signal.h>
#include <unistd.h>

namespace gcu::util {
namespace {

struct Slot {
  // 0 free, 1 being filled, 2 live (read by the handler).
  volatile std::sig_atomic_t state = 0;
  char path[PATH_MAX] = {};
};

Slot g_slots[kMaxLiveTemps];
std::mutex g_mutex;  // registration only; the handler takes no lock
struct sigaction g_previous[2];
volatile std::sig_atomic_t g_installed = 0;

constexpr int kSignals[2] = {SIGINT, SIGTERM};

extern "C" void on_signal(int sig) {
  for (auto& s : g_slots)
    if (s.state == 2) ::unlink(s.path);
  // Restore what was there before and re-raise: default action = die of the signal.
  for (int i = 0; i < 2; ++i)
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  g_installed = 0;
  ::raise(sig);
}

void install_locked() {
  if (g_installed) return;
  for (int i = 0; i < 2; ++i) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART;
    struct sigaction prev {};
    ::sigaction(kSignals[i], &sa, &prev);
    // Never chain to ourselves (a second install after a handled signal).
    if (prev.sa_handler != on_signal) g_previous[i] = prev;
  }
  g_installed = 1;
}

}  // namespace

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) throw std::runtime_error("temporary file name too long: " + path.substr(0, 200));
  std::lock_guard<std::mutex> lock(g_mutex);
  install_locked();
  for (size_t i = 0; i < kMaxLiveTemps; ++i) {
    Slot& s = g_slots[i];
    if (s.state != 0) continue;
    s.state = 1;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.state = 2;
    return static_cast<int>(i);
  }
  throw std::runtime_error("more than " + std::to_string(kMaxLiveTemps) + " output files open at once");
}

void unregister_temp(int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= kMaxLiveTemps) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_slots[slot].state = 0;
}

size_t live_temp_count() {
  std::lock_guard<std::mutex> lock(g_mutex);
  size_t n = 0;
  for (const auto& s : g_slots) n += s.state == 2;
  return n;
}

}  // namespace gcu::util
