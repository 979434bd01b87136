// compiler/ops/detection_boxes.cc - Fluid 1.x box ops: box_clip, iou_similarity, anchor_generator, box_decoder_and_assign (no gradients).
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/detection_boxes.h"

namespace fluidc::ops {
namespace {

using namespace kernels;

bool shape_of(ShapeCtx& c, const char* slot, TensorType& t, rt::Shape& s) {
  t = c.input(slot);
  return t.known && shape_rules::to_shape(c, t, s);
}

void infer_box_clip(ShapeCtx& c) {
  TensorType in, info;
  rt::Shape is, ms;
  if (!shape_of(c, "Input", in, is) || !shape_of(c, "ImInfo", info, ms)) return;
  if (std::string e = shapes::box_clip_check(is, ms); !e.empty()) return c.error(e);
  c.set_output("Output", in);
}

void infer_iou_similarity(ShapeCtx& c) {
  TensorType x, y;
  rt::Shape xs, ys, os;
  if (!shape_of(c, "X", x, xs) || !shape_of(c, "Y", y, ys)) return;
  if (std::string e = shapes::iou_similarity_shape(xs, ys, os); !e.empty()) return c.error(e);
  x.dims = shape_rules::from_shape(os);
  c.set_output("Out", x);
}

void infer_anchor_generator(ShapeCtx& c) {
  TensorType in;
  rt::Shape is, os;
  if (!shape_of(c, "Input", in, is)) return;
  if (std::string e = shapes::anchor_generator_shape(is, parse_attrs<AnchorGeneratorAttrs>(c.op()), os); !e.empty())
    return c.error(e);
  in.dims = shape_rules::from_shape(os);
  c.set_output("Anchors", in);
  c.set_output("Variances", in);
}

void infer_box_decoder_and_assign(ShapeCtx& c) {
  TensorType prior, var, target, score;
  rt::Shape ps, vs, ts, ss, ds, as;
  if (!shape_of(c, "PriorBox", prior, ps) || !shape_of(c, "TargetBox", target, ts) ||
      !shape_of(c, "BoxScore", score, ss))
    return;
  const bool has_var = c.has_input("PriorBoxVar");
  if (has_var && !shape_of(c, "PriorBoxVar", var, vs)) return;
  if (std::string e = shapes::box_decoder_and_assign_shape(ps, has_var ? &vs : nullptr, ts, ss, ds, as); !e.empty())
    return c.error(e);
  prior.dims = shape_rules::from_shape(ds);
  c.set_output("DecodeBox", prior);
  prior.dims = shape_rules::from_shape(as);
  c.set_output("OutputAssignBox", prior);
}

}  // namespace

void add_detection_boxes_ops(std::vector<OpDef>& t) {
  const char* f = "detection_boxes";
  // box_clip's Input is a LoD tensor of boxes per image; Output keeps its
  // sequences, as iou_similarity's Out keeps X's (Paddle's ShareLoD).
  t.push_back({.type = "box_clip", .family = f, .inputs = {{"Input"}, {"ImInfo"}}, .outputs = {{"Output"}},
               .infer_shape = infer_box_clip, .share_lod = "Input"});
  t.push_back({.type = "iou_similarity", .family = f, .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<IouSimilarityAttrs>(), .attrs_struct = "IouSimilarityAttrs",
               .infer_shape = infer_iou_similarity, .share_lod = "X"});
  t.push_back({.type = "anchor_generator", .family = f, .inputs = {{"Input"}}, .outputs = {{"Anchors"}, {"Variances"}},
               .attrs = kernel_attrs<AnchorGeneratorAttrs>(), .attrs_struct = "AnchorGeneratorAttrs",
               .infer_shape = infer_anchor_generator});
  // The kernel writes PriorBox's LoD on OutputAssignBox, as Paddle does.
  t.push_back({.type = "box_decoder_and_assign", .family = f,
               .inputs = {{"PriorBox"}, {"PriorBoxVar", true}, {"TargetBox"}, {"BoxScore"}},
               .outputs = {{"DecodeBox"}, {"OutputAssignBox"}}, .attrs = kernel_attrs<BoxDecoderAndAssignAttrs>(),
               .attrs_struct = "BoxDecoderAndAssignAttrs", .infer_shape = infer_box_decoder_and_assign,
               .share_lod = kShareLodNone});
}

}  // namespace fluidc::ops
