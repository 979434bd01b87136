// compiler/ops/roi_pool.cc - roi_pool and psroi_pool (paddle.vision.ops; Faster R-CNN, R-FCN) and their gradients.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/roi_pool.h"

namespace fluidc::ops {
namespace {

// The kernels' rules (kernels/shapes/roi_pool.h) through `rule`; the region
// count is ROIs' rows, often known only at run time.
template <class Rule>
void infer_region_pool(ShapeCtx& c, Rule rule) {
  const TensorType& x = c.input("X");
  const TensorType& rois = c.input("ROIs");
  rt::Shape xs, rs, ns, os;
  if (!x.known || !rois.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, rois, rs)) return;
  const bool has_num = c.has_input("RoisNum");
  if (has_num) {
    const TensorType& n = c.input("RoisNum");
    if (!n.known || !shape_rules::to_shape(c, n, ns)) return;
    if (n.dtype != pb::VarType::INT32 && n.dtype != pb::VarType::INT64) {
      c.error("RoisNum must be int32 or int64");
      return;
    }
  }
  if (std::string e = rule(xs, rs, has_num ? &ns : nullptr, os); !e.empty()) {
    c.error(e);
    return;
  }
  if (x.dtype != rois.dtype) {
    c.error("X and ROIs must have the same dtype");
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
  if (c.has_output("Argmax")) {
    out.dtype = pb::VarType::INT64;
    c.set_output("Argmax", out);
  }
}

void infer_roi_pool(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::RoiPoolAttrs>(c.op());
  infer_region_pool(c, [&](const rt::Shape& x, const rt::Shape& r, const rt::Shape* n, rt::Shape& o) {
    return shapes::roi_pool_shape(x, r, n, a, o);
  });
}

void infer_psroi_pool(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::PsroiPoolAttrs>(c.op());
  infer_region_pool(c, [&](const rt::Shape& x, const rt::Shape& r, const rt::Shape* n, rt::Shape& o) {
    return shapes::psroi_pool_shape(x, r, n, a, o);
  });
}

}  // namespace

void add_roi_pool_ops(std::vector<OpDef>& t) {
  const auto pool = kernel_attrs<kernels::RoiPoolAttrs>();
  t.push_back({.type = "roi_pool", .family = "roi_pool", .inputs = {{"X"}, {"ROIs"}, {"RoisNum", true}},
               .outputs = {{"Out"}, {"Argmax", true}}, .attrs = pool, .attrs_struct = "RoiPoolAttrs",
               .grad = "roi_pool_grad", .infer_shape = infer_roi_pool});
  // Argmax is accepted (Paddle's backward passes it) but the kernel finds the maxima again in X.
  t.push_back({.type = "roi_pool_grad", .family = "roi_pool",
               .inputs = {{"X"}, {"ROIs"}, {"RoisNum", true}, {"Argmax", true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = pool, .attrs_struct = "RoiPoolAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  const auto ps = kernel_attrs<kernels::PsroiPoolAttrs>();
  t.push_back({.type = "psroi_pool", .family = "roi_pool", .inputs = {{"X"}, {"ROIs"}, {"RoisNum", true}},
               .outputs = {{"Out"}}, .attrs = ps, .attrs_struct = "PsroiPoolAttrs", .grad = "psroi_pool_grad",
               .infer_shape = infer_psroi_pool});
  t.push_back({.type = "psroi_pool_grad", .family = "roi_pool",
               .inputs = {{"X"}, {"ROIs"}, {"RoisNum", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = ps, .attrs_struct = "PsroiPoolAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
