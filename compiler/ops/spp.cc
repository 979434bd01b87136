// compiler/ops/spp.cc - spp (Fluid 1.x spatial pyramid pooling) and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/spp.h"

namespace fluidc::ops {
namespace {

void infer_spp(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = shapes::spp_shape(xs, parse_attrs<kernels::SppAttrs>(c.op()), os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

}  // namespace

void add_spp_ops(std::vector<OpDef>& t) {
  const auto attrs = kernel_attrs<kernels::SppAttrs>();
  t.push_back({.type = "spp", .family = "spp", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
               .attrs_struct = "SppAttrs", .grad = "spp_grad", .infer_shape = infer_spp});
  t.push_back({.type = "spp_grad", .family = "spp", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "SppAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
