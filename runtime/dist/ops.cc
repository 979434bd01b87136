// runtime/dist/ops.cc - the communication ops at run time: one client per server, endpoints as launched, listen_and_serv over SyncServer or AsyncServer.
#include "runtime/dist/ops.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "runtime/dist/param_server.h"
#include "runtime/dist/transport.h"
#include "runtime/error.h"
#include "runtime/tensor_record.h"

namespace fluidc::dist {
namespace {

LaunchConfig& mutable_config() {
  static LaunchConfig c;
  return c;
}

RpcOptions rpc_options() {
  const LaunchConfig& c = config();
  RpcOptions o;
  o.connect_timeout = std::chrono::milliseconds(c.connect_timeout_ms);
  // A barrier, or a Get waiting for the step's update, returns when the
  // server releases it or fails it (its own bound, timeout_ms); the client's
  // deadline only catches a server that is stalled or cut off (a dropped
  // link gives no error, only silence), and must stay under the 10 s in
  // which every process of a broken job exits (test dist.netns_fault).
  o.deadline = std::chrono::milliseconds(c.timeout_ms + 2000);
  o.barrier_deadline = o.deadline;
  return o;
}

// The trainer's connections, by launched endpoint; made (and connected,
// with the bounded retry) on first use. Generated code runs one op at a
// time, but a library user may run instances on threads: one lock.
struct Clients {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Client>> by_endpoint;
  int trainer = 0;  ///< the id calls went out with (one per process; for complete_all)
};
Clients& clients() {
  static Clients c;
  return c;
}

// A compiled endpoint as launched: position k of the program's list maps
// to position k of the launch list (PADDLE_PSERVERS_IP_PORT_LIST).
std::string launched(const char* compiled, const char* const* all, int num_all) {
  const auto& eps = config().pservers;
  if (eps.empty()) return compiled;
  if (static_cast<int>(eps.size()) != num_all)
    rt::fail(fmt::format("the launch names {} parameter servers (PADDLE_PSERVERS_IP_PORT_LIST / --pservers) but this "
                         "program was split for {}",
                         eps.size(), num_all));
  for (int k = 0; k < num_all; ++k)
    if (std::strcmp(all[k], compiled) == 0) return eps[k];
  rt::fail(fmt::format("endpoint {} is not among the program's parameter servers", compiled));
}

Client& client(const std::string& endpoint, int trainer_id) {
  Clients& c = clients();
  std::lock_guard<std::mutex> lock(c.mu);
  auto& slot = c.by_endpoint[endpoint];
  if (!slot) {
    auto made = std::make_unique<Client>(endpoint, rpc_options());
    made->connect();
    slot = std::move(made);
    c.trainer = trainer_id;
  }
  return *slot;
}

// The id a call goes out with: the compiled one, which must be the launched one.
int trainer(int compiled) {
  const int launched_id = config().trainer_id;
  if (launched_id >= 0 && launched_id != compiled)
    rt::fail(fmt::format("this binary was compiled for trainer {} (fluidc opt --trainer-id {}) but was launched as "
                         "trainer {} (PADDLE_TRAINER_ID / --trainer-id)",
                         compiled, compiled, launched_id));
  return compiled;
}

WireVar to_wire(const std::string& name, const rt::Tensor& t) {
  if (!t.initialized()) rt::fail(fmt::format("send: '{}' has no value", name));
  WireVar w;
  w.name = name;
  w.dtype = static_cast<int>(t.dtype());
  for (int i = 0; i < t.rank(); ++i) w.dims.push_back(t.dim(i));
  w.data.assign(static_cast<const char*>(t.raw()), t.nbytes());
  return w;
}

// A variable off the wire is untrusted: its type, dims and size are checked before any allocation.
void from_wire(const WireVar& w, rt::Tensor& t, const std::string& from) {
  if (w.dims.size() > static_cast<size_t>(rt::Shape::kMaxRank))
    rt::fail(fmt::format("'{}' from {}: rank {} is too high", w.name, from, w.dims.size()));
  if (!rt::dtype_is_valid(w.dtype)) rt::fail(fmt::format("'{}' from {}: unknown element type {}", w.name, from, w.dtype));
  const rt::DType dtype = static_cast<rt::DType>(w.dtype);
  uint64_t bytes = rt::dtype_size(dtype);
  for (int64_t d : w.dims)
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      rt::fail(fmt::format("'{}' from {}: bad dims", w.name, from));
  if (bytes != w.data.size())
    rt::fail(fmt::format("'{}' from {}: {} bytes of data, its dims and type need {}", w.name, from, w.data.size(), bytes));
  t.resize(rt::Shape::from(w.dims.data(), static_cast<int>(w.dims.size())), dtype);
  std::memcpy(t.raw(), w.data.data(), w.data.size());
}

}  // namespace

void configure(const LaunchConfig& c) { mutable_config() = c; }
const LaunchConfig& config() { return mutable_config(); }

void send(int trainer_id, const char* const* names, const rt::Tensor* const* xs, const char* const* epmap, int n,
          const char* const* all, int num_all) {
  const int id = trainer(trainer_id);
  // One request per server, its variables together.
  std::map<std::string, std::vector<WireVar>> per_server;
  for (int i = 0; i < n; ++i) per_server[launched(epmap[i], all, num_all)].push_back(to_wire(names[i], *xs[i]));
  for (auto& [ep, vars] : per_server) client(ep, id).send(id, vars);
}

void recv(int trainer_id, const char* const* names, rt::Tensor* const* outs, const char* const* epmap, int n,
          const char* const* all, int num_all) {
  const int id = trainer(trainer_id);
  for (int i = 0; i < n; ++i) {
    const std::string ep = launched(epmap[i], all, num_all);
    std::vector<WireVar> got = client(ep, id).get(id, {names[i]});
    if (got.size() != 1 || got[0].name != names[i])
      rt::fail(fmt::format("parameter server {}: asked for '{}', got {} variable(s)", ep, names[i], got.size()));
    from_wire(got[0], *outs[i], "parameter server " + ep);
  }
}

void barrier(int trainer_id, int kind, const char* const* endpoints, int n) {
  const int id = trainer(trainer_id);
  for (int i = 0; i < n; ++i)
    client(launched(endpoints[i], endpoints, n), id).barrier(id, kind == 0 ? BarrierKind::kSend : BarrierKind::kFetch);
}

void complete_all() {
  Clients& c = clients();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto& [ep, cl] : c.by_endpoint) cl->barrier(c.trainer, BarrierKind::kComplete);
}

void listen_and_serv(const ServeSpec& spec) {
  if (spec.distributed_mode != 0 && spec.distributed_mode != 1)
    rt::fail(fmt::format("listen_and_serv: distributed_mode {} (half-async or geo) has no runtime; split with --sync "
                         "or --async",
                         spec.distributed_mode));
  const LaunchConfig& c = config();
  if (c.trainers >= 0 && c.trainers != spec.fanin)
    rt::fail(fmt::format("this server was split for {} trainers (Fanin) but the launch says {} (PADDLE_TRAINERS_NUM "
                         "/ --trainers)",
                         spec.fanin, c.trainers));
  const std::string endpoint = c.current_endpoint.empty() ? spec.endpoint : c.current_endpoint;
  std::map<std::string, int> recv_index, serve_index;
  for (int i = 0; i < spec.num_recv; ++i) recv_index[spec.recv_names[i]] = i;
  // The server's state: what its startup initialised (parameter slices,
  // optimizer state, learning rate); a checkpoint holds exactly these.
  std::vector<std::string> state_names;
  std::vector<rt::Tensor*> state_vars;
  for (int i = 0; i < spec.num_serve; ++i) {
    serve_index[spec.serve_names[i]] = i;
    if (spec.serve_vars[i]->initialized()) state_names.push_back(spec.serve_names[i]), state_vars.push_back(spec.serve_vars[i]);
  }
  if (!c.resume.empty()) {
    std::vector<rt::Tensor> loaded(state_vars.size());
    std::vector<rt::Tensor*> outs;
    for (auto& t : loaded) outs.push_back(&t);
    rt::read_combined_params(c.resume, state_names, outs);
    for (size_t i = 0; i < loaded.size(); ++i) {
      if (loaded[i].shape() != state_vars[i]->shape() || loaded[i].dtype() != state_vars[i]->dtype())
        rt::fail(fmt::format("--resume {}: '{}' is {}{}, this server's is {}{}", c.resume, state_names[i],
                             rt::dtype_name(loaded[i].dtype()), loaded[i].shape().str(),
                             rt::dtype_name(state_vars[i]->dtype()), state_vars[i]->shape().str()));
      *state_vars[i] = std::move(loaded[i]);
    }
    std::printf("parameter server: resumed %zu variables from %s\n", state_names.size(), c.resume.c_str());
  }
  auto save = [&] {
    std::vector<const rt::Tensor*> ts(state_vars.begin(), state_vars.end());
    rt::write_combined_params(c.checkpoint, state_names, ts);
  };
  const char* const mode = spec.distributed_mode == 1 ? "async" : "sync";
  auto announce = [&] {
    std::printf("parameter server listening on %s for %d trainer%s (%s), receiving %d gradients\n",
                endpoint.c_str(), spec.fanin, spec.fanin == 1 ? "" : "s", mode, spec.num_recv);
    std::fflush(stdout);
  };
  auto finish = [&] {
    if (c.checkpoint.empty()) return;
    save();
    std::printf("parameter server %s: saved %zu variables to %s\n", endpoint.c_str(), state_names.size(),
                c.checkpoint.c_str());
  };
  int64_t updates = 0;
  if (spec.distributed_mode == 1) {
    // Async: the program's own variables are the state, read and updated in
    // place under the server's lock.
    const std::set<std::string> state(state_names.begin(), state_names.end());
    auto apply = [&](const WireVar& w) {
      auto it = recv_index.find(w.name);
      if (it == recv_index.end()) rt::fail(fmt::format("a trainer sent '{}', which this server does not receive", w.name));
      from_wire(w, *spec.recv_vars[it->second], "a trainer");
      spec.run_block(spec.recv_block[it->second]);
      if (!c.checkpoint.empty() && c.checkpoint_every > 0 && ++updates % c.checkpoint_every == 0) save();
    };
    auto read = [&](const std::string& name) {
      if (!state.count(name)) rt::fail(fmt::format("no parameter '{}' on this server", name));
      return to_wire(name, *spec.serve_vars[serve_index.at(name)]);
    };
    AsyncServer handler(spec.fanin, apply, read);
    Server server(endpoint, handler);
    announce();
    try {
      handler.wait_done(std::chrono::milliseconds(c.timeout_ms), std::chrono::milliseconds(c.connect_timeout_ms));
    } catch (const rt::Error&) {
      // No trainer waits in a barrier here to be told why the job failed:
      // keep answering (with the reason) a moment, so the live trainers'
      // next requests name the lost trainer rather than a vanished server.
      std::this_thread::sleep_for(std::chrono::milliseconds(1000));
      throw;
    }
    std::printf("parameter server %s: %lld gradient updates, every trainer completed\n", endpoint.c_str(),
                static_cast<long long>(handler.updates()));
    return finish();
  }
  std::map<std::string, WireVar> params;
  for (size_t i = 0; i < state_names.size(); ++i) params[state_names[i]] = to_wire(state_names[i], *state_vars[i]);
  auto optimize = [&](const std::map<std::string, std::vector<WireVar>>& grads, std::map<std::string, WireVar>& out) {
    std::vector<bool> got(spec.num_recv, false);
    for (const auto& [name, copies] : grads) {
      auto it = recv_index.find(name);
      if (it == recv_index.end()) rt::fail(fmt::format("a trainer sent '{}', which this server does not receive", name));
      for (const auto& w : copies)
        if (!w.name.empty()) from_wire(w, *spec.recv_vars[it->second], "a trainer"), got[it->second] = true;
    }
    for (int i = 0; i < spec.num_recv; ++i)
      if (!got[i]) rt::fail(fmt::format("no trainer sent '{}' this step", spec.recv_names[i]));
    spec.optimize();
    for (auto& [name, w] : out) w = to_wire(name, *spec.serve_vars[serve_index.at(name)]);
    // Under the server's lock, before any trainer is released: the file is this step's state.
    if (!c.checkpoint.empty() && c.checkpoint_every > 0 && ++updates % c.checkpoint_every == 0) save();
  };
  SyncServer handler(spec.fanin, std::move(params), optimize, std::chrono::milliseconds(c.timeout_ms));
  Server server(endpoint, handler);
  announce();
  handler.wait_done(std::chrono::milliseconds(c.timeout_ms), std::chrono::milliseconds(c.connect_timeout_ms));
  std::printf("parameter server %s: %d steps, every trainer completed\n", endpoint.c_str(), handler.steps());
  // Copy the final values back: the program's variables are the server's state.
  for (auto& [name, w] : handler.params()) from_wire(w, *spec.serve_vars[serve_index.at(name)], "the server");
  finish();
}

}  // namespace fluidc::dist
