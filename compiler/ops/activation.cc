// compiler/ops/activation.cc - relu, sigmoid, tanh, sqrt, square, scale, softmax and their grads (the rest: activation_more.cc).
#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/activation.h"

namespace fluidc::ops {
namespace {

// d(scale*x + b)/dx = scale, with or without bias_after_scale: the gradient
// is a scale of Out@GRAD by the same factor and no bias.
bool scale_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                pb::OpDesc& grad) {
  if (!unary_self_grad(fwd, grad_of, grad)) return false;
  set_attr_float(grad, "bias", 0.0f);
  set_attr_bool(grad, "bias_after_scale", true);
  // A run-time factor scales the gradient too.
  if (auto st = op_inputs(fwd, "ScaleTensor"); !st.empty()) add_input(grad, "ScaleTensor", st);
  return true;
}

// The kernels' rule (kernels/shapes/activation.h): Out like X, axis in range.
void infer_softmax(ShapeCtx& c) { infer_out_by_rule<kernels::SoftmaxAttrs>(c, shapes::softmax_shape); }

}  // namespace

// compiler/ops/activation_more.cc: the other unary activations, clip, pow, log_softmax.
void add_activation_more_ops(std::vector<OpDef>& t);
// compiler/ops/activation_unary.cc: brelu ... thresholded_relu, log1p ... atanh, round, trunc, isnan_v2 ...
void add_activation_unary_ops(std::vector<OpDef>& t);
// The ConvEpilogueFn of an activation without parameters (activation_more.cc).
bool plain_conv_epilogue(const pb::OpDesc&, float& alpha, float& beta);

void add_activation_ops(std::vector<OpDef>& t) {
  // Activations whose gradient is a function of the output.
  for (auto [name, fn] : {std::pair{"relu", "Relu"}, {"sigmoid", "Sigmoid"}, {"tanh", "Tanh"}}) {
    std::string fwd = name;
    t.push_back({.type = fwd, .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
                 .grad = fwd + "_grad", .infer_shape = shape_rules::same_as_x, .pointwise = fn,
                 .conv_epilogue = plain_conv_epilogue, .in_place = kUnaryInPlace});
    t.push_back({.type = fwd + "_grad", .family = "activation", .inputs = {{"Out"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs,
                 .in_place = kUnaryGradInPlace});
  }
  t.push_back({.type = "sqrt", .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .grad = "sqrt_grad", .infer_shape = shape_rules::same_as_x, .pointwise = "Sqrt",
               .in_place = kUnaryInPlace});
  t.push_back({.type = "sqrt_grad", .family = "activation", .inputs = {{"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs,
               .in_place = kUnaryGradInPlace});
  t.push_back({.type = "square", .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .grad = "square_grad", .infer_shape = shape_rules::same_as_x, .pointwise = "Square",
               .in_place = kUnaryInPlace});
  t.push_back({.type = "square_grad", .family = "activation", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs,
               .in_place = kUnaryGradInPlace});
  // Paddle differentiates scale by another scale op (bias dropped).
  // ScaleTensor: a factor computed at run time, which wins over `scale`.
  t.push_back({.type = "scale",
               .family = "activation",
               .inputs = {{"X"}, {"ScaleTensor", true}},
               .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::ScaleAttrs>(),
               .attrs_struct = "ScaleAttrs",
               .grad = "scale",
               .make_grad = scale_grad,
               .infer_shape = shape_rules::same_as_x,
               .pointwise = "Scale",
               .in_place = kUnaryInPlace});
  t.push_back({.type = "softmax", .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::SoftmaxAttrs>(), .attrs_struct = "SoftmaxAttrs", .grad = "softmax_grad",
               .infer_shape = infer_softmax, .share_lod = "X"});
  t.push_back({.type = "softmax_grad", .family = "activation", .inputs = {{"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<kernels::SoftmaxAttrs>(),
               .attrs_struct = "SoftmaxAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  add_activation_more_ops(t);
  add_activation_unary_ops(t);
}

}  // namespace fluidc::ops
