// Who am I in the job: rank, world size, local rank and the rendezvous address, read
// from the launcher's environment. Torch-free (the calibrate tool and tests reuse it).
//
// Recognized, first complete set wins:
//   torchrun / gcu launch: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT
//   mpirun (Open MPI):     OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   srun (Slurm):          SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
// MASTER_ADDR and MASTER_PORT are required whenever WORLD_SIZE > 1 (mpirun and srun do
// not set them: export them, e.g. MASTER_ADDR=$(hostname) on the first node).
// No variables at all means a single process: rank 0 of 1.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace gcu::trainer {

struct RankInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string source = "default";  // "torchrun", "mpirun", "srun" or "default"
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();  // getenv

// Throws TrainError naming the missing or malformed variable.
RankInfo rank_info_from_env(const EnvLookup& env = process_env());

}  // namespace gcu::trainer
