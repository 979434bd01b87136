// transpilers/distribute_collective.cc - collective mode: loss gradient scaled by 1/N, gradients all-reduced, parameters broadcast.
#include "transpilers/distribute_collective.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc::dist {
namespace {

void insert_op(pb::BlockDesc& b, int at, pb::OpDesc op) {
  *b.add_ops() = std::move(op);
  for (int i = b.ops_size() - 1; i > at; --i) b.mutable_ops()->SwapElements(i, i - 1);
}

pb::OpDesc in_place(const std::string& type, const std::string& var, int role) {
  pb::OpDesc op = new_op(type, role);
  ops::add_input(op, "X", {var});
  ops::add_output(op, "Out", {var});
  return op;
}

int role_of(const pb::OpDesc& op) { return static_cast<int>(attr_int(op, "op_role", 0)); }

}  // namespace

void rewrite_collective(pb::ProgramDesc& main, pb::ProgramDesc& startup, const DistributeOptions& o,
                        const std::string& origin, Diagnostics& diags) {
  const std::vector<ParamPlan> params = optimized_params(main, origin, diags);
  if (diags.has_errors()) return;
  pb::BlockDesc& b = *main.mutable_blocks(0);
  const int first_opt = params.empty() ? b.ops_size() : params.front().opt_op;

  // The gradient each rank computes is of its own batch's mean loss: scale
  // the loss gradient's seed by 1/N so the all-reduced sum is the mean.
  for (int i = b.ops_size() - 1; i >= 0; --i) {
    const int role = role_of(b.ops(i));
    if ((role & kOpRoleBackward) && (role & kOpRoleLoss) && b.ops(i).outputs_size() > 0 &&
        b.ops(i).outputs(0).arguments_size() > 0) {
      pb::OpDesc scale = in_place("scale", b.ops(i).outputs(0).arguments(0), kOpRoleBackward);
      ops::set_attr_float(scale, "scale", static_cast<float>(1.0 / o.nranks));
      insert_op(b, i + 1, std::move(scale));
    }
  }

  // Each gradient is all-reduced right after the op that last writes it,
  // so communication overlaps the rest of the backward pass. Producers are
  // visited last to first and ring ids alternate in that order, as in Paddle.
  std::map<int, std::vector<std::string>> by_producer;  // op index -> gradients it finishes
  int opt_at = -1;
  for (int i = 0; i < b.ops_size() && opt_at < 0; ++i)
    if (role_of(b.ops(i)) & kOpRoleOptimize) opt_at = i;
  if (opt_at < 0) opt_at = first_opt;
  for (const ParamPlan& p : params) {
    const int w = last_writer(b, p.grad, opt_at);
    if (w < 0) {
      diags.error(op_loc(main, origin, 0, -1, p.grad), "distribute: no op before the optimizer writes this gradient");
      continue;
    }
    by_producer[w].push_back(p.grad);
  }
  if (diags.has_errors()) return;
  // An op finishing several gradients (an LSTM cell's) lists them in
  // op_role_var (param, grad, param, grad...): Paddle all-reduces in that order.
  for (auto& [at, grads] : by_producer) {
    const pb::OpDesc::Attr* rv = find_attr(b.ops(at), "op_role_var");
    if (!rv || rv->type() != pb::STRINGS) continue;
    auto rank = [&](const std::string& g) {
      for (int k = 1; k < rv->strings_size(); k += 2)
        if (rv->strings(k) == g) return k;
      return rv->strings_size() + 1;  // not listed: after those listed, in optimizer order
    };
    std::stable_sort(grads.begin(), grads.end(),
                     [&](const std::string& x, const std::string& y) { return rank(x) < rank(y); });
  }
  int ring = -1;
  std::string last;
  for (auto it = by_producer.rbegin(); it != by_producer.rend(); ++it) {
    const int at = it->first;
    insert_op(b, at + 1, in_place("c_sync_calc_stream", it->second.front(), kOpRoleBackward));
    for (const std::string& g : it->second) {
      ring = (ring + 1) % o.nrings;
      pb::OpDesc op = in_place("c_allreduce_sum", g, kOpRoleBackward);
      ops::set_attr_int(op, "ring_id", ring);
      insert_op(b, at + 2, std::move(op));
      last = g;
    }
  }
  // The optimizer waits for every ring's communication to finish.
  if (!last.empty())
    for (int i = 0; i < b.ops_size(); ++i)
      if (role_of(b.ops(i)) & kOpRoleOptimize) {
        for (int r = 0; r < o.nrings; ++r) {
          pb::OpDesc op = in_place("c_sync_comm_stream", last, kOpRoleBackward);
          ops::set_attr_int(op, "ring_id", r);
          insert_op(b, i + r, std::move(op));
        }
        break;
      }

  // Startup: every rank takes rank 0's initial parameters. Parameters in the
  // order their initialisers run (the order Paddle created them in).
  if (startup.blocks_size() == 0) return;
  pb::BlockDesc& s = *startup.mutable_blocks(0);
  std::set<std::string> is_param;
  for (const ParamPlan& p : params) is_param.insert(p.param);
  for (const auto& v : s.vars())
    if (v.is_parameter() && is_dense_tensor(v)) is_param.insert(v.name());
  std::vector<std::string> order;
  std::set<std::string> listed;
  for (const auto& op : s.ops())
    for (const auto& out : op.outputs())
      for (const auto& arg : out.arguments())
        if (is_param.count(arg) && find_block_var(s, arg) && listed.insert(arg).second) order.push_back(arg);
  ring = -1;
  for (const std::string& p : order) {
    ring = (ring + 1) % o.nrings;
    pb::OpDesc op = in_place("c_broadcast", p, kOpRoleForward);
    ops::set_attr_int(op, "ring_id", ring);
    ops::set_attr_int(op, "root", 0);
    *s.add_ops() = std::move(op);
  }
  if (!order.empty())
    for (int r = 0; r < o.nrings; ++r) {
      pb::OpDesc op = in_place("c_sync_comm_stream", order.back(), kOpRoleForward);
      ops::set_attr_int(op, "ring_id", r);
      *s.add_ops() = std::move(op);
    }
}

}  // namespace fluidc::dist
