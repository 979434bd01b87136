// compiler/ops/reshape.cc - flatten_contiguous_range, flatten2 (Fluid 1.x), squeeze2, unsqueeze2 and their grads.
#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/reshape.h"

namespace fluidc::ops {
namespace {

void infer_flatten(ShapeCtx& c) { infer_out_by_rule<kernels::FlattenAttrs>(c, shapes::flatten_shape); }

void infer_flatten2(ShapeCtx& c) { infer_out_by_rule<kernels::Flatten2Attrs>(c, shapes::flatten2_shape); }

void infer_squeeze2(ShapeCtx& c) {
  infer_out_by_rule<kernels::Squeeze2Attrs>(c, [](const rt::Shape& x, const kernels::Squeeze2Attrs& a, rt::Shape& o) {
    return shapes::squeeze_shape(x, a.axes, o);
  });
}

void infer_unsqueeze2(ShapeCtx& c) {
  if (c.has_input("AxesTensor") || c.has_input("AxesTensorList")) {
    // Axes computed at run time: only X's type and the rank from a list are known.
    TensorType out = c.input("X");
    if (!out.known) return;
    if (c.has_input("AxesTensorList")) {
      out.dims.assign(out.dims.size() + c.num_inputs("AxesTensorList"), -1);
      c.set_output("Out", out);
    }
    shape_rules::set_xshape(c, c.input("X"));
    return;
  }
  infer_out_by_rule<kernels::Unsqueeze2Attrs>(
      c, [](const rt::Shape& x, const kernels::Unsqueeze2Attrs& a, rt::Shape& o) {
        return shapes::unsqueeze_shape(x, a.axes, o);
      });
}

/// The reshape-like op `type` (Out, XShape) and its `<type>_grad`.
void add_reshape_like(std::vector<OpDef>& t, const std::string& type, std::vector<SlotDef> inputs,
                      std::vector<AttrDef> attrs, const std::string& attrs_struct, InferShapeFn infer) {
  t.push_back({.type = type, .family = "reshape", .inputs = std::move(inputs),
               .outputs = {{"Out"}, {"XShape", true}}, .attrs = std::move(attrs), .attrs_struct = attrs_struct,
               .grad = type + "_grad", .infer_shape = infer});
  t.push_back({.type = type + "_grad", .family = "reshape", .inputs = {{"XShape"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grad_from_xshape});
}

}  // namespace

void add_reshape_ops(std::vector<OpDef>& t) {
  add_reshape_like(t, "flatten_contiguous_range", {{"X"}}, kernel_attrs<kernels::FlattenAttrs>(), "FlattenAttrs",
                   infer_flatten);
  // fluid.layers.flatten of Fluid 1.x: always 2-D.
  add_reshape_like(t, "flatten2", {{"X"}}, kernel_attrs<kernels::Flatten2Attrs>(), "Flatten2Attrs", infer_flatten2);
  add_reshape_like(t, "squeeze2", {{"X"}}, kernel_attrs<kernels::Squeeze2Attrs>(), "Squeeze2Attrs", infer_squeeze2);
  // AxesTensor / AxesTensorList: the axes computed at run time (kernels/reshape.h).
  add_reshape_like(t, "unsqueeze2", {{"X"}, {"AxesTensor", true}, {"AxesTensorList", true, true}},
                   kernel_attrs<kernels::Unsqueeze2Attrs>(), "Unsqueeze2Attrs", infer_unsqueeze2);
}

}  // namespace fluidc::ops
