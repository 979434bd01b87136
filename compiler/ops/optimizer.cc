// compiler/ops/optimizer.cc - sgd, momentum and adam: the ops that make a program a trainer.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/optimizer.h"

namespace fluidc::ops {
namespace {

// State names, initial values and attribute defaults are Paddle's
// (SGDOptimizer, MomentumOptimizer, AdamOptimizer), so a program fluidc
// extends loads into Paddle with the accumulators it expects.
const OptimizerDef kSgd{};

const OptimizerDef kMomentum{
    .state = {{.input = "Velocity", .output = "VelocityOut", .suffix = "_velocity_0"}},
    .attrs = {{"mu", pb::FLOAT, 0.9}, {"use_nesterov", pb::BOOLEAN, 0}, {"multi_precision", pb::BOOLEAN, 0},
              {"rescale_grad", pb::FLOAT, 1.0}},
    .l2_method_attr = "regularization_method",
    .l2_coeff_attr = "regularization_coeff",
};

// Beta powers start at beta (the first step's bias correction uses beta^1).
const OptimizerDef kAdam{
    .state = {{.input = "Moment1", .output = "Moment1Out", .suffix = "_moment1_0"},
              {.input = "Moment2", .output = "Moment2Out", .suffix = "_moment2_0"},
              {.input = "Beta1Pow", .output = "Beta1PowOut", .suffix = "_beta1_pow_acc_0", .scalar = true,
               .init_attr = "beta1"},
              {.input = "Beta2Pow", .output = "Beta2PowOut", .suffix = "_beta2_pow_acc_0", .scalar = true,
               .init_attr = "beta2"}},
    .attrs = {{"beta1", pb::FLOAT, 0.9}, {"beta2", pb::FLOAT, 0.999}, {"epsilon", pb::FLOAT, 1e-8},
              {"lazy_mode", pb::BOOLEAN, 0}, {"multi_precision", pb::BOOLEAN, 0},
              {"use_global_beta_pow", pb::BOOLEAN, 0}},
};

}  // namespace

void add_optimizer_ops(std::vector<OpDef>& t) {
  const unsigned traits = kOptimizer | kSideEffect;
  // Paddle's sparse sgd and momentum give every row the update a zero
  // gradient gives it: the dense update. Its sparse adam does not (without
  // lazy_mode it takes the bias correction of the next step: the first
  // update of a row is 0.744 lr, not lr, measured against Paddle 2.6.2),
  // so adam refuses a SELECTED_ROWS gradient.
  const SlotDef grad{.name = "Grad", .rows_as_dense = true};
  t.push_back({.type = "sgd", .family = "optimizer", .inputs = {{"Param"}, {"LearningRate"}, grad},
               .outputs = {{"ParamOut"}}, .traits = traits, .infer_shape = shape_rules::outs_like_inputs,
               .optimizer = &kSgd});
  t.push_back({.type = "momentum",
               .family = "optimizer",
               .inputs = {{"Param"}, grad, {"Velocity"}, {"LearningRate"}},
               .outputs = {{"ParamOut"}, {"VelocityOut"}},
               .attrs = kernel_attrs<kernels::MomentumAttrs>(),
               .attrs_struct = "MomentumAttrs",
               .traits = traits,
               .infer_shape = shape_rules::outs_like_inputs,
               .optimizer = &kMomentum});
  t.push_back({.type = "adam",
               .family = "optimizer",
               .inputs = {{"Param"}, {"Grad"}, {"LearningRate"}, {"Moment1"}, {"Moment2"}, {"Beta1Pow"},
                          {"Beta2Pow"}, {"Beta1Tensor", true}, {"Beta2Tensor", true}, {"EpsilonTensor", true}},
               .outputs = {{"ParamOut"}, {"Moment1Out"}, {"Moment2Out"}, {"Beta1PowOut", true},
                           {"Beta2PowOut", true}},
               .attrs = kernel_attrs<kernels::AdamAttrs>(),
               .attrs_struct = "AdamAttrs",
               .traits = traits,
               .infer_shape = shape_rules::outs_like_inputs,
               .optimizer = &kAdam});
}

}  // namespace fluidc::ops
