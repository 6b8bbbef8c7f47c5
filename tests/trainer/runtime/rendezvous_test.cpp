// Tests for rank discovery from launcher environments (trainer/runtime/rendezvous.h).
#include "trainer/runtime/rendezvous.h"
#include "trainer/runtime/train_options.h"

#include <gtest/gtest.h>

#include <map>

namespace gcu::trainer {
namespace {

EnvLookup fake(std::map<std::string, std::string> m) {
  return [m](const std::string& k) -> std::optional<std::string> {
    auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Rendezvous, NoVariablesMeansSingleProcess) {
  const auto i = rank_info_from_env(fake({}));
  EXPECT_EQ(i.rank, 0);
  EXPECT_EQ(i.world_size, 1);
  EXPECT_EQ(i.source, "default");
}

TEST(Rendezvous, Torchrun) {
  const auto i = rank_info_from_env(fake({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"},
                                          {"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29600"}}));
  EXPECT_EQ(i.rank, 3);
  EXPECT_EQ(i.world_size, 4);
  EXPECT_EQ(i.local_rank, 1);
  EXPECT_EQ(i.master_addr, "node0");
  EXPECT_EQ(i.master_port, 29600);
  EXPECT_EQ(i.source, "torchrun");
}

TEST(Rendezvous, MpirunAndSrun) {
  auto m = rank_info_from_env(fake({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                                    {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                    {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1234"}}));
  EXPECT_EQ(m.source, "mpirun");
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.local_rank, 1);
  auto s = rank_info_from_env(fake({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"},
                                    {"SLURM_LOCALID", "1"}, {"MASTER_ADDR", "a"},
                                    {"MASTER_PORT", "1234"}}));
  EXPECT_EQ(s.source, "srun");
  EXPECT_EQ(s.rank, 5);
  EXPECT_EQ(s.world_size, 8);
}

TEST(Rendezvous, TorchrunWinsOverSlurm) {
  auto i = rank_info_from_env(fake({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"SLURM_PROCID", "5"},
                                    {"SLURM_NTASKS", "8"}}));
  EXPECT_EQ(i.source, "torchrun");
  EXPECT_EQ(i.world_size, 1);
}

void expect_error(const std::map<std::string, std::string>& env, const std::string& needle) {
  try {
    rank_info_from_env(fake(env));
    FAIL() << "no error; expected one mentioning " << needle;
  } catch (const TrainError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Rendezvous, ClearErrors) {
  expect_error({{"RANK", "0"}}, "WORLD_SIZE is not set");
  expect_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "MASTER_ADDR");
  expect_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "x"}}, "MASTER_PORT");
  expect_error({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "x"}, {"MASTER_PORT", "1"}},
               "RANK=2 is not below WORLD_SIZE=2");
  expect_error({{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "RANK='x'");
  expect_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "x"}, {"MASTER_PORT", "70000"}},
               "MASTER_PORT='70000'");
  expect_error({{"SLURM_NTASKS", "2"}}, "SLURM_PROCID is not set");
}

}  // namespace
}  // namespace gcu::trainer

namespace gcu::trainer {
namespace {

TEST(Rendezvous, SrunGivesRankZerosHostAndAPortFromTheJob) {
  const auto s = rank_info_from_env(fake({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "3"},
                                          {"SLURM_STEP_NODELIST", "gpu[007-008]"}, {"SLURM_JOB_NODELIST", "gpu[001-009]"},
                                          {"SLURM_JOB_ID", "123456"}}));
  EXPECT_EQ(s.master_addr, "gpu007");
  EXPECT_EQ(s.master_port, 29500 + 456);
  EXPECT_EQ(s.master_from, "SLURM_STEP_NODELIST (its first host)");
  // MASTER_ADDR and MASTER_PORT, when set, win.
  const auto e = rank_info_from_env(fake({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"},
                                          {"SLURM_JOB_NODELIST", "n1,n2"}, {"MASTER_ADDR", "head"}, {"MASTER_PORT", "4000"}}));
  EXPECT_EQ(e.master_addr, "head");
  EXPECT_EQ(e.master_port, 4000);
  EXPECT_EQ(e.master_from, "MASTER_ADDR");
}

TEST(Rendezvous, MpirunOnOneNodeUsesLoopbackAndAcrossNodesAsksForMasterAddr) {
  const auto m = rank_info_from_env(fake({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                                          {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}));
  EXPECT_EQ(m.master_addr, "127.0.0.1");
  EXPECT_EQ(m.master_port, 29500);
  expect_error({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}},
               "the ranks span several nodes");
}

TEST(Rendezvous, FirstSlurmHost) {
  EXPECT_EQ(first_slurm_host("node01"), "node01");
  EXPECT_EQ(first_slurm_host("gpu[003-006,9],login1"), "gpu003");
  EXPECT_EQ(first_slurm_host("rack[2-3]-n[01-04]"), "rack2-n01");
  EXPECT_EQ(first_slurm_host("a,b"), "a");
  EXPECT_EQ(first_slurm_host("bad[1-2"), std::nullopt);
  EXPECT_EQ(first_slurm_host("x;rm -rf /"), std::nullopt);
  EXPECT_EQ(first_slurm_host(""), std::nullopt);
}

}  // namespace
}  // namespace gcu::trainer
