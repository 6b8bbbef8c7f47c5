// Who am I in the job: rank, world size, local rank and the rendezvous address, read
// from the launcher's environment. Torch-free (the calibrate tool and tests reuse it).
//
// Recognized, first complete set wins:
//   torchrun / gcu launch: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT
//   mpirun (Open MPI):     OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   srun (Slurm):          SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
// MASTER_ADDR and MASTER_PORT are required whenever WORLD_SIZE > 1. When they are not set,
// they come from the launcher where it says them: srun's first host of
// SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST, SLURM_NODELIST; "gpu[003-006]" -> gpu003)
// and port 29500 + SLURM_JOB_ID % 1000; mpirun's 127.0.0.1 when every rank is on this
// node (OMPI_COMM_WORLD_LOCAL_SIZE = OMPI_COMM_WORLD_SIZE) and port 29500. Otherwise
// export them (mpirun -x MASTER_ADDR -x MASTER_PORT).
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
  std::string master_from;         // "MASTER_ADDR", or where the launcher's variables gave it; "" = default
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();  // getenv

// Throws TrainError naming the missing or malformed variable.
RankInfo rank_info_from_env(const EnvLookup& env = process_env());

// The first host of a Slurm host list ("gpu[003-006,9],login1" -> "gpu003"); nullopt when
// it is not one.
std::optional<std::string> first_slurm_host(const std::string& list);

}  // namespace gcu::trainer
