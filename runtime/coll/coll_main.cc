// runtime/coll/coll_main.cc - main() of collective binaries: joins the MPI job, checks Paddle's launch variables, runs the trainer on this rank's shard.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/coll/comm.h"
#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/launch_flags.h"

namespace fluidc::coll {
namespace {

// This layer's flags (they override the variables); the rest go to the trainer driver.
constexpr rt::LaunchFlag kCollFlags[] = {
    {"trainer-id", "PADDLE_TRAINER_ID", "must equal this process's MPI rank when given"},
    {"trainers", "PADDLE_TRAINERS_NUM", "must equal the MPI job's size when given"},
    {"dist-timeout-ms", "FLUIDC_DIST_TIMEOUT_MS", "bound on one collective before the job fails (default 5000)"},
    {"connect-timeout-ms", "FLUIDC_DIST_CONNECT_TIMEOUT_MS", "bound on the collectives up to the first all-reduce (default 30000)"},
};

CommConfig comm_config(std::map<std::string, std::string>& v) {
  CommConfig c;
  if (v.count("dist-timeout-ms")) c.timeout_ms = rt::launch_int("--dist-timeout-ms", v["dist-timeout-ms"]);
  if (v.count("connect-timeout-ms")) c.first_timeout_ms = rt::launch_int("--connect-timeout-ms", v["connect-timeout-ms"]);
  if (c.timeout_ms < 100 || c.first_timeout_ms < 100) rt::fail("the distributed timeouts must be at least 100 ms");
  return c;
}

// mpirun decides rank and size; Paddle's variables, when a launcher sets them, must agree.
void check_launch(std::map<std::string, std::string>& v) {
  const int rank = comm_rank(), size = comm_size();
  if (v.count("trainers") && rt::launch_int("PADDLE_TRAINERS_NUM / --trainers", v["trainers"]) != size)
    rt::fail(fmt::format("PADDLE_TRAINERS_NUM / --trainers is {} but the MPI job has {} ranks (mpirun -np)",
                         v["trainers"], size));
  if (v.count("trainer-id") && rt::launch_int("PADDLE_TRAINER_ID / --trainer-id", v["trainer-id"]) != rank)
    rt::fail(fmt::format("PADDLE_TRAINER_ID / --trainer-id is {} but this process is MPI rank {}", v["trainer-id"], rank));
}

void print_help(const char* argv0) {
  std::printf("collective trainer: run under mpirun, e.g. `mpirun -np 2 %s --data ...`; every rank takes its\n"
              "shard of the data (rank I of N: batches I, I+N, ...). Paddle's variables or these flags:\n",
              argv0);
  rt::print_launch_flags(kCollFlags);
  std::printf("\n");
}

}  // namespace

int run_coll_main(int argc, char** argv, const rt::ModelInfo& info, const DeviceHooks* hooks) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--version") == 0) return rt::run_model_main(argc, argv, info);
  if (rt::wants_help(argc, argv)) {
    print_help(argv[0]);
    return rt::run_model_main(argc, argv, info);
  }
  int rc = 1;
  try {
    std::vector<char*> rest;
    auto v = rt::read_launch_flags(kCollFlags, argc, argv, rest);
    init_comm(comm_config(v));
    check_launch(v);
    if (!info.is_trainer) rt::fail(fmt::format("{} holds collective ops but is not a training program", info.program));
    check_same_program(info.program, info.program_sha256);
    if (hooks && hooks->start) hooks->start();
    std::string shard;
    if (comm_size() > 1) {
      shard = fmt::format("--shard={}/{}", comm_rank(), comm_size());
      rest.push_back(shard.data());
    }
    std::unique_ptr<rt::Model> model(info.create());
    rc = rt::run_trainer(*model, static_cast<int>(rest.size()), rest.data());
  } catch (const rt::Error& e) {
    const std::string who = comm_up() ? fmt::format("rank {} of {}: ", comm_rank(), comm_size()) : "";
    if (rt::g_current_op)
      std::fprintf(stderr, "%s: error: %sblock %d, op %d (%s): %s\n", argv[0], who.c_str(), rt::g_current_op->block,
                   rt::g_current_op->op, rt::g_current_op->type, e.what());
    else
      std::fprintf(stderr, "%s: error: %s%s\n", argv[0], who.c_str(), e.what());
    rc = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error (a fluidc bug, please report it): %s\n", argv[0], e.what());
    rc = 3;
  }
  // A failed rank takes the job down at once (the others may be waiting for it in a collective).
  if (rc != 0) {
    if (hooks && hooks->abort) hooks->abort();
    abort_comm(rc);
  }
  // Every rank done before a device communicator goes (a peer may still be inside a collective on it).
  end_of_run_barrier();
  if (hooks && hooks->finish) hooks->finish();
  finalize_comm();
  return 0;
}

}  // namespace fluidc::coll
