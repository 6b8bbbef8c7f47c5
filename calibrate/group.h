// The process group calibrate measures: rank/world from the launcher's environment
// (torchrun / `gcu launch` variables), a c10d TCPStore rendezvous and a ProcessGroupGloo
// (CPU tensors) or, in CUDA-capable LibTorch builds, ProcessGroupNCCL (device tensors;
// guarded, untested without a GPU). The header is torch-free: the c10d objects live in
// group_impl.h, included only by calibrate's .cpp files.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gcu::calibrate {

struct GroupImpl;

struct GroupOptions {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string backend = "gloo";  // "gloo" | "nccl"
  double timeout_s = 300;
};

// Reads RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (torchrun / gcu launch); none set =
// a single process. Throws std::invalid_argument naming a malformed variable.
GroupOptions group_options_from_env();

class Group {
 public:
  explicit Group(const GroupOptions& opt);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  int rank() const { return opt_.rank; }
  int world_size() const { return opt_.world_size; }
  const std::string& backend() const { return opt_.backend; }
  void barrier();
  // Element-wise max / sum over ranks (all ranks must call with equal lengths).
  std::vector<double> allreduce_max(std::vector<double> v);
  double allreduce_max(double x) { return allreduce_max(std::vector<double>{x})[0]; }
  std::vector<double> allreduce_sum(std::vector<double> v);
  // Rank 0's string on every rank.
  std::string broadcast_string(const std::string& s);
  GroupImpl& impl() { return *impl_; }

 private:
  GroupOptions opt_;
  std::unique_ptr<GroupImpl> impl_;
};

}  // namespace gcu::calibrate
