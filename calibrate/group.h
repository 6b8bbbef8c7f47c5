// The process group calibrate measures through: a thin layer over the trainer's runtime
// (trainer/runtime/rendezvous.h finds rank and world from torchrun / `gcu launch`,
// mpirun or srun variables; trainer/runtime/process_group.h does the TCPStore rendezvous
// and the Gloo process group). What calibrate adds, and the trainer's API does not have:
//   - a second process group on the same store for background traffic (the gamma step
//     all-reduces buckets while the foreground group synchronises the ranks);
//   - with backend "nccl", a c10d ProcessGroupNCCL on the same store (CUDA-capable
//     LibTorch only; the trainer uses gcu::cuda::NcclCommunicator instead; untested);
//   - max/sum of small double vectors and a string broadcast for the step bookkeeping.
// The header is torch-free: the c10d objects live in group_impl.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct GroupImpl;

struct GroupOptions {
  std::string backend = "gloo";  // "gloo" | "nccl"
  double timeout_s = 300;        // rendezvous and per-collective timeout
};

class Group {
 public:
  // Collective: every rank calls it. Rank, world size and the rendezvous address come
  // from the environment (trainer::rank_info_from_env; none set = one process). Throws
  // std::invalid_argument for an unknown backend, trainer::TrainError naming a malformed
  // variable, trainer::DistributedError when the rendezvous fails.
  explicit Group(const GroupOptions& opt);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  int rank() const;
  int world_size() const;
  const std::string& backend() const { return opt_.backend; }
  void barrier();
  // Element-wise max / min / sum over ranks (all ranks must call with equal lengths).
  std::vector<double> allreduce_max(std::vector<double> v);
  double allreduce_max(double x) { return allreduce_max(std::vector<double>{x})[0]; }
  std::vector<double> allreduce_min(std::vector<double> v);
  std::vector<double> allreduce_sum(std::vector<double> v);
  // Rank 0's string on every rank.
  std::string broadcast_string(const std::string& s);
  GroupImpl& impl() { return *impl_; }

 private:
  GroupOptions opt_;
  std::unique_ptr<GroupImpl> impl_;
};

}  // namespace gcu::calibrate
