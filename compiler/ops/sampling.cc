// compiler/ops/sampling.cc - grid_sampler and deformable_conv: reading an image at computed positions.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/sampling.h"

namespace fluidc::ops {
namespace {

// The kernels' rule (kernels/shapes/sampling.h).
void infer_grid_sampler(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& g = c.input("Grid");
  rt::Shape xs, gs, os;
  if (!x.known || !g.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, g, gs)) return;
  if (std::string e = shapes::grid_sampler_shape(xs, gs, parse_attrs<kernels::GridSamplerAttrs>(c.op()), os);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Output", out);
}

}  // namespace

void add_sampling_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "grid_sampler", .family = "sampling", .inputs = {{"X"}, {"Grid"}},
               .outputs = {{"Output"}}, .attrs = kernel_attrs<kernels::GridSamplerAttrs>(),
               .attrs_struct = "GridSamplerAttrs", .grad = "grid_sampler_grad", .infer_shape = infer_grid_sampler});
  t.push_back({.type = "grid_sampler_grad", .family = "sampling", .inputs = {{"X"}, {"Grid"}, {"Output@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Grid@GRAD", true}}, .attrs = kernel_attrs<kernels::GridSamplerAttrs>(),
               .attrs_struct = "GridSamplerAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
