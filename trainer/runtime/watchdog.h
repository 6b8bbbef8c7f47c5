// A last-resort watchdog: if the training loop shows no progress (beat()) for limit_s
// seconds, prints what it was doing and ends the process with exit code 3. Collectives
// have their own (shorter) Gloo timeout and fail with a clear DistributedError first;
// this catches hangs anywhere else, so that no rank ever waits forever. Torch-free.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace gcu::trainer {

class Watchdog {
 public:
  Watchdog(double limit_s, int rank) : limit_s_(limit_s), rank_(rank), last_(Clock::now()) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Watchdog() { stop(); }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void beat(std::string doing) {
    std::lock_guard<std::mutex> lk(mu_);
    last_ = Clock::now();
    doing_ = std::move(doing);
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  using Clock = std::chrono::steady_clock;
  void loop() {
    std::unique_lock<std::mutex> lk(mu_);
    while (!stopped_) {
      cv_.wait_for(lk, std::chrono::milliseconds(500));
      if (stopped_) return;
      const double idle = std::chrono::duration<double>(Clock::now() - last_).count();
      if (idle > limit_s_) {
        std::fprintf(stderr,
                     "gcu: error: rank %d made no progress for %.0f s (last: %s); another rank "
                     "may have died or stalled; exiting\n",
                     rank_, idle, doing_.c_str());
        std::fflush(stderr);
        std::_Exit(3);
      }
    }
  }
  double limit_s_;
  int rank_;
  Clock::time_point last_;
  std::string doing_ = "start-up";
  bool stopped_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace gcu::trainer
