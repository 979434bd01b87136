// compiler/ops/roi_pool.cc - roi_pool and psroi_pool (paddle.vision.ops; Faster R-CNN, R-FCN) and their gradients.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/region_pool.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/roi_pool.h"

namespace fluidc::ops {
namespace {

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
