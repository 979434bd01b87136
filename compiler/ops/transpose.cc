// compiler/ops/transpose.cc - transpose2, Fluid 1.x's transpose and their grads.
#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/transpose.h"

namespace fluidc::ops {
namespace {

void infer_transpose2(ShapeCtx& c) { infer_out_by_rule<kernels::TransposeAttrs>(c, shapes::transpose_shape); }

}  // namespace

void add_transpose_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "transpose2", .family = "transpose", .inputs = {{"X"}}, .outputs = {{"Out"}, {"XShape", true}},
               .attrs = kernel_attrs<kernels::TransposeAttrs>(), .attrs_struct = "TransposeAttrs",
               .grad = "transpose2_grad", .infer_shape = infer_transpose2});
  t.push_back({.type = "transpose2_grad", .family = "transpose", .inputs = {{"XShape"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<kernels::TransposeAttrs>(),
               .attrs_struct = "TransposeAttrs", .infer_shape = shape_rules::grad_from_xshape});
  // Fluid 1.x's transpose: no XShape; its gradient reads X (Paddle's default grad maker also passes Out
  // on, unused). (Its data_format attribute is a layout
  // hint that changes nothing here.)
  t.push_back({.type = "transpose", .family = "transpose", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::TransposeAttrs>(), .attrs_struct = "TransposeAttrs",
               .grad = "transpose_grad", .infer_shape = infer_transpose2});
  t.push_back({.type = "transpose_grad", .family = "transpose", .inputs = {{"X"}, {"Out", true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<kernels::TransposeAttrs>(),
               .attrs_struct = "TransposeAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
