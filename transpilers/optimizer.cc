// transpilers/optimizer.cc - the optimizer pass: update ops in main, state initialisation in startup.
#include "transpilers/optimizer.h"

#include <fmt/format.h>

#include "compiler/analysis/program_info.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"

namespace fluidc {
namespace {

class OptimizerPass {
 public:
  OptimizerPass(pb::ProgramDesc& main, pb::ProgramDesc& startup, const OptimizerOptions& o,
                const ops::OpDef& def)
      : main_(*main.mutable_blocks(0)), startup_(*startup.mutable_blocks(0)), o_(o), def_(def),
        opt_(*def.optimizer) {}

  void run(ParamGrads params) {
    // Learning rates first: their variables and fills lead, as in Paddle.
    for (const auto& pg : params) learning_rate(tensor_desc(*find_block_var(main_, pg.first))->data_type());
    if (o_.clip_norm > 0) params = clip_by_global_norm(params);
    for (const auto& [param, grad] : params) update(param, grad);
  }

 private:
  // A persistable variable in both programs, set to `value` by startup.
  // str_value carries the value exactly (shortest round-trip decimal), so a
  // float64 state starts at 0.9, not at float(0.9).
  std::string state_var(const std::string& name, const std::vector<int64_t>& dims, pb::VarType::Type dtype,
                        double value) {
    for (pb::BlockDesc* b : {&main_, &startup_}) {
      if (find_block_var(*b, name)) continue;
      pb::VarDesc& v = add_tensor_var(*b, name, dtype, dims);
      v.set_persistable(true);
      v.set_stop_gradient(true);
    }
    pb::OpDesc fill;
    fill.set_type("fill_constant");
    ops::add_output(fill, "Out", {name});
    ops::set_attr_longs(fill, "shape", dims);
    ops::set_attr_int(fill, "dtype", dtype);
    set_exact_value(fill, value);
    ops::set_attr_int(fill, "op_role", 0);
    *startup_.add_ops() = std::move(fill);
    return name;
  }

  static void set_exact_value(pb::OpDesc& fill, double value) {
    ops::set_attr_float(fill, "value", static_cast<float>(value));
    ops::set_attr_string(fill, "str_value", fmt::format("{}", value));
  }

  // The learning-rate variable for parameters of `dtype`: Paddle's
  // learning_rate_0 for the first dtype seen, learning_rate_<n> after it.
  std::string learning_rate(pb::VarType::Type dtype) {
    auto it = lr_.find(dtype);
    if (it != lr_.end()) return it->second;
    std::string name = fmt::format("learning_rate_{}", lr_.size());
    lr_[dtype] = name;
    return state_var(name, {}, dtype, o_.learning_rate);
  }

  // An optimizer attribute: the command line's value, else the OpDef's default.
  double attr_value(const std::string& name) const {
    auto given = o_.attrs.find(name);
    if (given != o_.attrs.end()) return given->second;
    for (const auto& a : opt_.attrs)
      if (a.name == name) return a.default_value;
    internal_error(fmt::format("{}: optimizer state starts at attribute {}, which it does not declare", def_.type,
                               name));
  }

  void append(pb::OpDesc op, const std::string& param, const std::string& grad) {
    ops::set_attr_int(op, "op_role", kOpRoleOptimize);
    if (!param.empty()) ops::set_attr_strings(op, "op_role_var", {param, grad});
    *main_.add_ops() = std::move(op);
  }

  // A temporary of `like`'s type, or of dtype/dims given explicitly.
  std::string temp(const std::string& name, const pb::VarDesc& like) {
    auto* v = main_.add_vars();
    *v = like;
    v->set_name(name);
    v->set_persistable(false);
    return name;
  }

  pb::OpDesc op_of(const std::string& type, std::vector<std::pair<std::string, std::vector<std::string>>> ins,
                   const std::string& out) {
    pb::OpDesc op;
    op.set_type(type);
    for (const auto& [slot, args] : ins) ops::add_input(op, slot, args);
    ops::add_output(op, "Out", {out});
    return op;
  }

  // Every gradient times clip_norm / max(global_norm, clip_norm).
  ParamGrads clip_by_global_norm(const ParamGrads& params) {
    const pb::VarDesc& p0 = *find_block_var(main_, params[0].first);
    pb::VarDesc scalar = p0;
    auto* td = scalar.mutable_type()->mutable_lod_tensor()->mutable_tensor();
    td->clear_dims();
    td->add_dims(1);
    std::vector<std::string> squares;
    for (const auto& [param, grad] : params) {
      std::string sq = temp(grad + "@SQUARED_NORM", scalar);
      append(op_of("squared_l2_norm", {{"X", {grad}}}, sq), param, grad);
      squares.push_back(sq);
    }
    std::string total = temp("global_norm@SQUARED", scalar), norm = temp("global_norm", scalar);
    std::string max_norm = temp("global_norm@MAX", scalar), denom = temp("global_norm@DENOM", scalar);
    std::string factor = temp("global_norm@SCALE", scalar);
    append(op_of("sum", {{"X", squares}}, total), "", "");
    append(op_of("sqrt", {{"X", {total}}}, norm), "", "");
    pb::OpDesc fill = op_of("fill_constant", {}, max_norm);
    ops::set_attr_longs(fill, "shape", {1});
    ops::set_attr_int(fill, "dtype", td->data_type());
    set_exact_value(fill, o_.clip_norm);
    append(std::move(fill), "", "");
    pb::OpDesc mx = op_of("elementwise_max", {{"X", {norm}}, {"Y", {max_norm}}}, denom);
    ops::set_attr_int(mx, "axis", -1);
    append(std::move(mx), "", "");
    pb::OpDesc div = op_of("elementwise_div", {{"X", {max_norm}}, {"Y", {denom}}}, factor);
    ops::set_attr_int(div, "axis", -1);
    append(std::move(div), "", "");
    ParamGrads clipped;
    for (const auto& [param, grad] : params) {
      std::string g = temp(grad + "@CLIP", *find_block_var(main_, grad));
      pb::OpDesc mul = op_of("elementwise_mul", {{"X", {grad}}, {"Y", {factor}}}, g);
      ops::set_attr_int(mul, "axis", -1);
      append(std::move(mul), param, grad);
      clipped.emplace_back(param, g);
    }
    return clipped;
  }

  // grad + coeff * param, as Paddle's L2Decay regularizer writes it.
  std::string with_l2(const std::string& param, const std::string& grad) {
    const pb::VarDesc* g = find_block_var(main_, grad);
    std::string decay = param + "@L2DECAY", sum = grad + "@L2";
    for (const std::string& name : {decay, sum}) {
      auto* v = main_.add_vars();
      *v = *g;
      v->set_name(name);
    }
    pb::OpDesc scale;
    scale.set_type("scale");
    ops::add_input(scale, "X", {param});
    ops::add_output(scale, "Out", {decay});
    ops::set_attr_float(scale, "scale", static_cast<float>(o_.weight_decay));
    ops::set_attr_float(scale, "bias", 0.0f);
    ops::set_attr_bool(scale, "bias_after_scale", true);
    append(std::move(scale), param, grad);
    pb::OpDesc add;
    add.set_type("sum");
    ops::add_input(add, "X", {grad, decay});
    ops::add_output(add, "Out", {sum});
    append(std::move(add), param, grad);
    return sum;
  }

  // One op of the declared type: parameter, gradient and learning-rate
  // slots, each state slot pair bound to its variable, then the attributes.
  void update(const std::string& param, std::string grad) {
    const auto* td = tensor_desc(*find_block_var(main_, param));
    const pb::VarType::Type dtype = td->data_type();
    const bool own_l2 = !opt_.l2_coeff_attr.empty();
    if (o_.weight_decay > 0 && !own_l2) grad = with_l2(param, grad);
    pb::OpDesc op;
    op.set_type(def_.type);
    ops::add_input(op, opt_.param, {param});
    ops::add_input(op, opt_.grad, {grad});
    ops::add_input(op, opt_.learning_rate, {learning_rate(dtype)});
    ops::add_output(op, opt_.param_out, {param});
    for (const auto& s : opt_.state) {
      std::vector<int64_t> dims = s.scalar ? std::vector<int64_t>{1} : std::vector<int64_t>(td->dims().begin(), td->dims().end());
      double init = s.init_attr.empty() ? s.init : attr_value(s.init_attr);
      std::string var = state_var(param + s.suffix, dims, dtype, init);
      ops::add_input(op, s.input, {var});
      ops::add_output(op, s.output, {var});
    }
    for (const auto& a : opt_.attrs) {
      if (a.type == pb::BOOLEAN) ops::set_attr_bool(op, a.name, attr_value(a.name) != 0);
      else ops::set_attr_float(op, a.name, static_cast<float>(attr_value(a.name)));
    }
    if (own_l2) {
      ops::set_attr_string(op, opt_.l2_method_attr, o_.weight_decay > 0 ? "l2_decay" : "");
      ops::set_attr_float(op, opt_.l2_coeff_attr, static_cast<float>(o_.weight_decay));
    }
    append(std::move(op), param, grad);
  }

  pb::BlockDesc& main_;
  pb::BlockDesc& startup_;
  const OptimizerOptions& o_;
  const ops::OpDef& def_;
  const ops::OptimizerDef& opt_;
  std::map<pb::VarType::Type, std::string> lr_;
};

}  // namespace

void append_optimizer(pb::ProgramDesc& main, pb::ProgramDesc& startup, const ParamGrads& params,
                      const OptimizerOptions& options, Diagnostics& diags) {
  const ops::OpDef* def = ops::find_op(options.type);
  if (!def || !def->has(ops::kOptimizer) || !def->optimizer) {
    std::vector<std::string> known;
    for (const auto& d : ops::all_ops())
      if (d.optimizer) known.push_back(d.type);
    diags.error({}, fmt::format("unknown optimizer '{}' ({})", options.type, fmt::join(known, ", ")));
    return;
  }
  if (params.empty()) {
    diags.error({}, "no parameter reaches the loss: nothing to optimize");
    return;
  }
  if (startup.blocks_size() == 0) {
    auto* b = startup.add_blocks();
    b->set_idx(0);
    b->set_parent_idx(-1);
  }
  OptimizerPass(main, startup, options, *def).run(params);
}

}  // namespace fluidc
