// Rank discovery from launcher environment variables (rendezvous.h).
#include "trainer/runtime/rendezvous.h"

#include "trainer/runtime/train_options.h"

#include <cctype>
#include <cstdlib>

namespace gcu::trainer {

EnvLookup process_env() {
  return [](const std::string& k) -> std::optional<std::string> {
    const char* v = std::getenv(k.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

namespace {
int parse_int(const std::string& name, const std::string& value, int lo) {
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || v < lo || v > 1 << 24)
    throw TrainError("environment variable " + name + "='" + value +
                     "' is not an integer >= " + std::to_string(lo));
  return static_cast<int>(v);
}

struct Scheme {
  const char* source;
  const char* rank;
  const char* size;
  const char* local;
};
constexpr Scheme kSchemes[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

// Rank 0's host when the launcher says it and MASTER_ADDR is not set: srun's first node of
// the step (or job); mpirun's own node when every rank is on it.
std::optional<std::string> launcher_master_addr(const std::string& source, const EnvLookup& env, std::string* from) {
  if (source == "srun") {
    for (const char* k : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"})
      if (const auto list = env(k))
        if (const auto host = first_slurm_host(*list)) {
          *from = std::string(k) + " (its first host)";
          return host;
        }
  }
  if (source == "mpirun") {
    const auto local = env("OMPI_COMM_WORLD_LOCAL_SIZE"), world = env("OMPI_COMM_WORLD_SIZE");
    if (local && world && *local == *world) {
      *from = "mpirun: every rank on this node";
      return std::string("127.0.0.1");
    }
  }
  return std::nullopt;
}

// A port when MASTER_PORT is not set: srun's 29500 + the job id's last three digits (two
// jobs sharing a node rendezvous apart); mpirun's 29500.
std::optional<std::string> launcher_master_port(const std::string& source, const EnvLookup& env) {
  if (source == "srun") {
    if (const auto job = env("SLURM_JOB_ID"); job && !job->empty() && job->size() < 18 &&
                                              job->find_first_not_of("0123456789") == std::string::npos)
      return std::to_string(29500 + std::stoll(*job) % 1000);
    return std::string("29500");
  }
  if (source == "mpirun") return std::string("29500");
  return std::nullopt;
}
}  // namespace

// The first host of a Slurm host list: "gpu[003-006,9],login1" -> "gpu003"; nullopt when
// it is not one (a character a host name does not have, an unclosed bracket).
std::optional<std::string> first_slurm_host(const std::string& list) {
  std::string host;
  for (size_t i = 0; i < list.size() && list[i] != ','; ++i) {
    if (list[i] != '[') {
      host += list[i];
      continue;
    }
    const size_t close = list.find(']', i);
    if (close == std::string::npos) return std::nullopt;
    const std::string ranges = list.substr(i + 1, close - i - 1);  // "003-006,9": its first number
    host += ranges.substr(0, ranges.find_first_of("-,"));
    i = close;
  }
  if (host.empty() || host.size() > 253) return std::nullopt;
  for (char c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') return std::nullopt;
  return host;
}

RankInfo rank_info_from_env(const EnvLookup& env) {
  RankInfo info;
  for (const auto& s : kSchemes) {
    const auto rank = env(s.rank);
    const auto size = env(s.size);
    if (!rank && !size) continue;
    if (!rank || !size)
      throw TrainError(std::string("incomplete rank environment from ") + s.source + ": " +
                       (rank ? s.size : s.rank) + " is not set (" + s.rank + " and " + s.size +
                       " must be set together)");
    info.source = s.source;
    info.rank = parse_int(s.rank, *rank, 0);
    info.world_size = parse_int(s.size, *size, 1);
    if (info.rank >= info.world_size)
      throw TrainError(std::string(s.rank) + "=" + *rank + " is not below " + s.size + "=" + *size);
    const auto local = env(s.local);
    info.local_rank = local ? parse_int(s.local, *local, 0) : 0;
    break;
  }
  auto addr = env("MASTER_ADDR");
  auto port = env("MASTER_PORT");
  info.master_from = addr ? "MASTER_ADDR" : "";
  if (info.world_size > 1 && !addr) addr = launcher_master_addr(info.source, env, &info.master_from);
  if (info.world_size > 1 && !port) port = launcher_master_port(info.source, env);
  if (info.world_size > 1 && (!addr || !port))
    throw TrainError("rank environment from " + info.source + " says WORLD_SIZE=" +
                     std::to_string(info.world_size) + " but " +
                     (!addr ? "MASTER_ADDR" : "MASTER_PORT") + " is not set" +
                     (info.source == "mpirun" && !addr ? " and the ranks span several nodes" : "") +
                     ": export MASTER_ADDR=<host of rank 0> MASTER_PORT=<free port>" +
                     (info.source == "mpirun" ? " (mpirun -x MASTER_ADDR -x MASTER_PORT)" : ""));
  if (addr) {
    if (addr->empty()) throw TrainError("environment variable MASTER_ADDR is empty");
    info.master_addr = *addr;
  }
  if (port) {
    info.master_port = parse_int("MASTER_PORT", *port, 1);
    if (info.master_port > 65535)
      throw TrainError("environment variable MASTER_PORT='" + *port + "' is not a port (1-65535)");
  }
  return info;
}

}  // namespace gcu::trainer
