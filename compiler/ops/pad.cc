// compiler/ops/pad.cc - pad, pad2d, pad3d and their gradients.
#include <tuple>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/pad.h"

namespace fluidc::ops {
namespace {

using kernels::Pad2dAttrs;
using kernels::Pad3dAttrs;
using kernels::PadAttrs;

// The kernels' rule (kernels/shapes/pad.h). A Paddings input wins over the
// attribute and is known only at run time: the padded dims are then unknown.
template <class Attrs, auto Geom>
void infer_spatial(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  shapes::PadGeom g;
  if (std::string e = Geom(xs, parse_attrs<Attrs>(c.op()), std::nullopt, c.has_input("Paddings"), g, os);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// pad: Out from X (dir +1); pad_grad: X@GRAD from Out@GRAD (dir -1).
template <int kDir>
void infer_pad(ShapeCtx& c) {
  const char* in_slot = kDir > 0 ? "X" : "Out@GRAD";
  const TensorType& x = c.input(in_slot);
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = shapes::pad_shape(xs, parse_attrs<PadAttrs>(c.op()).paddings, kDir, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output(kDir > 0 ? "Out" : "X@GRAD", out);
}

}  // namespace

void add_pad_ops(std::vector<OpDef>& t) {
  const char* f = "pad";
  t.push_back({.type = "pad", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<PadAttrs>(), .attrs_struct = "PadAttrs", .grad = "pad_grad",
               .infer_shape = infer_pad<1>});
  t.push_back({.type = "pad_grad", .family = f, .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<PadAttrs>(), .attrs_struct = "PadAttrs", .infer_shape = infer_pad<-1>});
  using Entry = std::tuple<const char*, std::vector<AttrDef>, const char*, InferShapeFn>;
  for (const auto& [name, attrs, attrs_struct, infer] :
       {Entry{"pad3d", kernel_attrs<Pad3dAttrs>(), "Pad3dAttrs", &infer_spatial<Pad3dAttrs, shapes::pad3d_geom>},
        Entry{"pad2d", kernel_attrs<Pad2dAttrs>(), "Pad2dAttrs", &infer_spatial<Pad2dAttrs, shapes::pad2d_geom>}}) {
    const std::string fwd = name;
    t.push_back({.type = fwd, .family = f, .inputs = {{"X"}, {"Paddings", true}}, .outputs = {{"Out"}},
                 .attrs = attrs, .attrs_struct = attrs_struct, .grad = fwd + "_grad", .infer_shape = infer});
    t.push_back({.type = fwd + "_grad", .family = f, .inputs = {{"X"}, {"Paddings", true}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = attrs_struct,
                 .infer_shape = shape_rules::grads_like_inputs});
  }
}

}  // namespace fluidc::ops
