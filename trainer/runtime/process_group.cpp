// TCPStore rendezvous and ProcessGroupGloo creation (process_group.h).
#include "trainer/runtime/process_group.h"

#include "trainer/runtime/train_options.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace gcu::trainer {

namespace {
std::chrono::milliseconds to_ms(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000.0));
}

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}
}  // namespace

DistContext init_process_group(const RankInfo& info, const ProcessGroupOptions& opt) {
  if (!(opt.timeout_s > 0))
    throw TrainError("process-group timeout must be > 0 s, got " + std::to_string(opt.timeout_s));
  DistContext ctx;
  ctx.info = info;
  ctx.timeout_s = opt.timeout_s;
  const std::string where = info.master_addr + ":" + std::to_string(info.master_port);

  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(info.master_port);
  so.isServer = info.rank == 0;
  so.numWorkers = static_cast<size_t>(info.world_size);
  so.waitWorkers = true;
  so.timeout = to_ms(opt.timeout_s);
  try {
    ctx.store = c10::make_intrusive<c10d::TCPStore>(info.master_addr, so);
  } catch (const std::exception& e) {
    throw DistributedError(
        "rank " + std::to_string(info.rank) + " of " + std::to_string(info.world_size) +
        ": rendezvous at " + where + " failed within " + std::to_string(opt.timeout_s) +
        " s (" + (info.rank == 0 ? "is the port in use, or did some rank not start?"
                                 : "is rank 0 running, and are MASTER_ADDR/MASTER_PORT right?") +
        "): " + std::string(e.what()).substr(0, 300));
  }

  auto go = c10d::ProcessGroupGloo::Options::create(to_ms(opt.timeout_s));
  std::string ifnames = opt.socket_ifname;
  if (ifnames.empty()) {
    if (const char* env = std::getenv("GLOO_SOCKET_IFNAME")) ifnames = env;
  }
  try {
    if (!ifnames.empty()) {
      for (const auto& name : split_commas(ifnames))
        go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
      ctx.gloo_interfaces = ifnames;
    } else if (is_loopback(info.master_addr)) {
      go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      ctx.gloo_interfaces = "127.0.0.1";
    } else {
      go->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      ctx.gloo_interfaces = "default (host name)";
    }
  } catch (const std::exception& e) {
    throw TrainError("cannot create a Gloo device for interface '" +
                     (ifnames.empty() ? std::string("default") : ifnames) +
                     "' (check GLOO_SOCKET_IFNAME): " + std::string(e.what()).substr(0, 300));
  }
  try {
    ctx.gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(ctx.store, info.rank,
                                                           info.world_size, go);
  } catch (const std::exception& e) {
    throw DistributedError("rank " + std::to_string(info.rank) +
                           ": connecting the Gloo process group (rendezvous " + where +
                           ", interface " + ctx.gloo_interfaces + ") failed within " +
                           std::to_string(opt.timeout_s) +
                           " s: " + std::string(e.what()).substr(0, 300));
  }
  return ctx;
}

std::vector<int> ranks_not_reporting_failure(DistContext& ctx, double wait_s) {
  std::vector<int> missing;
  try {
    ctx.store->setTimeout(to_ms(std::max(wait_s, 1.0)));
    ctx.store->set("gcu/failed/" + std::to_string(ctx.rank()), std::vector<uint8_t>{1});
    const auto deadline = std::chrono::steady_clock::now() + to_ms(wait_s);
    while (true) {
      missing.clear();
      for (int r = 0; r < ctx.world_size(); ++r)
        if (!ctx.store->check({"gcu/failed/" + std::to_string(r)})) missing.push_back(r);
      if (missing.empty() || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (const std::exception&) {
    return {0};  // the store (hosted by rank 0) is unreachable
  }
  // Rank 0 hosts the store: stay a little so that the others can read it.
  if (ctx.rank() == 0 && ctx.world_size() > 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  return missing;
}

}  // namespace gcu::trainer
