// compiler/ops/interp.cc - nearest / bilinear / linear / trilinear / bicubic interpolation (v2 and v1) and gradients.
#include <type_traits>

#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/interp.h"
#include "kernels/shapes/interp_nd.h"

namespace fluidc::ops {
namespace {

// Which size inputs the op binds (their values are known only at run time);
// false, after a located error, when SizeTensor has not one tensor per
// spatial dim.
bool size_sources(ShapeCtx& c, int dims, shapes::InterpSources& src) {
  src.values = false;
  src.size = c.has_input("SizeTensor");
  src.out_size = c.has_input("OutSize");
  src.scale = c.has_input("Scale");
  if (src.size && c.num_inputs("SizeTensor") != dims) {
    c.error(fmt::format("SizeTensor has {} tensors, needs {}", c.num_inputs("SizeTensor"), dims));
    return false;
  }
  return true;
}

// The kernels' rule (kernels/shapes/interp.h). A size given by a tensor
// input is a run-time value: the spatial dims of Out are then unknown.
template <class Attrs>
void infer_interp(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  shapes::InterpSources src;
  if (!size_sources(c, 2, src)) return;
  kernels::InterpAttrs a;
  if constexpr (std::is_same_v<Attrs, kernels::InterpV1Attrs>)
    a = parse_attrs<Attrs>(c.op()).v2();
  else
    a = parse_attrs<Attrs>(c.op());
  shapes::InterpGeom g;
  if (std::string e = shapes::interp_geom(xs, a, src, g, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// The N-D ops (linear, trilinear, bicubic): the same sources, `Dims` values each.
template <int Dims, shapes::InterpKind Kind, class Attrs = kernels::InterpAttrs>
void infer_interp_nd(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  shapes::InterpSources src;
  if (!size_sources(c, Dims, src)) return;
  kernels::InterpAttrs a;
  if constexpr (std::is_same_v<Attrs, kernels::InterpV1Attrs>)
    a = parse_attrs<Attrs>(c.op()).v2();
  else
    a = parse_attrs<Attrs>(c.op());
  const char* method = Dims == 1 ? "linear" : Dims == 3 ? "trilinear" : "bicubic";
  shapes::InterpGeomNd g;
  if (std::string e = shapes::interp_nd_geom(xs, a, Dims, method, Kind, src, g, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

template <class Attrs>
void add_interp(std::vector<OpDef>& t, const std::string& type, const char* attrs_struct,
                InferShapeFn infer = infer_interp<Attrs>) {
  // Slots in Paddle's order; the size inputs are optional and run-time.
  const std::vector<SlotDef> in = {{"X"}, {"OutSize", true}, {"SizeTensor", true, true}, {"Scale", true}};
  std::vector<SlotDef> grad_in = in;
  grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = type, .family = "interp", .inputs = in, .outputs = {{"Out"}},
               .attrs = kernel_attrs<Attrs>(), .attrs_struct = attrs_struct, .grad = type + "_grad",
               .infer_shape = infer});
  t.push_back({.type = type + "_grad", .family = "interp", .inputs = grad_in, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<Attrs>(), .attrs_struct = attrs_struct,
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace

void add_interp_ops(std::vector<OpDef>& t) {
  add_interp<kernels::InterpAttrs>(t, "nearest_interp_v2", "InterpAttrs");
  add_interp<kernels::InterpAttrs>(t, "bilinear_interp_v2", "InterpAttrs");
  add_interp<kernels::InterpV1Attrs>(t, "nearest_interp", "InterpV1Attrs");
  add_interp<kernels::InterpV1Attrs>(t, "bilinear_interp", "InterpV1Attrs");
  using shapes::InterpKind;
  add_interp<kernels::InterpAttrs>(t, "linear_interp_v2", "InterpAttrs", infer_interp_nd<1, InterpKind::kLinear>);
  add_interp<kernels::InterpAttrs>(t, "trilinear_interp_v2", "InterpAttrs", infer_interp_nd<3, InterpKind::kLinear>);
  add_interp<kernels::InterpAttrs>(t, "bicubic_interp_v2", "InterpAttrs", infer_interp_nd<2, InterpKind::kCubic>);
  using V1 = kernels::InterpV1Attrs;
  add_interp<V1>(t, "linear_interp", "InterpV1Attrs", infer_interp_nd<1, InterpKind::kLinear, V1>);
  add_interp<V1>(t, "trilinear_interp", "InterpV1Attrs", infer_interp_nd<3, InterpKind::kLinear, V1>);
  add_interp<V1>(t, "bicubic_interp", "InterpV1Attrs", infer_interp_nd<2, InterpKind::kCubic, V1>);
}

}  // namespace fluidc::ops
