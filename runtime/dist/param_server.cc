// runtime/dist/param_server.cc - SyncServer (the send barrier runs the update once) and AsyncServer (each gradient on arrival); bounded waits name missing trainers.
#include "runtime/dist/param_server.h"

#include <fmt/format.h>

#include "runtime/error.h"

namespace fluidc::dist {

void ServerBase::check_trainer(int trainer) const {
  if (trainer < 0 || trainer >= fanin_)
    rt::fail(fmt::format("trainer id {} is not in 0..{} (the server expects {} trainers)", trainer, fanin_ - 1, fanin_));
}

void ServerBase::seen(int trainer) { last_seen_[trainer] = std::chrono::steady_clock::now(); }

void ServerBase::enter(int trainer) {
  seen(trainer);
  if (!failed_.empty()) rt::fail(failed_);
}

void ServerBase::complete(int trainer) {
  completed_.insert(trainer);
  cv_.notify_all();
}

void ServerBase::wait_done(std::chrono::milliseconds idle_timeout, std::chrono::milliseconds start_timeout) {
  const auto started = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (!failed_.empty()) rt::fail(failed_);
    if (static_cast<int>(completed_.size()) == fanin_) return;
    const auto now = std::chrono::steady_clock::now();
    std::vector<int> silent;
    long long bound = 0;
    for (int t = 0; t < fanin_; ++t) {
      if (completed_.count(t) || in_call_[t] > 0) continue;
      auto it = last_seen_.find(t);
      const auto since = it == last_seen_.end() ? started : it->second;
      const auto limit = it == last_seen_.end() ? start_timeout : idle_timeout;
      if (now - since > limit) {
        silent.push_back(t);
        bound = limit.count();
      }
    }
    if (!silent.empty()) {
      failed_ = fmt::format("trainer(s) {} made no request for {} ms (dead or stalled; {})", fmt::join(silent, ", "),
                            bound, progress());
      cv_.notify_all();
      rt::fail(failed_);
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
}

SyncServer::SyncServer(int fanin, std::map<std::string, WireVar> params, OptimizeFn optimize,
                       std::chrono::milliseconds barrier_timeout)
    : ServerBase(fanin), params_(std::move(params)), optimize_(std::move(optimize)), timeout_(barrier_timeout) {}

std::string SyncServer::progress() const { return fmt::format("step {}", generation_ + 1); }

void SyncServer::on_send(int trainer, std::vector<WireVar> vars) {
  check_trainer(trainer);
  std::lock_guard<std::mutex> lock(mu_);
  enter(trainer);
  for (auto& v : vars) {
    auto& copies = grads_[v.name];
    copies.resize(fanin_);
    copies[trainer] = std::move(v);
  }
}

std::vector<WireVar> SyncServer::on_get(int trainer, const std::vector<std::string>& names) {
  check_trainer(trainer);
  std::lock_guard<std::mutex> lock(mu_);
  enter(trainer);
  std::vector<WireVar> out;
  for (const auto& n : names) {
    auto it = params_.find(n);
    if (it == params_.end()) rt::fail(fmt::format("no parameter '{}' on this server", n));
    out.push_back(it->second);
  }
  return out;
}

void SyncServer::on_barrier(int trainer, BarrierKind kind) {
  check_trainer(trainer);
  std::unique_lock<std::mutex> lock(mu_);
  enter(trainer);
  if (kind == BarrierKind::kFetch) return;  // parameters change only when every trainer's next send barrier is in
  if (kind == BarrierKind::kComplete) return complete(trainer);
  arrived_.insert(trainer);
  const int gen = generation_;
  if (static_cast<int>(arrived_.size()) == fanin_) {
    try {
      optimize_(grads_, params_);
    } catch (const std::exception& e) {
      failed_ = fmt::format("the update of step {} failed: {}", generation_ + 1, e.what());
    }
    grads_.clear();
    arrived_.clear();
    ++generation_;
    cv_.notify_all();
    if (!failed_.empty()) rt::fail(failed_);
    return;
  }
  ++in_call_[trainer];
  const bool released = cv_.wait_for(lock, timeout_, [&] { return generation_ != gen || !failed_.empty(); });
  --in_call_[trainer];
  seen(trainer);
  if (!released && failed_.empty()) {
    std::vector<int> missing;
    for (int t = 0; t < fanin_; ++t)
      if (!arrived_.count(t)) missing.push_back(t);
    failed_ = fmt::format("send barrier of step {}: trainer(s) {} did not arrive within {} ms (dead or stalled)",
                          gen + 1, fmt::join(missing, ", "), timeout_.count());
    cv_.notify_all();
  }
  if (!failed_.empty()) rt::fail(failed_);
}

std::map<std::string, WireVar> SyncServer::params() const {
  std::lock_guard<std::mutex> lock(mu_);
  return params_;
}

int SyncServer::steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

AsyncServer::AsyncServer(int fanin, ApplyFn apply, ReadFn read)
    : ServerBase(fanin), apply_(std::move(apply)), read_(std::move(read)) {}

std::string AsyncServer::progress() const { return fmt::format("after {} gradient updates", updates_); }

void AsyncServer::on_send(int trainer, std::vector<WireVar> vars) {
  check_trainer(trainer);
  std::lock_guard<std::mutex> lock(mu_);
  enter(trainer);
  for (const auto& v : vars) {
    try {
      apply_(v);
    } catch (const std::exception& e) {
      // The parameter may be half updated: the job cannot go on.
      failed_ = fmt::format("the update with '{}' from trainer {} failed: {}", v.name, trainer, e.what());
      cv_.notify_all();
      rt::fail(failed_);
    }
    ++updates_;
  }
}

std::vector<WireVar> AsyncServer::on_get(int trainer, const std::vector<std::string>& names) {
  check_trainer(trainer);
  std::lock_guard<std::mutex> lock(mu_);
  enter(trainer);
  std::vector<WireVar> out;
  for (const auto& n : names) out.push_back(read_(n));
  return out;
}

void AsyncServer::on_barrier(int trainer, BarrierKind kind) {
  check_trainer(trainer);
  std::lock_guard<std::mutex> lock(mu_);
  enter(trainer);
  if (kind == BarrierKind::kComplete) complete(trainer);
}

int64_t AsyncServer::updates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return updates_;
}

}  // namespace fluidc::dist
