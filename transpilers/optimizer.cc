// transpilers/optimizer.cc - the optimizer pass: update ops in main, state initialisation in startup.
#include "transpilers/optimizer.h"

#include <fmt/format.h>

#include "compiler/ir/program_info.h"
#include "compiler/ops/grad_util.h"

namespace fluidc {
namespace {

constexpr int kOpRoleOptimize = 0x0002;

class OptimizerPass {
 public:
  OptimizerPass(pb::ProgramDesc& main, pb::ProgramDesc& startup, const OptimizerOptions& o)
      : main_(*main.mutable_blocks(0)), startup_(*startup.mutable_blocks(0)), o_(o) {}

  void run(ParamGrads params) {
    lr_ = state_var("learning_rate_0", {}, pb::VarType::FP32, o_.learning_rate);
    if (o_.clip_norm > 0) params = clip_by_global_norm(params);
    for (const auto& [param, grad] : params) update(param, grad);
  }

 private:
  // A persistable variable in both programs, set to `value` by startup.
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
    ops::set_attr_float(fill, "value", static_cast<float>(value));
    ops::set_attr_string(fill, "str_value", "");
    ops::set_attr_int(fill, "op_role", 0);
    *startup_.add_ops() = std::move(fill);
    return name;
  }

  // State shaped like the parameter.
  std::string like_param(const std::string& param, const std::string& suffix, double value) {
    const pb::VarDesc* p = find_block_var(main_, param);
    const auto* td = tensor_desc(*p);
    return state_var(param + suffix, {td->dims().begin(), td->dims().end()}, td->data_type(), value);
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
    ops::set_attr_float(fill, "value", static_cast<float>(o_.clip_norm));
    ops::set_attr_string(fill, "str_value", "");
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

  void update(const std::string& param, std::string grad) {
    pb::OpDesc op;
    if (o_.type == "sgd") {
      if (o_.weight_decay > 0) grad = with_l2(param, grad);
      op.set_type("sgd");
      ops::add_input(op, "Param", {param});
      ops::add_input(op, "LearningRate", {lr_});
      ops::add_input(op, "Grad", {grad});
      ops::add_output(op, "ParamOut", {param});
    } else if (o_.type == "momentum") {
      std::string velocity = like_param(param, "_velocity_0", 0.0);
      op.set_type("momentum");
      ops::add_input(op, "Param", {param});
      ops::add_input(op, "Grad", {grad});
      ops::add_input(op, "Velocity", {velocity});
      ops::add_input(op, "LearningRate", {lr_});
      ops::add_output(op, "ParamOut", {param});
      ops::add_output(op, "VelocityOut", {velocity});
      ops::set_attr_float(op, "mu", static_cast<float>(o_.momentum));
      ops::set_attr_bool(op, "use_nesterov", o_.nesterov);
      ops::set_attr_string(op, "regularization_method", o_.weight_decay > 0 ? "l2_decay" : "");
      ops::set_attr_float(op, "regularization_coeff", static_cast<float>(o_.weight_decay));
      ops::set_attr_bool(op, "multi_precision", false);
      ops::set_attr_float(op, "rescale_grad", 1.0f);
    } else {  // adam
      if (o_.weight_decay > 0) grad = with_l2(param, grad);
      std::string m1 = like_param(param, "_moment1_0", 0.0), m2 = like_param(param, "_moment2_0", 0.0);
      const auto* td = tensor_desc(*find_block_var(main_, param));
      std::string b1 = state_var(param + "_beta1_pow_acc_0", {1}, td->data_type(), o_.beta1);
      std::string b2 = state_var(param + "_beta2_pow_acc_0", {1}, td->data_type(), o_.beta2);
      op.set_type("adam");
      ops::add_input(op, "Param", {param});
      ops::add_input(op, "Grad", {grad});
      ops::add_input(op, "LearningRate", {lr_});
      ops::add_input(op, "Moment1", {m1});
      ops::add_input(op, "Moment2", {m2});
      ops::add_input(op, "Beta1Pow", {b1});
      ops::add_input(op, "Beta2Pow", {b2});
      for (const auto& [slot, var] : {std::pair<std::string, std::string>{"ParamOut", param}, {"Moment1Out", m1},
                                      {"Moment2Out", m2}, {"Beta1PowOut", b1}, {"Beta2PowOut", b2}})
        ops::add_output(op, slot, {var});
      ops::set_attr_float(op, "beta1", static_cast<float>(o_.beta1));
      ops::set_attr_float(op, "beta2", static_cast<float>(o_.beta2));
      ops::set_attr_float(op, "epsilon", static_cast<float>(o_.epsilon));
      ops::set_attr_bool(op, "lazy_mode", false);
      ops::set_attr_bool(op, "multi_precision", false);
      ops::set_attr_bool(op, "use_global_beta_pow", false);
    }
    append(std::move(op), param, grad);
  }

  pb::BlockDesc& main_;
  pb::BlockDesc& startup_;
  const OptimizerOptions& o_;
  std::string lr_;
};

}  // namespace

void append_optimizer(pb::ProgramDesc& main, pb::ProgramDesc& startup, const ParamGrads& params,
                      const OptimizerOptions& options, Diagnostics& diags) {
  if (options.type != "sgd" && options.type != "momentum" && options.type != "adam") {
    diags.error({}, fmt::format("unknown optimizer '{}' (sgd, momentum or adam)", options.type));
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
  OptimizerPass(main, startup, options).run(params);
}

}  // namespace fluidc
