// compiler/ops/activation_more.cc - op table entries of the unary activations in kernels/activation_more.h, and log_softmax.
#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "compiler/ops/unary_def.h"
#include "kernels/shapes/activation.h"

namespace fluidc::ops {
namespace {

// The kernels' rule (kernels/shapes/activation.h): Out like X, axis in range.
void infer_log_softmax(ShapeCtx& c) { infer_out_by_rule<kernels::SoftmaxAttrs>(c, shapes::softmax_shape); }

// How each fusable activation's attributes travel as a convolution's
// fuse_alpha / fuse_beta; kernels/cpu/conv_epilogue.h reads them back into
// the same attribute struct.
bool relu6_epilogue(const pb::OpDesc& op, float& alpha, float& beta) {
  alpha = parse_attrs<kernels::Relu6Attrs>(op).threshold, beta = 0;
  return true;
}
bool leaky_relu_epilogue(const pb::OpDesc& op, float& alpha, float& beta) {
  alpha = parse_attrs<kernels::LeakyReluAttrs>(op).alpha, beta = 0;
  return true;
}
// Two values carry three attributes only in Paddle's form, where the
// clamp's threshold is also the divisor (6, 6, 3).
bool hard_swish_epilogue(const pb::OpDesc& op, float& alpha, float& beta) {
  const auto a = parse_attrs<kernels::HardSwishAttrs>(op);
  alpha = a.threshold, beta = a.offset;
  return a.scale == a.threshold;
}
bool hard_sigmoid_epilogue(const pb::OpDesc& op, float& alpha, float& beta) {
  const auto a = parse_attrs<kernels::HardSigmoidAttrs>(op);
  alpha = a.slope, beta = a.offset;
  return true;
}
bool swish_epilogue(const pb::OpDesc& op, float& alpha, float& beta) {
  alpha = parse_attrs<kernels::SwishAttrs>(op).beta, beta = 0;
  return true;
}
bool elu_epilogue(const pb::OpDesc& op, float& alpha, float& beta) {
  alpha = parse_attrs<kernels::EluAttrs>(op).alpha, beta = 0;
  return true;
}

}  // namespace

bool plain_conv_epilogue(const pb::OpDesc&, float& alpha, float& beta) {
  alpha = beta = 0;
  return true;
}

void add_activation_more_ops(std::vector<OpDef>& t) {
  using G = GradFrom;
  namespace k = kernels;
  add_unary<k::Relu6Attrs>(t, "relu6", "Relu6", G::kOut, "Relu6Attrs", relu6_epilogue);
  add_unary<k::LeakyReluAttrs>(t, "leaky_relu", "LeakyRelu", G::kX, "LeakyReluAttrs", leaky_relu_epilogue);
  add_unary<k::HardSwishAttrs>(t, "hard_swish", "HardSwish", G::kX, "HardSwishAttrs", hard_swish_epilogue);
  add_unary<k::HardSigmoidAttrs>(t, "hard_sigmoid", "HardSigmoid", G::kOut, "HardSigmoidAttrs",
                                 hard_sigmoid_epilogue);
  add_unary<k::SwishAttrs>(t, "swish", "Swish", G::kX, "SwishAttrs", swish_epilogue);
  add_unary(t, "silu", "Silu", G::kXOut, {}, "", plain_conv_epilogue);
  add_unary<k::EluAttrs>(t, "elu", "Elu", G::kXOut, "EluAttrs", elu_epilogue);
  add_unary<k::SoftplusAttrs>(t, "softplus", "Softplus", G::kX, "SoftplusAttrs");
  add_unary<k::MishAttrs>(t, "mish", "Mish", G::kX, "MishAttrs");
  add_unary<k::StanhAttrs>(t, "stanh", "Stanh", G::kX, "StanhAttrs");
  add_unary<k::SoftReluAttrs>(t, "soft_relu", "SoftRelu", G::kOut, "SoftReluAttrs");
  add_unary(t, "exp", "Exp", G::kOut);
  add_unary(t, "log", "Log", G::kX);
  add_unary(t, "rsqrt", "Rsqrt", G::kOut);
  add_unary(t, "reciprocal", "Reciprocal", G::kOut);
  add_unary(t, "abs", "Abs", G::kX);
  add_unary(t, "erf", "Erf", G::kX);
  add_unary(t, "sin", "Sin", G::kX);
  add_unary(t, "cos", "Cos", G::kX);
  add_unary<k::GeluAttrs>(t, "gelu", "Gelu", G::kX, "GeluAttrs");
  // Paddle gives sign a zero gradient (a scale by 0); it is left without a rule here.
  t.push_back({.type = "sign", .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .traits = kZeroGradient, .infer_shape = shape_rules::same_as_x, .pointwise = "Sign"});
  add_flat_unary(t, "floor", "Floor");
  add_flat_unary(t, "ceil", "Ceil");

  // pow's FactorTensor and clip's Min/Max are run-time scalars that win over
  // the attributes; fusion leaves an op with them alone (its scalar
  // function sees only the attributes).
  t.push_back({.type = "pow", .family = "activation", .inputs = {{"X"}, {"FactorTensor", true}},
               .outputs = {{"Out"}}, .attrs = kernel_attrs<k::PowAttrs>(), .attrs_struct = "PowAttrs",
               .grad = "pow_grad", .infer_shape = shape_rules::same_as_x, .pointwise = "Pow"});
  t.push_back({.type = "pow_grad", .family = "activation",
               .inputs = {{"X"}, {"FactorTensor", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<k::PowAttrs>(), .attrs_struct = "PowAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "clip", .family = "activation", .inputs = {{"X"}, {"Min", true}, {"Max", true}},
               .outputs = {{"Out"}}, .attrs = kernel_attrs<k::ClipAttrs>(), .attrs_struct = "ClipAttrs",
               .grad = "clip_grad", .infer_shape = shape_rules::same_as_x, .pointwise = "Clip"});
  t.push_back({.type = "clip_grad", .family = "activation",
               .inputs = {{"X"}, {"Min", true}, {"Max", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<k::ClipAttrs>(), .attrs_struct = "ClipAttrs",
               .infer_shape = shape_rules::grads_like_inputs});

  t.push_back({.type = "log_softmax", .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<k::SoftmaxAttrs>(), .attrs_struct = "SoftmaxAttrs", .grad = "log_softmax_grad",
               .infer_shape = infer_log_softmax});
  t.push_back({.type = "log_softmax_grad", .family = "activation", .inputs = {{"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<k::SoftmaxAttrs>(),
               .attrs_struct = "SoftmaxAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
