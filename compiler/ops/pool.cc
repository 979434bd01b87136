// compiler/ops/pool.cc - pool2d, pool3d, max_pool{2,3}d_with_index and their gradients.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/pool.h"

namespace fluidc::ops {
namespace {

// The kernels' rule (kernels/shapes/pool.h): Out is X with the spatial dims pooled.
template <int kSpatial>
void infer_pool(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  shapes::PoolGeom g;
  if (std::string e = shapes::pool_geom(xs, parse_attrs<kernels::PoolAttrs>(c.op()), kSpatial, g, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// Out and Mask (int32) share the pooled shape (kernels/shapes/pool.h).
template <int kSpatial>
void infer_pool_with_index(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  shapes::PoolGeom g;
  const auto a = parse_attrs<kernels::MaxPoolWithIndexAttrs>(c.op());
  std::string e = shapes::pool_with_index_geom(xs, a, kSpatial, g, os);
  if (e.empty() && g.channel_last) e = "X must be channel-first";
  if (!e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
  out.dtype = pb::VarType::INT32;
  c.set_output("Mask", out);
}

}  // namespace

void add_pool_ops(std::vector<OpDef>& t) {
  using Entry = std::pair<const char*, InferShapeFn>;
  for (auto [name, infer] : {Entry{"pool2d", &infer_pool<2>}, Entry{"pool3d", &infer_pool<3>}}) {
    const std::string fwd = name;
    t.push_back({.type = fwd, .family = "pool", .inputs = {{"X"}}, .outputs = {{"Out"}},
                 .attrs = kernel_attrs<kernels::PoolAttrs>(), .attrs_struct = "PoolAttrs", .grad = fwd + "_grad",
                 .infer_shape = infer});
    // Max pooling's gradient finds the max again by comparing X with Out.
    t.push_back({.type = fwd + "_grad", .family = "pool", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<kernels::PoolAttrs>(),
                 .attrs_struct = "PoolAttrs", .infer_shape = shape_rules::grads_like_inputs});
  }
  for (auto [name, infer] : {Entry{"max_pool2d_with_index", &infer_pool_with_index<2>},
                             Entry{"max_pool3d_with_index", &infer_pool_with_index<3>}}) {
    const std::string fwd = name;
    const auto attrs = kernel_attrs<kernels::MaxPoolWithIndexAttrs>();
    t.push_back({.type = fwd, .family = "pool", .inputs = {{"X"}}, .outputs = {{"Out"}, {"Mask"}}, .attrs = attrs,
                 .attrs_struct = "MaxPoolWithIndexAttrs", .grad = fwd + "_grad", .infer_shape = infer});
    // The gradient goes where Mask points; X gives only the shape.
    t.push_back({.type = fwd + "_grad", .family = "pool", .inputs = {{"X"}, {"Mask"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "MaxPoolWithIndexAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
}

}  // namespace fluidc::ops
