// runtime/dist/transport.cc - gRPC client and server for send_recv.proto: deadlines on every call, errors that name the endpoint.
#include "runtime/dist/transport.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "runtime/error.h"
#include "send_recv.grpc.pb.h"

namespace fluidc::dist {
namespace {

void to_pb(const WireVar& v, pb::Var* out) {
  out->set_name(v.name);
  out->set_dtype(v.dtype);
  for (int64_t d : v.dims) out->add_dims(d);
  out->set_data(v.data);
}

WireVar from_pb(const pb::Var& v) {
  return {v.name(), v.dtype(), std::vector<int64_t>(v.dims().begin(), v.dims().end()), v.data()};
}

std::chrono::system_clock::time_point after(std::chrono::milliseconds ms) { return std::chrono::system_clock::now() + ms; }

// A failed call as the trainer reports it: which server, which call, why.
[[noreturn]] void rpc_failed(const std::string& endpoint, const char* call, const grpc::Status& s,
                             std::chrono::milliseconds deadline) {
  if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
    rt::fail(fmt::format("parameter server {}: {} got no answer within {} ms (server dead or stalled?)", endpoint,
                         call, deadline.count()));
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE)
    rt::fail(fmt::format("parameter server {}: {} failed: the server is unreachable ({})", endpoint, call,
                         s.error_message()));
  rt::fail(fmt::format("parameter server {}: {} failed: {}", endpoint, call, s.error_message()));
}

void refused(const std::string& endpoint, const char* call, const pb::Reply& r) {
  if (!r.error().empty()) rt::fail(fmt::format("parameter server {} refused {}: {}", endpoint, call, r.error()));
}

// Runs `fn`, turning rt::Error into the reply's error text.
template <class Fn>
grpc::Status guarded(pb::Reply* reply, Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    reply->set_error(e.what());
  }
  return grpc::Status::OK;
}

class Service final : public pb::ParameterServer::Service {
 public:
  explicit Service(Handler& h) : h_(h) {}
  grpc::Status Send(grpc::ServerContext*, const pb::SendRequest* req, pb::Reply* reply) override {
    return guarded(reply, [&] {
      std::vector<WireVar> vars;
      for (const auto& v : req->vars()) vars.push_back(from_pb(v));
      h_.on_send(req->trainer_id(), std::move(vars));
    });
  }
  grpc::Status Get(grpc::ServerContext*, const pb::GetRequest* req, pb::GetReply* reply) override {
    try {
      for (const auto& v : h_.on_get(req->trainer_id(), {req->names().begin(), req->names().end()}))
        to_pb(v, reply->add_vars());
      return grpc::Status::OK;
    } catch (const std::exception& e) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, e.what());
    }
  }
  grpc::Status Barrier(grpc::ServerContext*, const pb::BarrierRequest* req, pb::Reply* reply) override {
    return guarded(reply, [&] {
      const BarrierKind kind = req->kind() == pb::BarrierRequest::FETCH      ? BarrierKind::kFetch
                               : req->kind() == pb::BarrierRequest::COMPLETE ? BarrierKind::kComplete
                                                                             : BarrierKind::kSend;
      h_.on_barrier(req->trainer_id(), kind);
    });
  }

 private:
  Handler& h_;
};

// Gradients and parameters are large: lift gRPC's 4 MiB default message cap.
constexpr int kMaxMessage = 1 << 30;

}  // namespace

struct Client::Impl {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::ParameterServer::Stub> stub;
};

Client::Client(const std::string& endpoint, const RpcOptions& options)
    : endpoint_(endpoint), options_(options), impl_(std::make_unique<Impl>()) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessage);
  args.SetMaxSendMessageSize(kMaxMessage);
  impl_->channel = grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
  impl_->stub = pb::ParameterServer::NewStub(impl_->channel);
}

Client::~Client() = default;

void Client::connect() {
  // Processes start in any order: retry until the server listens, bounded.
  if (!impl_->channel->WaitForConnected(after(options_.connect_timeout)))
    rt::fail(fmt::format("parameter server {}: not reachable within {} ms (is it started, and is the address right?)",
                         endpoint_, options_.connect_timeout.count()));
}

void Client::send(int trainer, const std::vector<WireVar>& vars) {
  grpc::ClientContext ctx;
  ctx.set_deadline(after(options_.deadline));
  pb::SendRequest req;
  req.set_trainer_id(trainer);
  for (const auto& v : vars) to_pb(v, req.add_vars());
  pb::Reply reply;
  if (auto s = impl_->stub->Send(&ctx, req, &reply); !s.ok()) rpc_failed(endpoint_, "send", s, options_.deadline);
  refused(endpoint_, "send", reply);
}

std::vector<WireVar> Client::get(int trainer, const std::vector<std::string>& names) {
  grpc::ClientContext ctx;
  ctx.set_deadline(after(options_.deadline));
  pb::GetRequest req;
  req.set_trainer_id(trainer);
  for (const auto& n : names) req.add_names(n);
  pb::GetReply reply;
  if (auto s = impl_->stub->Get(&ctx, req, &reply); !s.ok()) rpc_failed(endpoint_, "recv", s, options_.deadline);
  std::vector<WireVar> out;
  for (const auto& v : reply.vars()) out.push_back(from_pb(v));
  return out;
}

void Client::barrier(int trainer, BarrierKind kind) {
  grpc::ClientContext ctx;
  ctx.set_deadline(after(options_.barrier_deadline));
  pb::BarrierRequest req;
  req.set_trainer_id(trainer);
  req.set_kind(kind == BarrierKind::kFetch      ? pb::BarrierRequest::FETCH
               : kind == BarrierKind::kComplete ? pb::BarrierRequest::COMPLETE
                                                : pb::BarrierRequest::SEND);
  pb::Reply reply;
  const char* what = kind == BarrierKind::kFetch      ? "fetch_barrier"
                     : kind == BarrierKind::kComplete ? "complete"
                                                      : "send_barrier";
  if (auto s = impl_->stub->Barrier(&ctx, req, &reply); !s.ok()) rpc_failed(endpoint_, what, s, options_.barrier_deadline);
  refused(endpoint_, what, reply);
}

struct Server::Impl {
  explicit Impl(Handler& h) : service(h) {}
  Service service;
  std::unique_ptr<grpc::Server> server;
};

Server::Server(const std::string& endpoint, Handler& handler) : impl_(std::make_unique<Impl>(handler)) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(endpoint, grpc::InsecureServerCredentials(), &port_);
  builder.SetMaxReceiveMessageSize(kMaxMessage);
  builder.SetMaxSendMessageSize(kMaxMessage);
  builder.RegisterService(&impl_->service);
  impl_->server = builder.BuildAndStart();
  if (!impl_->server || port_ == 0) rt::fail(fmt::format("parameter server: cannot listen on {}", endpoint));
}

Server::~Server() { shutdown(); }

void Server::shutdown() {
  // Running calls (a barrier waiting for a dead trainer) get cancelled after a bounded wait.
  if (impl_->server) impl_->server->Shutdown(after(std::chrono::milliseconds(2000)));
}

}  // namespace fluidc::dist
