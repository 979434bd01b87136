// runtime/dist/param_server.h - listen_and_serv's protocols: sync (gather every trainer's gradients, update once) and async (apply each on arrival).
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

/// What sync and async servers share: the trainers' liveness (each one's
/// latest request, whether it is inside a waiting call), completion, and
/// the job's failure, which every later request and wait_done report.
class ServerBase : public Handler {
 public:
  explicit ServerBase(int fanin) : fanin_(fanin) {}

  /// Blocks the serving process until every trainer has sent kComplete
  /// (returns) or the job has failed (throws rt::Error naming why): a
  /// barrier timed out, an update failed, or a trainer that is not inside a
  /// call made no request for `idle_timeout` (before its first request,
  /// `start_timeout`): a killed trainer stops the server within that bound.
  void wait_done(std::chrono::milliseconds idle_timeout, std::chrono::milliseconds start_timeout);

 protected:
  /// Where the job is, for messages ("step 12", "update 40"); under mu_.
  virtual std::string progress() const = 0;
  void check_trainer(int trainer) const;
  /// Notes that `trainer` is alive (under mu_).
  void seen(int trainer);
  /// The start of every request: a known trainer, alive; fails if the job has (under mu_).
  void enter(int trainer);
  /// Records a kComplete from `trainer` (under mu_).
  void complete(int trainer);

  const int fanin_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string failed_;  ///< set when the job failed: every later request gets it
  std::set<int> completed_;                                        ///< trainers that finished
  std::map<int, std::chrono::steady_clock::time_point> last_seen_;  ///< each trainer's latest request
  std::map<int, int> in_call_;  ///< trainers waiting inside a barrier (alive, waiting on others)
};

/// One server's state in sync mode. A step: every trainer sends its
/// gradient blocks and passes the send barrier; the last to arrive runs
/// `optimize` once (the optimize blocks: sum, scale 1/N, the optimizer on
/// the slices) and releases them all; trainers then get the parameters and
/// pass the fetch barrier. A barrier waits at most `barrier_timeout`, then
/// fails naming the trainers that never arrived, so a dead trainer stops
/// the others instead of hanging them.
class SyncServer : public ServerBase {
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

  /// The parameters as they are now (the server's checkpoint and tests).
  std::map<std::string, WireVar> params() const;

 private:
  std::string progress() const override;
  std::map<std::string, WireVar> params_;
  OptimizeFn optimize_;
  std::chrono::milliseconds timeout_;
  std::map<std::string, std::vector<WireVar>> grads_;
  std::set<int> arrived_;
  int generation_ = 0;
};

/// One server's state in async mode (Paddle's DistributedMode ASYNC): each
/// gradient is applied alone as it arrives (`apply` runs its optimize block
/// on it: no sum over trainers, no barrier), one at a time under the
/// server's lock, and a Get returns the parameters as they are at that
/// moment (`read`). Barriers are accepted and do not wait.
class AsyncServer : public ServerBase {
 public:
  using ApplyFn = std::function<void(const WireVar& grad)>;
  /// A parameter's current value; throws rt::Error for a name it does not serve.
  using ReadFn = std::function<WireVar(const std::string& name)>;

  AsyncServer(int fanin, ApplyFn apply, ReadFn read);

  void on_send(int trainer, std::vector<WireVar> vars) override;
  std::vector<WireVar> on_get(int trainer, const std::vector<std::string>& names) override;
  void on_barrier(int trainer, BarrierKind kind) override;

  /// Gradients applied so far.
  int64_t updates() const;

 private:
  std::string progress() const override;
  ApplyFn apply_;
  ReadFn read_;
  int64_t updates_ = 0;
};

}  // namespace fluidc::dist
