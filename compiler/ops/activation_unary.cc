// compiler/ops/activation_unary.cc - op table entries of kernels/activation_unary.h and kernels/unary_math.h.
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "compiler/ops/unary_def.h"
#include "kernels/activation.h"

namespace fluidc::ops {
namespace {

// isnan_v2 and friends: X's shape, bool elements.
void infer_bool_like_x(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = pb::VarType::BOOL;
  c.set_output("Out", out);
}

// Fluid 1.x's isnan and isinf: one bool for the whole of X.
void infer_one_bool(ShapeCtx& c) {
  TensorType out = c.input("X");
  out.dtype = pb::VarType::BOOL;
  out.dims = {1};
  out.known = true;  // whatever X is
  c.set_output("Out", out);
}

}  // namespace

void add_activation_unary_ops(std::vector<OpDef>& t) {
  using G = GradFrom;
  namespace k = kernels;
  // The grad slots (X or Out) are those Paddle 2.6's backward writes.
  add_unary<k::BreluAttrs>(t, "brelu", "Brelu", G::kX, "BreluAttrs");
  add_unary(t, "logsigmoid", "LogSigmoid", G::kX);
  add_unary<k::SeluAttrs>(t, "selu", "Selu", G::kOut, "SeluAttrs");
  add_unary<k::CeluAttrs>(t, "celu", "Celu", G::kX, "CeluAttrs");
  add_unary(t, "softsign", "Softsign", G::kX);
  add_unary<k::SoftshrinkAttrs>(t, "softshrink", "Softshrink", G::kX, "SoftshrinkAttrs");
  add_unary<k::HardShrinkAttrs>(t, "hard_shrink", "HardShrink", G::kX, "HardShrinkAttrs");
  add_unary(t, "tanh_shrink", "TanhShrink", G::kX);
  add_unary<k::ThresholdedReluAttrs>(t, "thresholded_relu", "ThresholdedRelu", G::kX, "ThresholdedReluAttrs");

  add_unary(t, "log1p", "Log1p", G::kX);
  add_unary(t, "log2", "Log2", G::kX);
  add_unary(t, "log10", "Log10", G::kX);
  add_unary(t, "expm1", "Expm1", G::kOut);
  for (auto [name, fn] : {std::pair{"asin", "Asin"}, {"acos", "Acos"}, {"atan", "Atan"}, {"tan", "Tan"},
                          {"sinh", "Sinh"}, {"cosh", "Cosh"}, {"asinh", "Asinh"}, {"acosh", "Acosh"},
                          {"atanh", "Atanh"}})
    add_unary(t, name, fn, G::kX);
  // paddle.logit (clip by eps) and paddle.erfinv (its gradient reads Out).
  add_unary<k::LogitAttrs>(t, "logit", "Logit", G::kX, "LogitAttrs");
  add_unary(t, "erfinv", "Erfinv", G::kOut);
  add_flat_unary(t, "round", "Round");
  add_flat_unary(t, "trunc", "Trunc");

  for (const char* name : {"isnan_v2", "isinf_v2", "isfinite_v2"})
    t.push_back({.type = name, .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
                 .infer_shape = infer_bool_like_x});
  for (const char* name : {"isnan", "isinf"})
    t.push_back({.type = name, .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
                 .infer_shape = infer_one_bool});
}

}  // namespace fluidc::ops
