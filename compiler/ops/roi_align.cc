// compiler/ops/roi_align.cc - roi_align (paddle.vision.ops.roi_align) and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/roi_align.h"

namespace fluidc::ops {
namespace {

// The kernels' rule (kernels/shapes/roi_align.h); the region count is
// ROIs' rows, often known only at run time (a LoD input, a detector's proposals).
void infer_roi_align(ShapeCtx& c) {
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
  if (std::string e = shapes::roi_align_shape(xs, rs, has_num ? &ns : nullptr,
                                              parse_attrs<kernels::RoiAlignAttrs>(c.op()), os);
      !e.empty()) {
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
