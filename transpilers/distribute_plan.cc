// transpilers/distribute_plan.cc - slicing and placement of parameters (Paddle's slice_variable and RoundRobin), and shared builders.
#include "transpilers/distribute_plan.h"

#include <fmt/format.h>

#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc::dist {

std::vector<int64_t> block_sizes(const std::vector<int64_t>& dims, int servers, int64_t min_block_size) {
  int64_t numel = 1;
  for (int64_t d : dims) numel *= d;
  if (numel <= 0) return {numel};
  // At most one block per server, and none under the minimum size.
  int64_t split = std::max<int64_t>(1, numel / min_block_size);
  split = std::min<int64_t>(split, servers);
  int64_t block = (numel + split - 1) / split;
  // Whole rows: round the block up to a multiple of the row size.
  if (dims.size() >= 2) {
    const int64_t row = numel / dims[0];
    if (block % row != 0) block += row - block % row;
  }
  split = (numel + block - 1) / block;
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < split; ++i) sizes.push_back(std::min(block, numel - i * block));
  return sizes;
}

bool moves_to_server(const pb::OpDesc& op) {
  const ops::OpDef* def = ops::find_op(op.type());
  return (def && def->has(ops::kOptimizer)) || (attr_int(op, "op_role", 0) & kOpRoleOptimize);
}

std::string tied_param(const pb::OpDesc& op) {
  const pb::OpDesc::Attr* a = find_attr(op, "op_role_var");
  return a && a->type() == pb::STRINGS && a->strings_size() > 0 ? a->strings(0) : "";
}

Location op_loc(const pb::ProgramDesc& prog, const std::string& origin, int block, int op, const std::string& var) {
  Location l = Program::from_desc(prog, origin).loc(block, op, var);
  return l;
}

std::vector<ParamPlan> optimized_params(const pb::ProgramDesc& main, const std::string& origin, Diagnostics& diags) {
  std::vector<ParamPlan> out;
  std::set<std::string> seen;
  const pb::BlockDesc& b = main.blocks(0);
  for (int i = 0; i < b.ops_size(); ++i) {
    const ops::OpDef* def = ops::find_op(b.ops(i).type());
    if (!def || !def->has(ops::kOptimizer) || !def->optimizer) continue;
    const auto params = op_inputs(b.ops(i), def->optimizer->param);
    const auto grads = op_inputs(b.ops(i), def->optimizer->grad);
    if (params.size() != 1 || grads.size() != 1) {
      diags.error(op_loc(main, origin, 0, i), "distribute: an optimizer op needs one parameter and one gradient");
      continue;
    }
    ParamPlan p;
    p.param = params[0];
    p.grad = grads[0];
    p.opt_op = i;
    // The gradient the trainer computes may reach the update through other
    // ops of the parameter's (weight decay writing `G@L2`): the one to send
    // is what the first of them names in op_role_var, as Paddle reads it.
    for (int k = 0; k <= i; ++k) {
      const pb::OpDesc& tied = b.ops(k);
      if (!moves_to_server(tied) || tied_param(tied) != p.param) continue;
      const pb::OpDesc::Attr* rv = find_attr(tied, "op_role_var");
      if (rv->strings_size() >= 2 && find_block_var(b, rv->strings(1))) p.grad = rv->strings(1);
      break;
    }
    if (!seen.insert(p.param).second) {
      diags.error(op_loc(main, origin, 0, i, p.param),
                  "distribute: the parameter is updated by a second optimizer op; one per parameter is supported");
      continue;
    }
    const pb::VarDesc* v = find_block_var(b, p.param);
    const pb::VarType::TensorDesc* td = v && is_dense_tensor(*v) ? tensor_desc(*v) : nullptr;
    bool known = td && td->dims_size() > 0;
    for (int d = 0; known && d < td->dims_size(); ++d) known = td->dims(d) > 0;
    if (!known) {
      diags.error(op_loc(main, origin, 0, i, p.param),
                  "distribute: the parameter must be a block-0 dense tensor with known, positive dims");
      continue;
    }
    p.dtype = td->data_type();
    p.dims.assign(td->dims().begin(), td->dims().end());
    out.push_back(std::move(p));
  }
  return out;
}

Plan plan_pserver(const pb::ProgramDesc& main, const std::string& origin, const DistributeOptions& o,
                  Diagnostics& diags) {
  Plan plan;
  plan.params = optimized_params(main, origin, diags);
  const int n = static_cast<int>(o.pservers.size());
  // Trainers' gradients get their trainer's suffix when the servers keep one
  // copy per trainer (sync mode with several trainers), as in Paddle.
  const std::string trainer = o.sync && o.trainers > 1 ? fmt::format(".trainer_{}", o.trainer_id) : "";
  int next = 0;  // round robin over every block of every parameter, in order
  for (ParamPlan& p : plan.params) {
    const std::vector<int64_t> sizes = block_sizes(p.dims, n, o.min_block_size);
    const int64_t row = [&] {
      int64_t r = 1;
      for (size_t d = 1; d < p.dims.size(); ++d) r *= p.dims[d];
      return r;
    }();
    for (size_t k = 0; k < sizes.size(); ++k) {
      Slice s;
      const bool whole = sizes.size() == 1;
      s.param = whole ? p.param : fmt::format("{}.block{}", p.param, k);
      s.server_grad = whole ? p.grad : fmt::format("{}.block{}", p.grad, k);
      s.grad = s.server_grad + trainer;
      s.dims = p.dims;
      s.dims[0] = sizes[k] / row;
      s.server = next++ % n;
      p.slices.push_back(std::move(s));
    }
  }
  return plan;
}

void set_attr_ints(pb::OpDesc& op, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = op.add_attrs();
  a->set_name(name);
  a->set_type(pb::INTS);
  for (int64_t x : v) a->add_ints(static_cast<int32_t>(x));
}

void set_attr_blocks(pb::OpDesc& op, const std::string& name, const std::vector<int>& blocks) {
  auto* a = op.add_attrs();
  a->set_name(name);
  a->set_type(pb::BLOCKS);
  for (int b : blocks) a->add_blocks_idx(b);
}

pb::OpDesc new_op(const std::string& type, int role) {
  pb::OpDesc op;
  op.set_type(type);
  ops::set_attr_int(op, "op_role", role);
  return op;
}

void declare_like(pb::BlockDesc& block, const std::string& name, const pb::VarDesc& like,
                  const std::vector<int64_t>& dims, bool persistable) {
  if (find_block_var(block, name)) return;
  pb::VarDesc* v = block.add_vars();
  *v = like;
  v->set_name(name);
  v->set_persistable(persistable);
  // A plain variable, as Paddle's create_var makes: a slice is not a
  // Parameter (Paddle rejects a Parameter and a variable of one name).
  v->clear_is_parameter();
  if (v->type().type() == pb::VarType::LOD_TENSOR) {
    auto* td = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
    td->clear_dims();
    for (int64_t d : dims) td->add_dims(d);
  }
}

std::string ControlVars::make(pb::BlockDesc& block) {
  std::string name;
  do name = fmt::format("__control_var@{}", next_++);
  while (find_block_var(block, name));
  pb::VarDesc* v = block.add_vars();
  v->set_name(name);
  // A dependency, no data: Paddle declares it as a plain (empty) tensor too.
  v->mutable_type()->set_type(pb::VarType::LOD_TENSOR);
  v->mutable_type()->mutable_lod_tensor()->mutable_tensor()->set_data_type(pb::VarType::FP32);
  return name;
}

void rename_var(pb::BlockDesc& block, const std::string& from, const std::string& to) {
  for (auto& op : *block.mutable_ops()) {
    for (auto* slots : {op.mutable_inputs(), op.mutable_outputs()})
      for (auto& slot : *slots)
        for (auto& arg : *slot.mutable_arguments())
          if (arg == from) arg = to;
  }
  if (pb::VarDesc* v = find_block_var(block, from)) v->set_name(to);
}

int last_writer(const pb::BlockDesc& block, const std::string& name, int before) {
  for (int i = std::min(before, block.ops_size()) - 1; i >= 0; --i)
    for (const auto& out : block.ops(i).outputs())
      for (const auto& arg : out.arguments())
        if (arg == name) return i;
  return -1;
}

}  // namespace fluidc::dist
