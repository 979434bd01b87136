// compiler/ops/optimizer.cc - sgd, momentum and adam: the ops that make a program a trainer.
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"

namespace fluidc::ops {

void add_optimizer_ops(std::vector<OpDef>& t) {
  const unsigned traits = kOptimizer | kSideEffect;
  t.push_back({.type = "sgd", .family = "optimizer", .inputs = {{"Param"}, {"LearningRate"}, {"Grad"}},
               .outputs = {{"ParamOut"}}, .traits = traits, .infer_shape = shape_rules::outs_like_inputs});
  t.push_back({.type = "momentum",
               .family = "optimizer",
               .inputs = {{"Param"}, {"Grad"}, {"Velocity"}, {"LearningRate"}},
               .outputs = {{"ParamOut"}, {"VelocityOut"}},
               .attrs = {{"mu", pb::FLOAT, true}, {"use_nesterov", pb::BOOLEAN},
                         {"regularization_method", pb::STRING}, {"regularization_coeff", pb::FLOAT},
                         {"rescale_grad", pb::FLOAT}},
               .attrs_struct = "MomentumAttrs",
               .traits = traits,
               .infer_shape = shape_rules::outs_like_inputs});
  t.push_back({.type = "adam",
               .family = "optimizer",
               .inputs = {{"Param"}, {"Grad"}, {"LearningRate"}, {"Moment1"}, {"Moment2"}, {"Beta1Pow"},
                          {"Beta2Pow"}, {"Beta1Tensor", true}, {"Beta2Tensor", true}, {"EpsilonTensor", true}},
               .outputs = {{"ParamOut"}, {"Moment1Out"}, {"Moment2Out"}, {"Beta1PowOut", true},
                           {"Beta2PowOut", true}},
               .attrs = {{"beta1", pb::FLOAT}, {"beta2", pb::FLOAT}, {"epsilon", pb::FLOAT},
                         {"lazy_mode", pb::BOOLEAN}, {"use_global_beta_pow", pb::BOOLEAN}},
               .attrs_struct = "AdamAttrs",
               .traits = traits,
               .infer_shape = shape_rules::outs_like_inputs});
}

}  // namespace fluidc::ops
