// runtime/dist/dist_main.cc - main() of distributed binaries: Paddle's launch variables and flags, the trainer on its shard, the server.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cli.h"
#include "runtime/dist/ops.h"
#include "runtime/atomic_file.h"
#include "runtime/driver_util.h"
#include "runtime/error.h"
#include "runtime/launch_flags.h"

namespace fluidc::dist {
namespace {

// The flags this layer takes (they override Paddle's variables); the rest go to the driver.
constexpr rt::LaunchFlag kDistFlags[] = {
    {"role", "TRAINING_ROLE", "TRAINER or PSERVER: checked against what this binary is"},
    {"trainer-id", "PADDLE_TRAINER_ID", "this trainer's id (must be the one it was split for); picks its data shard"},
    {"trainers", "PADDLE_TRAINERS_NUM", "trainers in the job (the data is split into this many shards)"},
    {"pservers", "PADDLE_PSERVERS_IP_PORT_LIST", "HOST:PORT,... of the servers, in the order they were split for"},
    {"current-endpoint", "PADDLE_CURRENT_ENDPOINT", "a server's HOST:PORT to listen on"},
    {"dist-timeout-ms", "FLUIDC_DIST_TIMEOUT_MS", "bound on waiting for a peer before the job fails (default 5000)"},
    {"connect-timeout-ms", "FLUIDC_DIST_CONNECT_TIMEOUT_MS", "bound on waiting for a server to start (default 30000)"},
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Reads the variables, then takes this layer's flags out of argv (the rest stay in `rest`).
LaunchConfig read_launch(int argc, char** argv, std::vector<char*>& rest, std::string& role) {
  std::map<std::string, std::string> v = rt::read_launch_flags(kDistFlags, argc, argv, rest);
  LaunchConfig c;
  role = v.count("role") ? v["role"] : "";
  if (v.count("trainer-id")) c.trainer_id = static_cast<int>(rt::launch_int("PADDLE_TRAINER_ID / --trainer-id", v["trainer-id"]));
  if (v.count("trainers")) c.trainers = static_cast<int>(rt::launch_int("PADDLE_TRAINERS_NUM / --trainers", v["trainers"]));
  if (c.trainers == 0) rt::fail("PADDLE_TRAINERS_NUM / --trainers must be at least 1");
  if (c.trainer_id >= 0 && c.trainers > 0 && c.trainer_id >= c.trainers)
    rt::fail(fmt::format("trainer id {} is not below the number of trainers {}", c.trainer_id, c.trainers));
  if (v.count("pservers")) c.pservers = split_list(v["pservers"]);
  if (v.count("current-endpoint")) c.current_endpoint = v["current-endpoint"];
  if (v.count("dist-timeout-ms")) c.timeout_ms = rt::launch_int("--dist-timeout-ms", v["dist-timeout-ms"]);
  if (v.count("connect-timeout-ms")) c.connect_timeout_ms = rt::launch_int("--connect-timeout-ms", v["connect-timeout-ms"]);
  if (c.timeout_ms < 100 || c.connect_timeout_ms < 100) rt::fail("the distributed timeouts must be at least 100 ms");
  return c;
}

void print_dist_help(bool trainer) {
  std::printf("distributed launch (%s), Paddle's environment variables or these flags (flags win):\n",
              trainer ? "trainer" : "parameter server");
  rt::print_launch_flags(kDistFlags);
  std::printf("\n");
}

int run_server(rt::Model& model, int argc, char** argv) {
  rt::Flags flags(argc, argv, {"threads", "checkpoint", "checkpoint-every", "resume"}, {}, {});
  rt::apply_threads_flag(flags);
  LaunchConfig c = config();
  c.checkpoint = flags.get("checkpoint");
  c.checkpoint_every = flags.get_int("checkpoint-every", 0);
  c.resume = flags.get("resume");
  if (c.checkpoint_every > 0 && c.checkpoint.empty()) rt::fail("--checkpoint-every needs --checkpoint FILE");
  if (!c.checkpoint.empty()) rt::check_writable_target(c.checkpoint);
  configure(c);
  // The server's own startup initialises its slices; its received-gradient
  // variables get values only from trainers, so no persistable check here.
  if (model.info().has_startup) model.startup();
  rt::g_current_op = nullptr;
  model.run();  // block 0: listen_and_serv, until every trainer completes
  return 0;
}

int run_trainer_shard(rt::Model& model, std::vector<char*> args) {
  const LaunchConfig& c = config();
  std::string shard;
  if (c.trainers > 1) {
    if (c.trainer_id < 0) rt::fail("PADDLE_TRAINERS_NUM / --trainers is given without PADDLE_TRAINER_ID / --trainer-id");
    shard = fmt::format("--shard={}/{}", c.trainer_id, c.trainers);
    args.push_back(shard.data());
  }
  const int rc = rt::run_trainer(model, static_cast<int>(args.size()), args.data());
  if (rc == 0) complete_all();
  return rc;
}

}  // namespace

int run_dist_main(int argc, char** argv, const rt::ModelInfo& info) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--version") == 0) return rt::run_model_main(argc, argv, info);
  try {
    std::vector<char*> rest;
    std::string role;
    configure(read_launch(argc, argv, rest, role));
    const bool trainer = info.is_trainer;
    if (rt::wants_help(argc, argv)) print_dist_help(trainer);
    if (!role.empty() && role != (trainer ? "TRAINER" : "PSERVER"))
      rt::fail(fmt::format("TRAINING_ROLE / --role is {} but this binary is a {} (built from {})", role,
                           trainer ? "TRAINER" : "PSERVER", info.program));
    std::unique_ptr<rt::Model> model(info.create());
    if (trainer) return run_trainer_shard(*model, rest);
    if (rt::wants_help(argc, argv)) {
      std::printf("usage: %s [--threads N] [--checkpoint FILE [--checkpoint-every N]] [--resume FILE]\n\n"
                  "Parameter server compiled by fluidc %s from %s.\n\n"
                  "  --checkpoint FILE   write this server's state (its parameter slices, optimizer state,\n"
                  "                      learning rate; Paddle's combined format) atomically at the end\n"
                  "  --checkpoint-every N  also after every N-th update\n"
                  "  --resume FILE       start from such a checkpoint instead of the startup values\n",
                  argv[0], info.fluidc_version, info.program);
      return 0;
    }
    return run_server(*model, static_cast<int>(rest.size()), rest.data());
  } catch (const rt::Error& e) {
    if (rt::g_current_op)
      std::fprintf(stderr, "%s: error: block %d, op %d (%s): %s\n", argv[0], rt::g_current_op->block,
                   rt::g_current_op->op, rt::g_current_op->type, e.what());
    else
      std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error (a fluidc bug, please report it): %s\n", argv[0], e.what());
    return 3;
  }
}

}  // namespace fluidc::dist
