// compiler/ops/sampling.cc - grid_sampler, affine_grid and deformable_conv: reading an image at computed positions.
#include <utility>

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

// The kernels' rule (kernels/shapes/sampling.h); Mask only in v2.
void infer_deformable_conv(ShapeCtx& c) {
  const bool v2 = c.has_input("Mask");
  rt::Shape xs, os_, ws, ms, os;
  for (auto [slot, s] : {std::pair{"Input", &xs}, std::pair{"Offset", &os_}, std::pair{"Filter", &ws}}) {
    const TensorType& t = c.input(slot);
    if (!t.known || !shape_rules::to_shape(c, t, *s)) return;
  }
  if (v2) {
    const TensorType& m = c.input("Mask");
    if (!m.known || !shape_rules::to_shape(c, m, ms)) return;
  }
  if (std::string e = shapes::deformable_conv_shape(xs, os_, v2 ? &ms : nullptr, ws,
                                                    parse_attrs<kernels::DeformableConvAttrs>(c.op()), os);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = c.input("Input");
  out.dims = shape_rules::from_shape(os);
  c.set_output("Output", out);
}

// The kernels' rule (kernels/shapes/sampling.h); with an OutputShape input
// the spatial sizes are known only at run time.
void infer_affine_grid(ShapeCtx& c) {
  const TensorType& t = c.input("Theta");
  rt::Shape ts, os;
  if (!t.known || !shape_rules::to_shape(c, t, ts)) return;
  const auto a = parse_attrs<kernels::AffineGridAttrs>(c.op());
  std::vector<int64_t> size(a.output_shape.begin(), a.output_shape.end());
  if (c.has_input("OutputShape")) size.assign(ts.rank == 3 && ts[1] == 3 ? 5 : 4, shapes::kUnknown);
  if (std::string e = shapes::affine_grid_shape(ts, size, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = t;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Output", out);
}

// Theta@GRAD: [N, 2, 3] or [N, 3, 4] from the last dim of Output@GRAD.
void infer_affine_grid_grad(ShapeCtx& c) {
  const TensorType& g = c.input("Output@GRAD");
  if (!g.known || (g.dims.size() != 4 && g.dims.size() != 5)) return;
  TensorType out = g;
  const int64_t rows = g.dims.back();
  out.dims = {g.dims[0], rows, rows < 0 ? -1 : rows + 1};
  c.set_output("Theta@GRAD", out);
}

}  // namespace

void add_sampling_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "affine_grid", .family = "sampling", .inputs = {{"Theta"}, {"OutputShape", true}},
               .outputs = {{"Output"}}, .attrs = kernel_attrs<kernels::AffineGridAttrs>(),
               .attrs_struct = "AffineGridAttrs", .grad = "affine_grid_grad", .infer_shape = infer_affine_grid});
  t.push_back({.type = "affine_grid_grad", .family = "sampling", .inputs = {{"Theta", true}, {"OutputShape", true}, {"Output@GRAD"}},
               .outputs = {{"Theta@GRAD", true}}, .attrs = kernel_attrs<kernels::AffineGridAttrs>(),
               .attrs_struct = "AffineGridAttrs", .infer_shape = infer_affine_grid_grad});
  t.push_back({.type = "grid_sampler", .family = "sampling", .inputs = {{"X"}, {"Grid"}},
               .outputs = {{"Output"}}, .attrs = kernel_attrs<kernels::GridSamplerAttrs>(),
               .attrs_struct = "GridSamplerAttrs", .grad = "grid_sampler_grad", .infer_shape = infer_grid_sampler});
  t.push_back({.type = "grid_sampler_grad", .family = "sampling", .inputs = {{"X"}, {"Grid"}, {"Output@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Grid@GRAD", true}}, .attrs = kernel_attrs<kernels::GridSamplerAttrs>(),
               .attrs_struct = "GridSamplerAttrs", .infer_shape = shape_rules::grads_like_inputs});
  const auto dc_attrs = kernel_attrs<kernels::DeformableConvAttrs>();
  t.push_back({.type = "deformable_conv", .family = "sampling",
               .inputs = {{"Input"}, {"Offset"}, {"Mask"}, {"Filter"}}, .outputs = {{"Output"}}, .attrs = dc_attrs,
               .attrs_struct = "DeformableConvAttrs", .grad = "deformable_conv_grad",
               .infer_shape = infer_deformable_conv});
  t.push_back({.type = "deformable_conv_grad", .family = "sampling",
               .inputs = {{"Input"}, {"Offset"}, {"Mask"}, {"Filter"}, {"Output@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"Offset@GRAD", true}, {"Mask@GRAD", true}, {"Filter@GRAD", true}},
               .attrs = dc_attrs, .attrs_struct = "DeformableConvAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "deformable_conv_v1", .family = "sampling", .inputs = {{"Input"}, {"Offset"}, {"Filter"}},
               .outputs = {{"Output"}}, .attrs = dc_attrs, .attrs_struct = "DeformableConvAttrs",
               .grad = "deformable_conv_v1_grad", .infer_shape = infer_deformable_conv});
  t.push_back({.type = "deformable_conv_v1_grad", .family = "sampling",
               .inputs = {{"Input"}, {"Offset"}, {"Filter"}, {"Output@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"Offset@GRAD", true}, {"Filter@GRAD", true}}, .attrs = dc_attrs,
               .attrs_struct = "DeformableConvAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
