// runtime/dist/transport.h - the parameter-server RPCs over gRPC: a client with deadlines, a server that hands requests to a handler.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fluidc::dist {

/// A variable on the wire: Paddle's element type, dims, raw row-major bytes.
struct WireVar {
  std::string name;
  int dtype = 5;  ///< Paddle's VarType.Type (FP32 = 5)
  std::vector<int64_t> dims;
  std::string data;
};

enum class BarrierKind { kSend = 0, kFetch = 1, kComplete = 2 };

/// Bounds on every call: nothing waits forever (Paddle's default RPC
/// deadline was an hour; its users filed hangs on barriers and dead servers).
struct RpcOptions {
  std::chrono::milliseconds connect_timeout{10000};  ///< waiting for a server that starts later
  std::chrono::milliseconds deadline{10000};         ///< Send and Get
  std::chrono::milliseconds barrier_deadline{60000}; ///< a barrier waits for the slowest trainer
};

/// What a server does with requests (listen_and_serv's semantics live in
/// the handler, param_server.h). Errors: throw rt::Error; its message goes
/// back to the trainer.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void on_send(int trainer, std::vector<WireVar> vars) = 0;
  virtual std::vector<WireVar> on_get(int trainer, const std::vector<std::string>& names) = 0;
  /// May block until the other trainers arrive (a sync barrier).
  virtual void on_barrier(int trainer, BarrierKind kind) = 0;
};

/// One trainer's connection to one server. Every method throws rt::Error
/// naming the endpoint when the server cannot be reached, misses the
/// deadline or refuses the request.
class Client {
 public:
  Client(const std::string& endpoint, const RpcOptions& options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  /// Waits (bounded by connect_timeout) until the server accepts connections.
  void connect();
  void send(int trainer, const std::vector<WireVar>& vars);
  std::vector<WireVar> get(int trainer, const std::vector<std::string>& names);
  void barrier(int trainer, BarrierKind kind);
  const std::string& endpoint() const { return endpoint_; }

 private:
  struct Impl;
  std::string endpoint_;
  RpcOptions options_;
  std::unique_ptr<Impl> impl_;
};

/// A gRPC server on `endpoint` (port 0: any free port, see port()) passing
/// requests to `handler`, which must outlive it.
class Server {
 public:
  Server(const std::string& endpoint, Handler& handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  int port() const { return port_; }
  /// Stops accepting requests and waits for running ones (bounded).
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace fluidc::dist
