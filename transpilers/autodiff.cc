// transpilers/autodiff.cc - reverse-mode differentiation of block 0, written as ProgramDesc ops.
#include "transpilers/autodiff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "compiler/ir/attrs.h"
#include "compiler/analysis/program_info.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

const std::string& kGrad = kGradSuffix;

bool is_float(pb::VarType::Type t) {
  return t == pb::VarType::FP32 || t == pb::VarType::FP64 || t == pb::VarType::FP16 || t == pb::VarType::BF16;
}

class Backward {
 public:
  Backward(pb::ProgramDesc& prog, const std::string& origin, const AutodiffOptions& opts, Diagnostics& diags)
      : prog_(prog), block_(*prog.mutable_blocks(0)), origin_(origin), opts_(opts), diags_(diags) {
    for (int i = 0; i < block_.vars_size(); ++i) vars_[block_.vars(i).name()] = i;
  }

  ParamGrads run() {
    if (!vars_.count(opts_.loss)) {
      error(-1, opts_.loss, "the loss variable is not defined in block 0");
      return {};
    }
    const int n_forward = block_.ops_size();
    for (int i = 0; i < n_forward; ++i)
      if (attr_int(block_.ops(i), "op_role", 0) & (kOpRoleBackward | kOpRoleOptimize))
        return error(i, "", "the program already has backward or optimizer ops"), ParamGrads{};
    mark_requires_grad(n_forward);
    std::vector<int> path = ops_on_path(n_forward);
    count_contributions(path);
    if (diags_.has_errors()) return {};
    mark_loss(loss_producer(n_forward));
    seed();
    for (auto it = path.rbegin(); it != path.rend(); ++it) emit_grad_op(*it);
    // Sorted by parameter name: the order of Paddle's parameter list, so the
    // optimizer ops come out in the order Paddle writes them.
    ParamGrads out;
    for (const auto& v : block_.vars())
      if (is_trainable(v) && grads_.count(v.name())) out.emplace_back(v.name(), grads_[v.name()]);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  void error(int op, const std::string& var, const std::string& msg) {
    Program p = Program::from_desc(prog_, origin_);
    diags_.error(p.loc(0, op, var), msg);
  }

  const pb::VarDesc* var(const std::string& name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &block_.vars(it->second);
  }

  bool is_trainable(const pb::VarDesc& v) const {
    const auto* td = tensor_desc(v);
    return v.persistable() && !v.stop_gradient() && td && is_float(td->data_type()) && !opts_.no_grad.count(v.name());
  }

  // A variable needs a gradient when it is a trainable parameter or is
  // computed (in float) from one, unless stop_gradient or no_grad cut it off.
  void mark_requires_grad(int n_forward) {
    for (const auto& v : block_.vars())
      if (is_trainable(v)) requires_.insert(v.name());
    for (int i = 0; i < n_forward; ++i) {
      const auto& op = block_.ops(i);
      // A gradient of zeros (Paddle's floor_grad, round_grad, ...) adds nothing.
      if (const ops::OpDef* def = ops::find_op(op.type()); def && def->has(ops::kZeroGradient)) continue;
      bool any = false;
      for (const auto& in : op.inputs())
        for (const auto& a : in.arguments()) any |= requires_.count(a) > 0;
      if (!any) continue;
      for (const auto& out : op.outputs())
        for (const auto& a : out.arguments()) {
          const pb::VarDesc* v = var(a);
          const auto* td = v ? tensor_desc(*v) : nullptr;
          if (td && is_float(td->data_type()) && !v->stop_gradient() && !opts_.no_grad.count(a)) requires_.insert(a);
        }
    }
  }

  // The op that writes the loss (its output may be marked stop_gradient by
  // Paddle's loss helpers; it is differentiated regardless).
  int loss_producer(int n_forward) const {
    for (int i = n_forward - 1; i >= 0; --i)
      for (const auto& out : block_.ops(i).outputs())
        for (const auto& a : out.arguments())
          if (a == opts_.loss) return i;
    return -1;
  }

  // Forward ops whose outputs reach the loss and that have an input needing
  // a gradient, in program order.
  std::vector<int> ops_on_path(int n_forward) {
    std::set<std::string> needed = {opts_.loss};
    std::vector<int> path;
    for (int i = n_forward - 1; i >= 0; --i) {
      const auto& op = block_.ops(i);
      // An op is differentiated when an output that carries a gradient
      // (not stop_gradient) leads to the loss.
      bool feeds_loss = false;
      for (const auto& out : op.outputs())
        for (const auto& a : out.arguments()) feeds_loss |= needed.count(a) > 0 && requires_.count(a) > 0;
      if (!feeds_loss && !(i == loss_producer(n_forward))) continue;
      for (const auto& in : op.inputs())
        for (const auto& a : in.arguments()) needed.insert(a);
      bool any = false;
      for (const auto& in : op.inputs())
        for (const auto& a : in.arguments()) any |= requires_.count(a) > 0;
      if (!any) continue;
      const ops::OpDef* def = ops::find_op(op.type());
      if (!def) error(i, "", fmt::format("op {} is not supported", op.type()));
      else if (def->has(ops::kOwnsBlock)) error(i, "", "autodiff through control flow ops is not supported yet");
      else if (def->grad.empty() && !def->make_grad) error(i, "", fmt::format("{} has no gradient rule", op.type()));
      path.push_back(i);
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  // How many gradient contributions each variable will receive: one per
  // input slot position of an op on the path (x * x contributes twice).
  void count_contributions(const std::vector<int>& path) {
    for (int i : path) {
      const auto& op = block_.ops(i);
      const ops::OpDef* def = ops::find_op(op.type());
      const ops::OpDef* gdef = def->make_grad ? nullptr : ops::find_op(def->grad);
      for (const auto& in : op.inputs()) {
        // Only slots the gradient rule differentiates receive a contribution
        // (grad makers differentiate X).
        bool differentiated = gdef ? gdef->output(in.parameter() + kGrad) != nullptr : in.parameter() == "X";
        if (!differentiated) continue;
        for (const auto& a : in.arguments())
          if (requires_.count(a)) ++expected_[a];
      }
    }
  }

  void declare_grad_var(const std::string& fwd, const std::string& name) {
    if (vars_.count(name)) return;
    const pb::VarDesc* v = var(fwd);
    pb::VarDesc g;
    g.set_name(name);
    *g.mutable_type() = v->type();
    vars_[name] = block_.vars_size();
    *block_.add_vars() = g;
  }

  // The name the next gradient contribution to `fwd` is written under.
  std::string contribution_name(const std::string& fwd) {
    const std::string full = fwd + kGrad;
    std::string name = expected_[fwd] > 1 ? fmt::format("{}@RENAME@block0@{}", full, produced_[fwd].size()) : full;
    produced_[fwd].push_back(name);
    declare_grad_var(fwd, name);
    return name;
  }

  // After an op's last contribution to `fwd` is written, add them up.
  void finish_contributions(const std::string& fwd, std::vector<std::string>& sums) {
    if (expected_[fwd] > 1 && static_cast<int>(produced_[fwd].size()) == expected_[fwd]) sums.push_back(fwd);
    if (static_cast<int>(produced_[fwd].size()) == expected_[fwd]) {
      grads_[fwd] = fwd + kGrad;
      declare_grad_var(fwd, fwd + kGrad);
    }
  }

  void append(pb::OpDesc op, int role, const std::vector<std::string>& role_vars) {
    ops::set_attr_int(op, "op_role", role);
    if (!role_vars.empty()) ops::set_attr_strings(op, "op_role_var", role_vars);
    *block_.add_ops() = std::move(op);
  }

  // Paddle marks the op that writes the loss Forward|Loss; program analysis
  // finds the loss by that mark, not from the seed's output name.
  void mark_loss(int producer) {
    if (producer >= 0) ops::set_attr_int(*block_.mutable_ops(producer), "op_role", kOpRoleForward | kOpRoleLoss);
  }

  void seed() {
    const pb::VarDesc* loss = var(opts_.loss);
    const auto* td = tensor_desc(*loss);
    pb::OpDesc fill;
    fill.set_type("fill_constant");
    std::string g = opts_.loss + kGrad;
    declare_grad_var(opts_.loss, g);
    ops::add_output(fill, "Out", {g});
    std::vector<int64_t> shape(td->dims().begin(), td->dims().end());
    for (auto& d : shape) d = d < 0 ? 1 : d;
    ops::set_attr_longs(fill, "shape", shape);
    ops::set_attr_int(fill, "dtype", td->data_type());
    ops::set_attr_float(fill, "value", 1.0f);
    ops::set_attr_string(fill, "str_value", "");
    grads_[opts_.loss] = g;
    append(std::move(fill), kOpRoleBackward | kOpRoleLoss, {});
  }

  // The gradient variable of a forward output, or "" when the loss does not
  // depend on it.
  std::string grad_of_output(const std::string& name) const {
    auto it = grads_.find(name);
    return it == grads_.end() ? "" : it->second;
  }

  void emit_grad_op(int index) {
    const pb::OpDesc fwd = block_.ops(index);
    const ops::OpDef* def = ops::find_op(fwd.type());
    std::vector<std::string> sums;
    std::vector<std::string> role_vars;
    pb::OpDesc g;
    // Contribution names are handed out as the grad op's outputs are built.
    // An output the loss does not reach gets a gradient of zeros, as in
    // Paddle's backward (split's concat, unbind's stack and meshgrid_grad
    // read every output's gradient). The fills are appended only when the
    // maker emits its op.
    std::vector<std::string> zero_fills;  // forward outputs whose zero gradients the maker reads
    auto grad_of = [&](const std::string& name) -> std::string {
      for (const auto& out : fwd.outputs())
        for (const auto& a : out.arguments())
          if (a == name) {
            std::string d = grad_of_output(name);
            return d.empty() ? zeros_like(a, &zero_fills) : d;
          }
      if (!requires_.count(name)) return "";
      return contribution_name(name);
    };
    if (def->make_grad) {
      if (!def->make_grad(fwd, grad_of, g)) return;
      write_zero_fills(zero_fills);
    } else {
      const ops::OpDef* gdef = ops::find_op(def->grad);
      g.set_type(def->grad);
      for (const auto& slot : gdef->inputs) {
        std::vector<std::string> args;
        if (slot.name.size() > kGrad.size() && slot.name.ends_with(kGrad)) {
          std::string base = slot.name.substr(0, slot.name.size() - kGrad.size());
          for (const auto& a : op_outputs(fwd, base)) {
            std::string d = grad_of_output(a);
            if (d.empty()) d = zeros_like(a);
            args.push_back(d);
          }
        } else if (def->input(slot.name)) {
          args = op_inputs(fwd, slot.name);
        } else if (def->output(slot.name)) {
          args = op_outputs(fwd, slot.name);
        }
        if (!args.empty()) ops::add_input(g, slot.name, args);
      }
      for (const auto& slot : gdef->outputs) {
        if (!slot.name.ends_with(kGrad)) continue;
        std::string base = slot.name.substr(0, slot.name.size() - kGrad.size());
        std::vector<std::string> args;
        bool any = false;
        for (const auto& v : fwd.inputs())
          if (v.parameter() == base)
            for (const auto& a : v.arguments()) {
              std::string d = requires_.count(a) ? contribution_name(a) : "@EMPTY@";
              any |= d != "@EMPTY@";
              args.push_back(d);
            }
        if (any) ops::add_output(g, slot.name, args);
      }
      ops::copy_semantic_attrs(fwd, g);
    }
    // Parameters this op differentiates are named in op_role_var, as Paddle does.
    for (const auto& in : fwd.inputs())
      for (const auto& a : in.arguments()) {
        const pb::VarDesc* v = var(a);
        if (v && is_trainable(*v) && requires_.count(a) && !produced_[a].empty())
          role_vars.insert(role_vars.end(), {a, a + kGrad});
      }
    append(std::move(g), kOpRoleBackward, role_vars);
    std::set<std::string> touched;
    for (const auto& in : fwd.inputs())
      for (const auto& a : in.arguments())
        if (requires_.count(a) && expected_.count(a) && touched.insert(a).second) finish_contributions(a, sums);
    for (const auto& name : sums) {
      pb::OpDesc sum;
      sum.set_type("sum");
      ops::add_input(sum, "X", produced_[name]);
      ops::add_output(sum, "Out", {name + kGrad});
      append(std::move(sum), kOpRoleBackward, {});
    }
  }

  // Paddle fills the gradient of an output nobody differentiates with zeros.
  // With `pending`, the forward variable is queued and its fill (and the
  // variable) written by write_zero_fills once the caller knows the gradient
  // op is emitted; else both are written now.
  std::string zeros_like(const std::string& fwd, std::vector<std::string>* pending = nullptr) {
    std::string name = fwd + kGrad + "@ZERO";
    if (vars_.count(name)) return name;
    if (!pending) write_zero_fills({fwd});
    else if (std::find(pending->begin(), pending->end(), fwd) == pending->end()) pending->push_back(fwd);
    return name;
  }

  void write_zero_fills(const std::vector<std::string>& fwds) {
    for (const auto& fwd : fwds) {
      const std::string name = fwd + kGrad + "@ZERO";
      declare_grad_var(fwd, name);
      pb::OpDesc fill;
      fill.set_type("fill_any_like");
      ops::add_input(fill, "X", {fwd});
      ops::add_output(fill, "Out", {name});
      ops::set_attr_float(fill, "value", 0.0f);
      ops::set_attr_int(fill, "dtype", -1);
      append(std::move(fill), kOpRoleBackward, {});
    }
  }

  pb::ProgramDesc& prog_;
  pb::BlockDesc& block_;
  std::string origin_;
  const AutodiffOptions& opts_;
  Diagnostics& diags_;
  std::map<std::string, int> vars_;
  std::set<std::string> requires_;
  std::map<std::string, int> expected_;
  std::map<std::string, std::vector<std::string>> produced_;
  std::map<std::string, std::string> grads_;
};

}  // namespace

ParamGrads append_backward(pb::ProgramDesc& prog, const std::string& origin, const AutodiffOptions& options,
                           Diagnostics& diags) {
  return Backward(prog, origin, options, diags).run();
}

}  // namespace fluidc
