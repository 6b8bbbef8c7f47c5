// Rank discovery from launcher environment variables (rendezvous.h).
#include "trainer/runtime/rendezvous.h"

#include "trainer/runtime/train_options.h"

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
}  // namespace

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
  const auto addr = env("MASTER_ADDR");
  const auto port = env("MASTER_PORT");
  if (info.world_size > 1 && (!addr || !port))
    throw TrainError("rank environment from " + info.source + " says WORLD_SIZE=" +
                     std::to_string(info.world_size) + " but " +
                     (!addr ? "MASTER_ADDR" : "MASTER_PORT") +
                     " is not set: export MASTER_ADDR=<host of rank 0> MASTER_PORT=<free port>");
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
