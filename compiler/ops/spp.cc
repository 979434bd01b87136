// compiler/ops/spp.cc - spp (Fluid 1.x spatial pyramid pooling) and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/spp.h"

namespace fluidc::ops {
namespace {

void infer_spp(ShapeCtx& c) { infer_out_by_rule<kernels::SppAttrs>(c, shapes::spp_shape); }

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
