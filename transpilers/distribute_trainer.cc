// transpilers/distribute_trainer.cc - the trainer side of parameter-server mode: send gradients, receive parameters.
#include "transpilers/distribute_trainer.h"

#include <fmt/format.h>

#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc::dist {
namespace {

std::vector<std::string> endpoints_of(const ParamPlan& p, const DistributeOptions& o) {
  std::vector<std::string> eps;
  for (const Slice& s : p.slices) eps.push_back(o.pservers[s.server]);
  return eps;
}

std::vector<std::string> names(const ParamPlan& p, std::string Slice::*field) {
  std::vector<std::string> out;
  for (const Slice& s : p.slices) out.push_back(s.*field);
  return out;
}

void insert_op(pb::BlockDesc& b, int at, pb::OpDesc op) {
  *b.add_ops() = std::move(op);
  for (int i = b.ops_size() - 1; i > at; --i) b.mutable_ops()->SwapElements(i, i - 1);
}

// Removes the ops that move to the servers (optimizer updates, weight decay)
// from `b` and returns the variables only they used (learning rates,
// optimizer state, decay temporaries), which leave the trainer with them.
std::set<std::string> remove_optimizer_ops(pb::BlockDesc& b, const Plan& plan) {
  std::set<std::string> theirs, kept, keep_always;
  for (const ParamPlan& p : plan.params) keep_always.insert({p.param, p.grad});
  pb::BlockDesc rest;
  for (auto& op : *b.mutable_ops()) {
    const bool opt = moves_to_server(op);
    for (const auto* slots : {&op.inputs(), &op.outputs()})
      for (const auto& slot : *slots)
        for (const auto& arg : slot.arguments()) (opt ? theirs : kept).insert(arg);
    if (!opt) *rest.add_ops() = std::move(op);
  }
  b.mutable_ops()->Swap(rest.mutable_ops());
  std::set<std::string> gone;
  for (const auto& n : theirs)
    if (!kept.count(n) && !keep_always.count(n)) gone.insert(n);
  return gone;
}

void remove_vars(pb::BlockDesc& b, const std::set<std::string>& gone) {
  pb::BlockDesc rest;
  for (auto& v : *b.mutable_vars())
    if (!gone.count(v.name())) *rest.add_vars() = std::move(v);
  b.mutable_vars()->Swap(rest.mutable_vars());
}

}  // namespace

void rewrite_trainer_main(pb::BlockDesc& b, const Plan& plan, const DistributeOptions& o, ControlVars& control) {
  // Gradients sent whole take their trainer's name (G.trainer_I) everywhere.
  for (const ParamPlan& p : plan.params)
    if (!p.sliced() && p.slices[0].grad != p.grad) rename_var(b, p.grad, p.slices[0].grad);

  // After the op that last writes each gradient: split_byref into its
  // blocks when sliced, then send to the blocks' servers.
  std::vector<std::string> sent;  // each send's control output, in parameter order
  for (const ParamPlan& p : plan.params) {
    const pb::VarDesc& grad_var = *find_block_var(b, p.sliced() ? p.grad : p.slices[0].grad);
    const std::string whole = p.sliced() ? p.grad : p.slices[0].grad;
    int at = last_writer(b, whole, b.ops_size());
    if (p.sliced()) {
      std::vector<int64_t> rows;
      for (const Slice& s : p.slices) {
        declare_like(b, s.grad, grad_var, s.dims, false);
        rows.push_back(s.dims[0]);
      }
      pb::OpDesc split = new_op("split_byref", kOpRoleDist);
      ops::add_input(split, "X", {p.grad});
      ops::add_output(split, "Out", names(p, &Slice::grad));
      set_attr_ints(split, "sections", rows);
      insert_op(b, ++at, std::move(split));
    }
    pb::OpDesc send = new_op("send", kOpRoleRPC);
    ops::add_input(send, "X", names(p, &Slice::grad));
    sent.push_back(control.make(b));
    ops::add_output(send, "Out", {sent.back()});
    ops::set_attr_strings(send, "epmap", endpoints_of(p, o));
    set_attr_ints(send, "sections", {});
    ops::set_attr_strings(send, "send_varnames", {});
    ops::set_attr_strings(send, "op_role_var", {p.param, whole});
    insert_op(b, ++at, std::move(send));
  }

  // Sync: every trainer's gradients reach the servers before anyone receives.
  std::string barrier;
  if (o.sync) {
    pb::OpDesc op = new_op("send_barrier", kOpRoleRPC);
    ops::add_input(op, "X", sent);
    barrier = control.make(b);
    ops::add_output(op, "Out", {barrier});
    ops::set_attr_strings(op, "endpoints", o.pservers);
    ops::set_attr_int(op, "trainer_id", o.trainer_id);
    ops::set_attr_bool(op, "half_async", false);
    *b.add_ops() = std::move(op);
  }

  // One recv per parameter: its blocks from their servers.
  std::vector<std::string> received;
  for (size_t k = 0; k < plan.params.size(); ++k) {
    const ParamPlan& p = plan.params[k];
    const pb::VarDesc& param_var = *find_block_var(b, p.param);
    if (p.sliced())
      for (const Slice& s : p.slices) declare_like(b, s.param, param_var, s.dims, false);
    pb::OpDesc op = new_op("recv", kOpRoleRPC);
    ops::add_input(op, "X", {o.sync ? barrier : sent[k]});
    ops::add_output(op, "Out", names(p, &Slice::param));
    ops::set_attr_strings(op, "epmap", endpoints_of(p, o));
    ops::set_attr_strings(op, "recv_varnames", {});
    ops::set_attr_int(op, "trainer_id", o.trainer_id);
    ops::set_attr_strings(op, "op_role_var", {p.param, p.sliced() ? p.grad : p.slices[0].grad});
    *b.add_ops() = std::move(op);
    for (const Slice& s : p.slices) received.push_back(s.param);
  }
  if (o.sync) {
    pb::OpDesc op = new_op("fetch_barrier", kOpRoleRPC);
    ops::add_input(op, "X", {barrier});
    ops::add_output(op, "Out", received);
    ops::set_attr_strings(op, "endpoints", o.pservers);
    ops::set_attr_int(op, "trainer_id", o.trainer_id);
    *b.add_ops() = std::move(op);
  }
  // Sliced parameters are put back together from their blocks.
  for (const ParamPlan& p : plan.params) {
    if (!p.sliced()) continue;
    pb::OpDesc op = new_op("concat", kOpRoleDist);
    ops::add_input(op, "X", names(p, &Slice::param));
    ops::add_output(op, "Out", {p.param});
    ops::set_attr_int(op, "axis", 0);
    *b.add_ops() = std::move(op);
  }
  remove_vars(b, remove_optimizer_ops(b, plan));
}

std::set<std::string> optimizer_only_vars(const pb::BlockDesc& main, const Plan& plan) {
  pb::BlockDesc copy = main;
  return remove_optimizer_ops(copy, plan);
}

void rewrite_trainer_startup(pb::BlockDesc& b, const pb::BlockDesc& main, const Plan& plan,
                             const std::set<std::string>& optimizer_vars, const DistributeOptions& o,
                             ControlVars& control) {
  // The optimizer state lives on the servers: its initialisers leave.
  pb::BlockDesc rest;
  for (auto& op : *b.mutable_ops()) {
    bool writes_state = false;
    for (const auto& out : op.outputs())
      for (const auto& arg : out.arguments()) writes_state |= optimizer_vars.count(arg) > 0;
    if (!writes_state) *rest.add_ops() = std::move(op);
  }
  b.mutable_ops()->Swap(rest.mutable_ops());
  remove_vars(b, optimizer_vars);

  // Then every parameter comes from the servers, so all trainers start alike.
  for (const ParamPlan& p : plan.params) {
    const pb::VarDesc* like = find_block_var(b, p.param);
    if (!like) like = find_block_var(main, p.param);
    if (!find_block_var(b, p.param)) declare_like(b, p.param, *like, p.dims, like->persistable());
    like = find_block_var(b, p.param);
    for (const Slice& s : p.slices) declare_like(b, s.param, *like, s.dims, s.param == p.param);
    pb::OpDesc op = new_op("recv", kOpRoleRPC);
    ops::add_output(op, "Out", names(p, &Slice::param));
    ops::set_attr_strings(op, "epmap", endpoints_of(p, o));
    ops::set_attr_int(op, "trainer_id", o.trainer_id);
    *b.add_ops() = std::move(op);
  }
  pb::OpDesc barrier = new_op("fetch_barrier", kOpRoleRPC);
  ops::add_output(barrier, "Out", {control.make(b)});
  ops::set_attr_strings(barrier, "endpoints", o.pservers);
  ops::set_attr_int(barrier, "trainer_id", o.trainer_id);
  *b.add_ops() = std::move(barrier);
  for (const ParamPlan& p : plan.params) {
    if (!p.sliced()) continue;
    pb::OpDesc op = new_op("concat", kOpRoleForward);
    ops::add_input(op, "X", names(p, &Slice::param));
    ops::add_output(op, "Out", {p.param});
    ops::set_attr_int(op, "axis", 0);
    *b.add_ops() = std::move(op);
  }
}

}  // namespace fluidc::dist
