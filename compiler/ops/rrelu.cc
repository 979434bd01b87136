// compiler/ops/rrelu.cc - rrelu (paddle.nn.RReLU) and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/rrelu.h"

namespace fluidc::ops {
namespace {

// Out and Noise take X's type (kernels/rrelu.h).
void infer_rrelu(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  c.set_output("Out", x);
  if (c.has_output("Noise")) c.set_output("Noise", x);
}

}  // namespace

void add_rrelu_ops(std::vector<OpDef>& t) {
  // Random in training (is_test false); the trait keeps it from being folded at load time.
  t.push_back({.type = "rrelu", .family = "rrelu", .inputs = {{"X"}}, .outputs = {{"Out"}, {"Noise", true}},
               .attrs = kernel_attrs<kernels::RreluAttrs>(), .attrs_struct = "RreluAttrs", .traits = kRandom,
               .grad = "rrelu_grad", .infer_shape = infer_rrelu, .share_lod = "X", .in_place = kUnaryInPlace});
  t.push_back({.type = "rrelu_grad", .family = "rrelu", .inputs = {{"X"}, {"Noise"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs,
               .in_place = kUnaryGradInPlace});
}

}  // namespace fluidc::ops
