// runtime/dist/param_server.h - listen_and_serv's synchronous protocol: gather every trainer's gradients, update once, serve parameters.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/dist/transport.h"

namespace fluidc::dist {

/// One server's state in sync mode. A step: every trainer sends its
/// gradient blocks and passes the send barrier; the last to arrive runs
/// `optimize` once (the optimize blocks: sum, scale 1/N, the optimizer on
/// the slices) and releases them all; trainers then get the parameters and
/// pass the fetch barrier. A barrier waits at most `barrier_timeout`, then
/// fails naming the trainers that never arrived, so a dead trainer stops
/// the others instead of hanging them.
class SyncServer : public Handler {
 public:
  /// Received gradients by name, one per trainer (trainer order); the
  /// parameters by name, updated in place.
  using OptimizeFn =
      std::function<void(const std::map<std::string, std::vector<WireVar>>& grads, std::map<std::string, WireVar>& params)>;

  SyncServer(int fanin, std::map<std::string, WireVar> params, OptimizeFn optimize,
             std::chrono::milliseconds barrier_timeout);

  void on_send(int trainer, std::vector<WireVar> vars) override;
  std::vector<WireVar> on_get(int trainer, const std::vector<std::string>& names) override;
  void on_barrier(int trainer, BarrierKind kind) override;

  /// Steps completed so far.
  int steps() const;

  /// Blocks the serving process until every trainer has sent kComplete
  /// (returns) or the job has failed (throws rt::Error naming why): a
  /// barrier timed out, the update failed, or a trainer that is not inside a
  /// call made no request for `idle_timeout` (before its first request,
  /// `start_timeout`): a killed trainer stops the server within that bound.
  void wait_done(std::chrono::milliseconds idle_timeout, std::chrono::milliseconds start_timeout);

  /// The parameters as they are now (the server's checkpoint and tests).
  std::map<std::string, WireVar> params() const;

 private:
  void check_trainer(int trainer) const;
  /// Notes that `trainer` is alive (under mu_).
  void seen(int trainer);
  const int fanin_;
  std::map<std::string, WireVar> params_;
  OptimizeFn optimize_;
  std::chrono::milliseconds timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<WireVar>> grads_;
  std::set<int> arrived_;
  int generation_ = 0;
  std::string failed_;  ///< set when a step failed: every waiting trainer gets it
  std::set<int> completed_;                                        ///< trainers that finished
  std::map<int, std::chrono::steady_clock::time_point> last_seen_;  ///< each trainer's latest request
  std::map<int, int> in_call_;  ///< trainers waiting inside a barrier (alive, waiting on others)
};

}  // namespace fluidc::dist
