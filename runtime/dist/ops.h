// runtime/dist/ops.h - what generated code of the communication ops calls: send/recv/barriers on a trainer, listen_and_serv on a server.
//
// Included (through kernels/dist.h) only by programs that hold communication
// ops; those binaries link fluidc_dist and gRPC, no other binary does.
// Endpoints in the calls are the ones compiled into the program (`fluidc opt
// --pservers`); the launch configuration (Paddle's environment variables or
// flags, see configure()) may map them to other addresses, position by position.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/tensor.h"

namespace fluidc::dist {

/// The launch configuration of this process (PADDLE_* environment
/// variables, overridden by flags; see run_dist_main).
struct LaunchConfig {
  int trainer_id = -1;                  ///< -1: the one compiled in
  int trainers = -1;                    ///< -1: as compiled (Fanin)
  std::vector<std::string> pservers;    ///< empty: the compiled endpoints
  std::string current_endpoint;         ///< a server's listening address; empty: compiled
  int64_t timeout_ms = 5000;            ///< barrier wait and server idle bound (a dead peer is detected within it)
  int64_t connect_timeout_ms = 30000;   ///< waiting for a server that starts later
  std::string checkpoint;               ///< a server: write its state here (atomically), see listen_and_serv
  int64_t checkpoint_every = 0;         ///< ... every this many steps (0: only at the end)
  std::string resume;                   ///< a server: start from this checkpoint instead of its startup values
};
void configure(const LaunchConfig& c);
const LaunchConfig& config();

/// send: xs[i] (program name names[i]) to server epmap[i]. `all`: the
/// program's endpoint list (its barriers'), the order launch lists follow.
void send(int trainer_id, const char* const* names, const rt::Tensor* const* xs, const char* const* epmap, int n,
          const char* const* all, int num_all);
/// recv: outs[i] = server epmap[i]'s variable names[i].
void recv(int trainer_id, const char* const* names, rt::Tensor* const* outs, const char* const* epmap, int n,
          const char* const* all, int num_all);
/// send_barrier (kind 0) / fetch_barrier (kind 1) on every endpoint of the list.
void barrier(int trainer_id, int kind, const char* const* endpoints, int n);
/// Tells every server this trainer talked to that it is done (at a clean exit).
void complete_all();

/// What listen_and_serv needs from the generated server program.
struct ServeSpec {
  const char* endpoint;               ///< compiled endpoint (PADDLE_CURRENT_ENDPOINT overrides)
  int fanin;                          ///< trainers
  int distributed_mode;               ///< 0 sync, 1 async (Paddle's DistributedMode)
  const char* const* recv_names;      ///< gradients trainers send (listen_and_serv's X)
  rt::Tensor* const* recv_vars;
  int num_recv;
  const char* const* serve_names;     ///< what trainers may Get (the other block-0 variables)
  rt::Tensor* const* serve_vars;
  int num_serve;
  std::function<void()> optimize;     ///< runs the optimize blocks once (sync mode)
  const int* recv_block;              ///< async mode: the optimize block of each received gradient
  std::function<void(int)> run_block; ///< async mode: runs one optimize block
};
/// Serves until every trainer has completed (returns) or the job fails (throws rt::Error).
void listen_and_serv(const ServeSpec& spec);

/// main() of generated binaries with communication ops: reads the launch
/// configuration and runs the trainer driver (on this trainer's shard of the
/// data) or the server.
int run_dist_main(int argc, char** argv, const rt::ModelInfo& info);

}  // namespace fluidc::dist
