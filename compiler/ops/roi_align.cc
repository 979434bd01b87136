// compiler/ops/roi_align.cc - roi_align (paddle.vision.ops.roi_align) and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/region_pool.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/roi_align.h"

namespace fluidc::ops {
namespace {

// The kernels' rule (kernels/shapes/roi_align.h) through the region pooling ops' shared rule.
void infer_roi_align(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::RoiAlignAttrs>(c.op());
  infer_region_pool(c, [&](const rt::Shape& x, const rt::Shape& r, const rt::Shape* n, rt::Shape& o) {
    return shapes::roi_align_shape(x, r, n, a, o);
  });
}

}  // namespace

void add_roi_align_ops(std::vector<OpDef>& t) {
  const auto attrs = kernel_attrs<kernels::RoiAlignAttrs>();
  t.push_back({.type = "roi_align", .family = "roi_align", .inputs = {{"X"}, {"ROIs"}, {"RoisNum", true}},
               .outputs = {{"Out"}}, .attrs = attrs, .attrs_struct = "RoiAlignAttrs", .grad = "roi_align_grad",
               .infer_shape = infer_roi_align});
  t.push_back({.type = "roi_align_grad", .family = "roi_align",
               .inputs = {{"X"}, {"ROIs"}, {"RoisNum", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = attrs, .attrs_struct = "RoiAlignAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
