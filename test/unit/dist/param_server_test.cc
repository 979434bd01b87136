// test/unit/dist/param_server_test.cc - the parameter-server runtime on 127.0.0.1: a synchronous step, unreachable servers, dead trainers, deadlines.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <thread>

#include "runtime/dist/param_server.h"
#include "runtime/error.h"

using namespace fluidc::dist;
using Clock = std::chrono::steady_clock;

namespace {

WireVar floats(const std::string& name, const std::vector<float>& v) {
  WireVar w;
  w.name = name;
  w.dims = {static_cast<int64_t>(v.size())};
  w.data.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  return w;
}

std::vector<float> values(const WireVar& w) {
  std::vector<float> v(w.data.size() / sizeof(float));
  std::memcpy(v.data(), w.data.data(), w.data.size());
  return v;
}

// The optimize block of SGD on one slice: w -= lr * mean over trainers of w@GRAD.
SyncServer::OptimizeFn sgd(float lr) {
  return [lr](const std::map<std::string, std::vector<WireVar>>& grads, std::map<std::string, WireVar>& params) {
    std::vector<float> w = values(params.at("w"));
    const auto& copies = grads.at("w@GRAD");
    for (size_t i = 0; i < w.size(); ++i) {
      float sum = 0;
      for (const auto& c : copies) sum += values(c)[i];
      w[i] -= lr * sum / static_cast<float>(copies.size());
    }
    params["w"] = floats("w", w);
  };
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const fluidc::rt::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("two trainers, one server: a synchronous step averages their gradients", "[dist]") {
  SyncServer state(2, {{"w", floats("w", {1, 2, 3, 4})}}, sgd(0.5f), std::chrono::milliseconds(5000));
  Server server("127.0.0.1:0", state);
  const std::string ep = "127.0.0.1:" + std::to_string(server.port());
  std::vector<std::vector<float>> got(2);
  auto trainer = [&](int id) {
    Client c(ep);
    c.connect();
    for (int step = 0; step < 3; ++step) {
      const float g = id == 0 ? 1.0f : 3.0f;  // mean 2: each step w -= 0.5 * 2
      c.send(id, {floats("w@GRAD", {g, g, g, g})});
      c.barrier(id, BarrierKind::kSend);
      got[id] = values(c.get(id, {"w"}).at(0));
      c.barrier(id, BarrierKind::kFetch);
    }
  };
  std::thread t0(trainer, 0), t1(trainer, 1);
  t0.join();
  t1.join();
  CHECK(state.steps() == 3);
  CHECK(got[0] == std::vector<float>{-2, -1, 0, 1});
  CHECK(got[1] == got[0]);
}

TEST_CASE("a server that never starts is reported, naming it, within the connect timeout", "[dist]") {
  // A port that nothing listens on: take a free one and close it.
  int port = 0;
  {
    SyncServer s(1, {}, sgd(1), std::chrono::milliseconds(100));
    Server probe("127.0.0.1:0", s);
    port = probe.port();
  }
  RpcOptions o;
  o.connect_timeout = std::chrono::milliseconds(300);
  const std::string ep = "127.0.0.1:" + std::to_string(port);
  Client c(ep, o);
  const auto t0 = Clock::now();
  const std::string err = error_of([&] { c.connect(); });
  CHECK(err.find(ep) != std::string::npos);
  CHECK(err.find("not reachable") != std::string::npos);
  CHECK(Clock::now() - t0 < std::chrono::seconds(3));
}

TEST_CASE("a dead trainer stops the others at the barrier, named, instead of hanging them", "[dist]") {
  SyncServer state(2, {{"w", floats("w", {0})}}, sgd(1), std::chrono::milliseconds(400));
  Server server("127.0.0.1:0", state);
  const std::string ep = "127.0.0.1:" + std::to_string(server.port());
  Client c(ep);
  c.connect();
  c.send(0, {floats("w@GRAD", {1})});
  const auto t0 = Clock::now();
  const std::string err = error_of([&] { c.barrier(0, BarrierKind::kSend); });  // trainer 1 never comes
  CHECK(err.find(ep) != std::string::npos);
  CHECK(err.find("trainer(s) 1 did not arrive") != std::string::npos);
  CHECK(Clock::now() - t0 < std::chrono::seconds(5));
  // The failure sticks: a late trainer gets it too.
  CHECK(error_of([&] { c.send(1, {floats("w@GRAD", {1})}); }).find("did not arrive") != std::string::npos);
}

TEST_CASE("every call has a deadline: a stalled server is reported, not waited for", "[dist]") {
  struct Stalled : Handler {
    void on_send(int, std::vector<WireVar>) override { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); }
    std::vector<WireVar> on_get(int, const std::vector<std::string>&) override { return {}; }
    void on_barrier(int, BarrierKind) override {}
  } stalled;
  Server server("127.0.0.1:0", stalled);
  RpcOptions o;
  o.deadline = std::chrono::milliseconds(200);
  const std::string ep = "127.0.0.1:" + std::to_string(server.port());
  Client c(ep, o);
  c.connect();
  const auto t0 = Clock::now();
  const std::string err = error_of([&] { c.send(0, {floats("g", {1})}); });
  CHECK(err.find("got no answer within 200 ms") != std::string::npos);
  CHECK(err.find(ep) != std::string::npos);
  CHECK(Clock::now() - t0 < std::chrono::seconds(1));
}

TEST_CASE("requests the server refuses come back as errors", "[dist]") {
  SyncServer state(1, {{"w", floats("w", {0})}}, sgd(1), std::chrono::milliseconds(1000));
  Server server("127.0.0.1:0", state);
  const std::string ep = "127.0.0.1:" + std::to_string(server.port());
  Client c(ep);
  c.connect();
  CHECK(error_of([&] { c.send(3, {floats("g", {1})}); }).find("trainer id 3 is not in 0..0") != std::string::npos);
  CHECK(error_of([&] { c.get(0, {"nope"}); }).find("no parameter 'nope'") != std::string::npos);
}
