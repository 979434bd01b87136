// compiler/ops/detection.cc - inference-only detection ops: prior_box, box_coder, yolo_box, multiclass_nms 1/2/3, matrix_nms, nms.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/detection.h"
#include "kernels/shapes/detection_nms.h"

namespace fluidc::ops {
namespace {

// The kernels' rules (kernels/shapes/detection.h).
void infer_prior_box(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  const TensorType& img = c.input("Image");
  rt::Shape is, ms, os;
  if (!in.known || !img.known || !shape_rules::to_shape(c, in, is) || !shape_rules::to_shape(c, img, ms)) return;
  if (std::string e = shapes::prior_box_shape(is, ms, parse_attrs<kernels::PriorBoxAttrs>(c.op()), os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = in;
  if (t.dtype != pb::VarType::FP64) t.dtype = pb::VarType::FP32;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Boxes", t);
  c.set_output("Variances", t);
}

void infer_box_coder(ShapeCtx& c) {
  const TensorType& prior = c.input("PriorBox");
  const TensorType& target = c.input("TargetBox");
  rt::Shape ps, ts, vs, os;
  if (!prior.known || !target.known || !shape_rules::to_shape(c, prior, ps) || !shape_rules::to_shape(c, target, ts))
    return;
  const bool has_var = c.has_input("PriorBoxVar");
  if (has_var) {
    const TensorType& var = c.input("PriorBoxVar");
    if (!var.known || !shape_rules::to_shape(c, var, vs)) return;
  }
  const auto a = parse_attrs<kernels::BoxCoderAttrs>(c.op());
  if (std::string e = shapes::box_coder_shape(ps, has_var ? &vs : nullptr, ts, a, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = target;
  t.dims = shape_rules::from_shape(os);
  c.set_output("OutputBox", t);
}

void infer_yolo_box(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& img = c.input("ImgSize");
  rt::Shape xs, is, bs, ss;
  if (!x.known || !img.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, img, is)) return;
  if (std::string e = shapes::yolo_box_shape(xs, is, parse_attrs<kernels::YoloBoxAttrs>(c.op()), bs, ss); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(bs);
  c.set_output("Boxes", t);
  t.dims = shape_rules::from_shape(ss);
  c.set_output("Scores", t);
}

// multiclass_nms*: Out [K, 6] (K known at run time), Index [K, 1] int32,
// NmsRoisNum [N] int32; the kernels set the LoD themselves.
void infer_multiclass_nms(ShapeCtx& c) {
  const TensorType& b = c.input("BBoxes");
  const TensorType& s = c.input("Scores");
  rt::Shape bs, ss, os, rs;
  if (!b.known || !s.known || !shape_rules::to_shape(c, b, bs) || !shape_rules::to_shape(c, s, ss)) return;
  if (std::string e = shapes::multiclass_nms_shape(bs, ss, os, rs); !e.empty()) {
    c.error(e);
    return;
  }
  if (b.dtype != s.dtype) {
    c.error("BBoxes and Scores must have the same dtype");
    return;
  }
  TensorType t = b;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
  t.dtype = pb::VarType::INT32;
  if (c.has_output("Index")) {
    t.dims = {shapes::kUnknown, 1};
    c.set_output("Index", t);
  }
  // NmsRoisNum (multiclass_nms3), RoisNum (matrix_nms): rows per image.
  for (const char* slot : {"NmsRoisNum", "RoisNum"})
    if (c.has_output(slot)) {
      t.dims = shape_rules::from_shape(rs);
      c.set_output(slot, t);
    }
}

// nms: Boxes [N, 4] float; KeepBoxesIdxs int64 [K], K known at run time.
void infer_nms(ShapeCtx& c) {
  const TensorType& b = c.input("Boxes");
  if (b.known && b.dtype != pb::VarType::FP32 && b.dtype != pb::VarType::FP64) {
    c.error("Boxes must be float32 or float64");
    return;
  }
  if (b.known && (b.dims.size() != 2 || !shape_rules::dims_agree(b.dims[1], 4))) {
    c.error(fmt::format("Boxes must be [N, 4], got {}", b.str()));
    return;
  }
  TensorType keep;
  keep.dtype = pb::VarType::INT64;
  keep.dims = {shapes::kUnknown};
  keep.known = true;
  c.set_output("KeepBoxesIdxs", keep);
}

}  // namespace

void add_detection_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "prior_box", .family = "detection", .inputs = {{"Input"}, {"Image"}},
               .outputs = {{"Boxes"}, {"Variances"}}, .attrs = kernel_attrs<kernels::PriorBoxAttrs>(),
               .attrs_struct = "PriorBoxAttrs", .infer_shape = infer_prior_box});
  t.push_back({.type = "box_coder", .family = "detection", .inputs = {{"PriorBox"}, {"PriorBoxVar", true}, {"TargetBox"}},
               .outputs = {{"OutputBox"}}, .attrs = kernel_attrs<kernels::BoxCoderAttrs>(),
               .attrs_struct = "BoxCoderAttrs", .infer_shape = infer_box_coder});
  t.push_back({.type = "yolo_box", .family = "detection", .inputs = {{"X"}, {"ImgSize"}},
               .outputs = {{"Boxes"}, {"Scores"}}, .attrs = kernel_attrs<kernels::YoloBoxAttrs>(),
               .attrs_struct = "YoloBoxAttrs", .infer_shape = infer_yolo_box});
  // The NMS family shares one attribute struct and kernel (kernels/cpu/nms.cc).
  const auto nms_attrs = kernel_attrs<kernels::MulticlassNmsAttrs>();
  t.push_back({.type = "multiclass_nms", .family = "detection_nms", .inputs = {{"BBoxes"}, {"Scores"}},
               .outputs = {{"Out"}}, .attrs = nms_attrs, .attrs_struct = "MulticlassNmsAttrs",
               .infer_shape = infer_multiclass_nms});
  t.push_back({.type = "multiclass_nms2", .family = "detection_nms", .inputs = {{"BBoxes"}, {"Scores"}},
               .outputs = {{"Out"}, {"Index", true}}, .attrs = nms_attrs, .attrs_struct = "MulticlassNmsAttrs",
               .infer_shape = infer_multiclass_nms});
  t.push_back({.type = "multiclass_nms3", .family = "detection_nms",
               .inputs = {{"BBoxes"}, {"Scores"}, {"RoisNum", true}},
               .outputs = {{"Out"}, {"Index", true}, {"NmsRoisNum", true}}, .attrs = nms_attrs,
               .attrs_struct = "MulticlassNmsAttrs", .infer_shape = infer_multiclass_nms});
  t.push_back({.type = "matrix_nms", .family = "detection_nms", .inputs = {{"BBoxes"}, {"Scores"}},
               .outputs = {{"Out"}, {"Index", true}, {"RoisNum", true}},
               .attrs = kernel_attrs<kernels::MatrixNmsAttrs>(), .attrs_struct = "MatrixNmsAttrs",
               .infer_shape = infer_multiclass_nms});
  t.push_back({.type = "nms", .family = "detection_nms", .inputs = {{"Boxes"}}, .outputs = {{"KeepBoxesIdxs"}},
               .attrs = kernel_attrs<kernels::NmsAttrs>(), .attrs_struct = "NmsAttrs", .infer_shape = infer_nms});
}

}  // namespace fluidc::ops
