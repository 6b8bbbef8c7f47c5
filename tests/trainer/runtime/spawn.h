// Test helper: run a command (argv, extra environment) with a deadline, capturing its
// combined output to a file; or start it in the background. Used by the multi-process
// tests, which drive the real `gcu` binary (GCU_EXE, set by CMake).
#pragma once

#include "trainer/runtime/train_options.h"  // pick_free_port

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gcu::trainer::testing {

struct Proc {
  pid_t pid = -1;
  std::string out_file;
};

inline Proc start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                  const std::string& out_file) {
  Proc p;
  // Unless `env` names one, a free port: otherwise every one-rank `gcu train`/`calibrate`
  // rendezvouses at 29500, and tests run in parallel (ctest -j) collide there.
  const std::string port = std::to_string(pick_free_port());
  p.out_file = out_file;
  p.pid = ::fork();
  if (p.pid == 0) {
    const int fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    // Rank variables of an outer launcher must not leak into the child.
    for (const char* k : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                          "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS"})
      ::unsetenv(k);
    ::setenv("OMP_NUM_THREADS", "1", 1);
    ::setenv("MKL_NUM_THREADS", "1", 1);
    ::setenv("MASTER_PORT", port.c_str(), 1);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execv(a[0], a.data());
    ::_exit(127);
  }
  return p;
}

struct Result {
  int status = -1;       // exit code, or 128 + signal, or -1 when killed at the deadline
  double seconds = 0;
  std::string output;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline Result wait_for(const Proc& p, double deadline_s) {
  Result r;
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    int st = 0;
    if (::waitpid(p.pid, &st, WNOHANG) == p.pid) {
      r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > deadline_s) {
      ::kill(p.pid, SIGKILL);
      ::waitpid(p.pid, &st, 0);
      r.status = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.output = slurp(p.out_file);
  return r;
}

inline Result run(const std::vector<std::string>& argv, const std::string& out_file,
                  double deadline_s, const std::map<std::string, std::string>& env = {}) {
  return wait_for(start(argv, env, out_file), deadline_s);
}

// A fresh directory under the temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("gcu_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace gcu::trainer::testing
