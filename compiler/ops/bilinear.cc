// compiler/ops/bilinear.cc - bilinear_tensor_product (paddle.nn.Bilinear) and its gradient.
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/bilinear.h"

namespace fluidc::ops {
namespace {

// The kernels' rule (kernels/shapes/bilinear.h).
void infer_bilinear(ShapeCtx& c) {
  rt::Shape xs, ys, ws, bs, os;
  for (auto [slot, s] : {std::pair{"X", &xs}, std::pair{"Y", &ys}, std::pair{"Weight", &ws}}) {
    const TensorType& t = c.input(slot);
    if (!t.known || !shape_rules::to_shape(c, t, *s)) return;
  }
  const bool has_bias = c.has_input("Bias");
  if (has_bias) {
    const TensorType& b = c.input("Bias");
    if (!b.known || !shape_rules::to_shape(c, b, bs)) return;
  }
  if (std::string e = shapes::bilinear_tensor_product_shape(xs, ys, ws, has_bias ? &bs : nullptr, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = c.input("X");
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// X@GRAD, Y@GRAD, Weight@GRAD like their inputs; Bias@GRAD [1, K] from
// Weight (Paddle's grad op has no Bias input).
void infer_bilinear_grad(ShapeCtx& c) {
  shape_rules::grads_like_inputs(c);
  if (!c.has_output("Bias@GRAD")) return;
  const TensorType& w = c.input("Weight");
  if (!w.known || w.dims.size() != 3) return;
  TensorType b = w;
  b.dims = {1, w.dims[0]};
  c.set_output("Bias@GRAD", b);
}

}  // namespace

void add_bilinear_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "bilinear_tensor_product", .family = "bilinear",
               .inputs = {{"X"}, {"Y"}, {"Weight"}, {"Bias", true}}, .outputs = {{"Out"}},
               .grad = "bilinear_tensor_product_grad", .infer_shape = infer_bilinear});
  t.push_back({.type = "bilinear_tensor_product_grad", .family = "bilinear",
               .inputs = {{"X"}, {"Y"}, {"Weight"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}, {"Weight@GRAD", true}, {"Bias@GRAD", true}},
               .infer_shape = infer_bilinear_grad});
}

}  // namespace fluidc::ops
