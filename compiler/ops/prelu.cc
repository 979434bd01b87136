// compiler/ops/prelu.cc - prelu and its gradient (X and Alpha).
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/prelu.h"

namespace fluidc::ops {
namespace {

// Out is X's type; Alpha must hold the slopes the mode needs (kernels/shapes/prelu.h).
void infer_prelu(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& alpha = c.input("Alpha");
  rt::Shape xs, as;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (alpha.known && shape_rules::to_shape(c, alpha, as)) {
    shapes::PreluMap m;
    if (std::string e = shapes::prelu_check(xs, as, parse_attrs<kernels::PreluAttrs>(c.op()), m); !e.empty()) {
      c.error(e);
      return;
    }
  }
  c.set_output("Out", x);
}

}  // namespace

void add_prelu_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "prelu", .family = "prelu", .inputs = {{"X"}, {"Alpha"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::PreluAttrs>(), .attrs_struct = "PreluAttrs", .grad = "prelu_grad",
               .infer_shape = infer_prelu});
  t.push_back({.type = "prelu_grad", .family = "prelu", .inputs = {{"X"}, {"Alpha"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Alpha@GRAD", true}}, .attrs = kernel_attrs<kernels::PreluAttrs>(),
               .attrs_struct = "PreluAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
