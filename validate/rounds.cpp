// The rounds of a grid (rounds.h): cells run on the testbed, or their recorded logs read
// back (--reuse), and the rounds' compute probes.
#include "validate/rounds.h"

#include "validate/measure.h"

#include "util/output_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace gcu::validate {

namespace fs = std::filesystem;

// --reuse: the load and context switches of the earlier run, from its report (by cell id).
PriorLoads prior_loads(const ValidateOptions& o) {
  PriorLoads prior_load;
  if (o.reuse && fs::exists(o.out_dir + "/validate.json")) {
    try {
      const auto pj = nlohmann::json::parse(util::read_file(o.out_dir + "/validate.json"));
      // Only whole numbers are read as integers (a cast of 1e300 to int is undefined).
      for (const auto& c : pj.at("cells"))
        if (c.at("id").is_number_integer() && c.at("load_average").is_number() &&
            c.at("involuntary_context_switches").is_number_integer())
          prior_load[c.at("id").get<int>()] = {c.at("load_average").get<double>(),
                                               c.at("involuntary_context_switches").get<long>(),
                                               c.value("wall_s", 0.0)};
    } catch (const std::exception&) {
    }
  }
  return prior_load;
}

namespace {
// The statistic of one round's total iteration times (0 for a round without iterations).
double round_total(const TrainLog& tl, const std::string& statistic) {
  std::vector<double> v;
  for (const auto& b : tl.iters) v.push_back(at(b, Component::Total));
  return spread_of(std::move(v)).of(statistic);
}

// A round's (merged) log pooled into the cell's samples; returns the round's value.
double add_round(CellResult& r, const TrainLog& tl, const std::vector<std::string>& files,
                 const std::string& statistic) {
  r.samples.insert(r.samples.end(), tl.iters.begin(), tl.iters.end());
  r.straggler_wait_s.insert(r.straggler_wait_s.end(), tl.straggler_wait_s.begin(), tl.straggler_wait_s.end());
  r.rank_logs = r.rounds == 0 ? tl.rank_logs : std::min(r.rank_logs, tl.rank_logs);
  r.logs.insert(r.logs.end(), files.begin(), files.end());
  ++r.rounds;
  r.round_values.push_back(round_total(tl, statistic));
  std::vector<double> ref;  // the speed adjustment's reference (speed_adjust.h)
  for (const auto& b : tl.iters) ref.push_back(at(b, Component::Forward) + at(b, Component::Optimizer));
  r.round_reference.push_back(spread_of(std::move(ref)).of(statistic));
  return r.round_values.back();
}

// --reuse: the round's log of an earlier run of the same grid; nothing runs.
void reuse_round(RoundsRun& s, size_t idx, const std::string& tlog) {
  const Cell& c = s.cells[idx];
  CellResult& r = s.res[idx];
  try {
    std::vector<std::string> files;
    const TrainLog tl = read_run_logs(tlog, c.ranks, &files);
    if (tl.scheme != c.scheme || tl.mode != c.mode || tl.world_size != c.ranks || tl.batch_per_rank != c.batch)
      throw ValidateError(tlog + " is of another cell (" + tl.scheme + " " + tl.mode + ")");
    add_round(r, tl, files, s.o.statistic);
  } catch (const std::exception& e) {
    r.ok = false;
    r.message += std::string(r.message.empty() ? "" : "; ") + "--reuse: " + e.what();
  }
  const auto pl = s.prior_load.find(c.id);  // else not known from the logs
  s.load_sum[idx] = pl != s.prior_load.end() ? pl->second.load * s.o.repeats : std::nan("");
  r.nivcsw = pl != s.prior_load.end() ? pl->second.nivcsw : -1;
  r.wall_s = pl != s.prior_load.end() ? pl->second.wall_s : 0;
}

// The trainer log of a round that ran: its iterations pooled into the cell's samples.
void read_round_log(CellResult& r, const std::string& tlog, const std::string& statistic, std::ostream& log) {
  try {
    std::vector<std::string> files;
    const TrainLog tl = read_run_logs(tlog, r.cell.ranks, &files);
    const double value = add_round(r, tl, files, statistic);
    log << " " << value * 1e3 << " ms (" << statistic << ")\n";
  } catch (const std::exception& e) {
    r.ok = false;
    r.message += std::string(r.message.empty() ? "" : "; ") + e.what();
    log << " FAILED (log)\n";
  }
}

// Runs one cell for one round on the testbed and reads its log.
void run_round(RoundsRun& s, size_t idx, int round, const std::string& stem, const std::string& tlog) {
  const ValidateOptions& o = s.o;
  const Cell& c = s.cells[idx];
  CellResult& r = s.res[idx];
  std::remove(tlog.c_str());
  for (int k = 0; k < c.ranks; ++k) std::remove((tlog + ".rank" + std::to_string(k)).c_str());
  try {
    s.bed.configure(c.ranks, c.link);
  } catch (const ValidateError& e) {
    r.ok = false;
    r.message = e.what();
    return;
  }
  const std::vector<std::string> a = s.bed.command(o.gcu, c.ranks, train_command(o, c, tlog));
  const double load = load_average();
  s.log << "gcu validate: [" << s.run_no << "/" << s.total_runs << "] round " << round + 1 << ": " << c.label()
        << " (load " << load << ")" << std::flush;
  const ProcessResult p = run_process(a, stem + ".out", o.cell_timeout_s);
  s.load_sum[idx] += load;
  r.nivcsw += p.nivcsw;
  r.wall_s += p.wall_s;
  if (p.interrupted) {
    s.log << " interrupted\n";
    throw ValidateError("interrupted");
  }
  if (p.exit_code != 0 || p.timed_out) {
    r.ok = false;
    r.message += (r.message.empty() ? "" : "; ") + std::string("round ") + std::to_string(round + 1) + ": " +
                 (p.timed_out ? "timed out after " + std::to_string(int(o.cell_timeout_s)) + " s"
                              : "exit " + std::to_string(p.exit_code)) +
                 " (" + stem + ".out): " + p.output_tail.substr(0, 600);
    s.log << " FAILED (exit " << p.exit_code << ")\n";
    return;
  }
  read_round_log(r, tlog, s.o.statistic, s.log);
}

// A round's compute probe (compute_probe.h): calibrate's compute step in the calibration's
// placement (the first cell's ranks, unshaped); with --reuse, the recorded one's state.
void run_probe(RoundsRun& s, int round) {
  const ValidateOptions& o = s.o;
  ComputeProbe p;
  p.round = round;
  p.state_path = probe_state_path(o.out_dir, round);
  if (o.reuse) {
    if (!fs::exists(p.state_path)) return;  // a recording without probes
    read_probe_state(p);
    s.probes.push_back(p);
    return;
  }
  const std::string out = p.state_path.substr(0, p.state_path.size() - std::string(".state.json").size());
  std::error_code ec;
  fs::create_directories(fs::path(out).parent_path(), ec);
  std::remove(out.c_str());
  std::remove(p.state_path.c_str());
  const int ranks = s.cells.front().ranks;
  s.log << "gcu validate: round " << round + 1 << ": compute probe (gcu calibrate's compute step, " << ranks
        << " ranks, unshaped)" << std::flush;
  try {
    s.bed.configure(ranks, parse_link("unlimited"));
    const std::vector<std::string> a = s.bed.command(o.gcu, ranks, probe_args(o, out));
    const ProcessResult r = run_process(a, out + ".log", o.cell_timeout_s);
    p.wall_s = r.wall_s;
    if (r.interrupted) {
      s.log << " interrupted\n";
      throw ValidateError("interrupted");
    }
    if (r.exit_code != 0 || r.timed_out)
      p.message = (r.timed_out ? std::string("timed out") : "exit " + std::to_string(r.exit_code)) + " (" + out +
                  ".log): " + r.output_tail.substr(0, 400);
    else
      read_probe_state(p);
  } catch (const ValidateError& e) {
    if (interrupted()) throw;
    p.message = e.what();
  }
  if (p.ok) {
    for (const auto& e : p.entries)
      s.log << " batch " << e.batch_size << ": forward " << e.forward_s * 1e3 << " ms, backward " << e.backward_s * 1e3
            << " ms, optimizer " << e.optimizer_s * 1e3 << " ms";
    s.log << "\n";
  } else {
    s.log << " FAILED: " << p.message << " (the round's cells run; the predictions use the other probes)\n";
  }
  s.probes.push_back(p);
}

}  // namespace

// All rounds over all cells, each round in its own random order; the round's compute
// probe at a random place among them (--compute-probes on).
void run_rounds(RoundsRun& s) {
  s.total_runs = int(s.cells.size()) * s.o.repeats;
  for (int round = 0; round < s.o.repeats; ++round) {
    const bool excluded = std::find(s.o.exclude_rounds.begin(), s.o.exclude_rounds.end(), round + 1) !=
                          s.o.exclude_rounds.end();
    const bool probe = s.o.compute_probes == "on" && !excluded;
    const std::vector<int> order = round_order(int(s.cells.size()), s.o.seed, round);
    // The probe's place: after that many cells (the round's order is already random, so
    // the seed's next draw places it, independent of the cells).
    const size_t probe_at = size_t(round_order(int(s.cells.size()) + 1, s.o.seed + 0x9E37, round).front());
    size_t done = 0;
    for (int idx : order) {
      if (probe && done++ == probe_at) run_probe(s, round);
      const Cell& c = s.cells[size_t(idx)];
      ++s.run_no;
      if (interrupted()) throw ValidateError("interrupted");
      const std::string stem = s.o.out_dir + "/raw/c" + std::to_string(c.id) + "-round" + std::to_string(round);
      const std::string tlog = stem + ".jsonl";
      CellResult& r = s.res[size_t(idx)];
      const size_t before = r.round_values.size();
      if (s.o.reuse) {
        if (excluded) continue;
        reuse_round(s, size_t(idx), tlog);
      } else {
        run_round(s, size_t(idx), round, stem, tlog);
      }
      if (r.round_values.size() > before) r.round_ids.push_back(round);
    }
    if (probe && probe_at >= order.size()) run_probe(s, round);
  }
}

}  // namespace gcu::validate
