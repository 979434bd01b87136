// transpilers/distribute_server.cc - parameter-server programs: gradients averaged over trainers, then the optimizer on each slice.
#include "transpilers/distribute_server.h"

#include <fmt/format.h>

#include <map>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc::dist {
namespace {

// The slice of `p` this server owns, or nullptr.
const Slice* owned(const ParamPlan& p, int server) {
  for (const Slice& s : p.slices)
    if (s.server == server) return &s;
  return nullptr;
}

// The optimizer op of `p`, on its slice: Param and ParamOut the slice, Grad
// the averaged gradient, state shaped like the parameter sliced like it
// (OptimizerStateDef::scalar state stays whole), everything else as it was.
pb::OpDesc sliced_optimizer_op(const pb::OpDesc& orig, const ops::OptimizerDef& opt, const ParamPlan& p,
                               const Slice& s, const pb::BlockDesc& main, pb::BlockDesc& server) {
  pb::OpDesc op = orig;
  std::map<std::string, bool> state_sliced;  // state slot (input or output) -> shaped like the parameter
  for (const auto& st : opt.state) state_sliced[st.input] = state_sliced[st.output] = !st.scalar;
  auto declare = [&](const std::string& name, bool sliced) {
    const pb::VarDesc* v = find_block_var(main, name);
    if (!v) return;  // the verifier of the result reports a missing variable
    const pb::VarType::TensorDesc* td = tensor_desc(*v);
    std::vector<int64_t> dims = sliced ? s.dims : std::vector<int64_t>();
    if (!sliced && td) dims.assign(td->dims().begin(), td->dims().end());
    declare_like(server, name, *v, dims, v->persistable());
  };
  for (auto* slots : {op.mutable_inputs(), op.mutable_outputs()})
    for (auto& slot : *slots) {
      const std::string& name = slot.parameter();
      if (name == opt.param || name == opt.param_out) {
        for (auto& a : *slot.mutable_arguments()) a = s.param;
      } else if (name == opt.grad) {
        // The averaged gradient, or what the parameter's other ops made of it (weight decay's G@L2).
        for (auto& a : *slot.mutable_arguments()) {
          if (a == p.grad) {
            a = s.server_grad;
          } else if (const pb::VarDesc* v = find_block_var(main, a); v && !find_block_var(server, a)) {
            declare_like(server, a, *v, s.dims, true);
          }
        }
      } else {
        const bool sliced = state_sliced.count(name) && state_sliced[name] && p.sliced();
        for (const auto& a : slot.arguments()) declare(a, sliced);
      }
    }
  return op;
}

// Another op of the parameter's (weight decay): the parameter and gradient
// become the server's slice and averaged gradient; other variables come
// along, server-held (Paddle's _clone_variable makes them persistable), and
// one shaped like the whole parameter is shaped like the slice (what
// Paddle's shape inference of the appended op gives).
pb::OpDesc moved_op(const pb::OpDesc& orig, const ParamPlan& p, const Slice& s, const pb::BlockDesc& main,
                    pb::BlockDesc& server) {
  pb::OpDesc op = orig;
  for (auto* slots : {op.mutable_inputs(), op.mutable_outputs()})
    for (auto& slot : *slots)
      for (auto& a : *slot.mutable_arguments()) {
        if (a == p.param) {
          a = s.param;
        } else if (a == p.grad) {
          a = s.server_grad;
        } else if (const pb::VarDesc* v = find_block_var(main, a)) {
          const pb::VarType::TensorDesc* td = tensor_desc(*v);
          std::vector<int64_t> dims;
          if (td) dims.assign(td->dims().begin(), td->dims().end());
          declare_like(server, a, *v, dims == p.dims ? s.dims : dims, true);
        }
      }
  return op;
}

}  // namespace

ServerProgram build_server(const pb::ProgramDesc& main, const pb::ProgramDesc& startup, const Plan& plan, int server,
                           const DistributeOptions& o, const std::string& origin, Diagnostics& diags) {
  ServerProgram sp;
  sp.endpoint = o.pservers[server];
  pb::BlockDesc& b0 = *sp.main.add_blocks();
  b0.set_idx(0);
  b0.set_parent_idx(-1);
  const pb::BlockDesc& m0 = main.blocks(0);
  *sp.main.mutable_version() = main.version();

  // Block 0's variables: the parameter slices it owns, then their averaged
  // gradients and, in sync mode, one copy per trainer (what listen_and_serv receives).
  std::vector<std::string> received;
  for (const ParamPlan& p : plan.params)
    if (const Slice* s = owned(p, server)) declare_like(b0, s->param, *find_block_var(m0, p.param), s->dims, true);
  for (const ParamPlan& p : plan.params) {
    const Slice* s = owned(p, server);
    if (!s) continue;
    const pb::VarDesc& g = *find_block_var(m0, p.grad);
    declare_like(b0, s->server_grad, g, s->dims, true);
    if (!o.sync) {
      received.push_back(s->server_grad);
      continue;
    }
    for (int t = 0; t < o.trainers; ++t) {
      received.push_back(fmt::format("{}.trainer_{}", s->server_grad, t));
      declare_like(b0, received.back(), g, s->dims, false);
    }
  }

  // One optimize block per parameter slice, in optimizer-op order.
  std::vector<int> blocks;
  std::vector<std::string> grad_to_block;
  for (const ParamPlan& p : plan.params) {
    const Slice* s = owned(p, server);
    if (!s) continue;
    const int idx = sp.main.blocks_size();
    pb::BlockDesc& blk = *sp.main.add_blocks();
    blk.set_idx(idx);
    blk.set_parent_idx(0);
    blocks.push_back(idx);
    grad_to_block.push_back(fmt::format("{}:{}", s->server_grad, idx));
    if (o.sync) {
      // The mean of the trainers' gradients.
      pb::OpDesc sum = new_op("sum", kOpRoleOptimize);
      std::vector<std::string> per_trainer;
      for (int t = 0; t < o.trainers; ++t) per_trainer.push_back(fmt::format("{}.trainer_{}", s->server_grad, t));
      ops::add_input(sum, "X", per_trainer);
      ops::add_output(sum, "Out", {s->server_grad});
      *blk.add_ops() = std::move(sum);
      pb::OpDesc scale = new_op("scale", kOpRoleOptimize);
      ops::add_input(scale, "X", {s->server_grad});
      ops::add_output(scale, "Out", {s->server_grad});
      ops::set_attr_float(scale, "scale", static_cast<float>(1.0 / o.trainers));
      ops::set_attr_float(scale, "bias", 0.0f);
      ops::set_attr_bool(scale, "bias_after_scale", true);
      *blk.add_ops() = std::move(scale);
    }
    // The parameter's ops of role Optimize in program order: weight decay,
    // then the update itself.
    for (int i = 0; i < m0.ops_size(); ++i) {
      const pb::OpDesc& op = m0.ops(i);
      if (i == p.opt_op) {
        *blk.add_ops() = sliced_optimizer_op(op, *ops::find_op(op.type())->optimizer, p, *s, m0, b0);
      } else if (i < p.opt_op && moves_to_server(op) && tied_param(op) == p.param) {
        *blk.add_ops() = moved_op(op, p, *s, m0, b0);
      }
    }
  }
  if (blocks.empty()) {
    // Paddle gives such a server an empty block to serve.
    Location where;
    where.file = origin;
    diags.warning(where,
                  fmt::format("distribute: server {} gets no parameter (more servers than parameter blocks)",
                              printable(sp.endpoint)));
    pb::BlockDesc& blk = *sp.main.add_blocks();
    blk.set_idx(sp.main.blocks_size() - 1);
    blk.set_parent_idx(0);
    blocks.push_back(blk.idx());
  }
  pb::OpDesc serve = new_op("listen_and_serv", kOpRoleForward);
  ops::add_input(serve, "X", received);
  set_attr_blocks(serve, "optimize_blocks", blocks);
  ops::set_attr_string(serve, "endpoint", sp.endpoint);
  ops::set_attr_int(serve, "pserver_id", server);
  ops::set_attr_int(serve, "Fanin", o.trainers);
  ops::set_attr_int(serve, "distributed_mode", o.sync ? 0 : 1);  // Paddle's DistributedMode SYNC / ASYNC
  ops::set_attr_strings(serve, "grad_to_block_id", grad_to_block);
  ops::set_attr_strings(serve, "sparse_grad_to_param", {});
  ops::set_attr_int(serve, "lr_decay_block_id", -1);
  *b0.add_ops() = std::move(serve);

  // Startup: every server variable, and the original initialisers of those
  // it owns, shaped for the slice where an attribute `shape` gave the whole.
  pb::BlockDesc& s0 = *sp.startup.add_blocks();
  s0.set_idx(0);
  s0.set_parent_idx(-1);
  *sp.startup.mutable_version() = startup.version();
  for (const auto& v : b0.vars()) {
    *s0.add_vars() = v;
    s0.mutable_vars(s0.vars_size() - 1)->set_persistable(true);
  }
  std::map<std::string, const Slice*> slice_of;  // original parameter -> its block here
  for (const ParamPlan& p : plan.params)
    if (const Slice* s = owned(p, server); s && p.sliced()) slice_of[p.param] = s;
  if (startup.blocks_size() == 0) return sp;
  for (const auto& orig : startup.blocks(0).ops()) {
    pb::OpDesc op = orig;
    bool here = false;
    for (auto& out : *op.mutable_outputs()) {
      if (out.arguments_size() == 0) continue;
      const std::string name = out.arguments(0);
      auto it = slice_of.find(name);
      if (it != slice_of.end()) {
        out.set_arguments(0, it->second->param);
        here = true;
      } else if (find_block_var(b0, name)) {
        here = true;
      }
    }
    if (!here) continue;
    // An initialiser whose `shape` attribute is its output's whole shape
    // gets the slice's (uniform_random, fill_constant... of a sliced
    // parameter or of optimizer state shaped like it).
    const pb::VarDesc* was = nullptr;
    const pb::VarDesc* now = nullptr;
    for (size_t k = 0; k < static_cast<size_t>(op.outputs_size()) && !was; ++k)
      if (op.outputs(k).arguments_size() > 0) {
        was = find_block_var(startup.blocks(0), orig.outputs(k).arguments(0));
        now = find_block_var(s0, op.outputs(k).arguments(0));
      }
    const pb::VarType::TensorDesc* td_was = was ? tensor_desc(*was) : nullptr;
    const pb::VarType::TensorDesc* td_now = now ? tensor_desc(*now) : nullptr;
    if (td_was && td_now)
      for (auto& a : *op.mutable_attrs()) {
        if (a.name() != "shape" || (a.type() != pb::INTS && a.type() != pb::LONGS)) continue;
        std::vector<int64_t> attr_dims(a.ints().begin(), a.ints().end());
        attr_dims.insert(attr_dims.end(), a.longs().begin(), a.longs().end());
        if (attr_dims != std::vector<int64_t>(td_was->dims().begin(), td_was->dims().end())) continue;
        const bool ints = a.type() == pb::INTS;
        a.clear_ints();
        a.clear_longs();
        for (int64_t d : td_now->dims()) ints ? a.add_ints(static_cast<int32_t>(d)) : a.add_longs(d);
      }
    for (const auto& in : op.inputs())
      for (const auto& arg : in.arguments())
        if (const pb::VarDesc* v = find_block_var(startup.blocks(0), arg); v && !find_block_var(s0, arg))
          *s0.add_vars() = *v;
    *sp.startup.mutable_blocks(0)->add_ops() = std::move(op);
  }
  return sp;
}

}  // namespace fluidc::dist
