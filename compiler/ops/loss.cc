// compiler/ops/loss.cc - softmax_with_cross_entropy and cross_entropy2 with their grads.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/loss.h"

namespace fluidc::ops {
namespace {

void check_hard_label(ShapeCtx& c, const TensorType& label) {
  if (label.known && label.dtype != pb::VarType::INT64 && label.dtype != pb::VarType::INT32)
    c.error(fmt::format("Label is {}: hard labels must be int64 or int32", label.str()));
}

// The output shapes come from the kernels' rules (kernels/shapes/loss.h).
void infer_softmax_xent(ShapeCtx& c) {
  const TensorType& logits = c.input("Logits");
  rt::Shape ls, loss_shape;
  if (!logits.known || !shape_rules::to_shape(c, logits, ls)) return;
  const auto a = parse_attrs<kernels::SoftmaxWithCrossEntropyAttrs>(c.op());
  if (!a.soft_label) check_hard_label(c, c.input("Label"));
  int axis = 0;
  if (std::string e = shapes::softmax_xent_shape(ls, a, axis, loss_shape); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Softmax", logits);
  TensorType loss = logits;
  loss.dims = shape_rules::from_shape(loss_shape);
  c.set_output("Loss", loss);
}

void infer_softmax_xent_grad(ShapeCtx& c) { c.set_output("Logits@GRAD", c.input("Softmax")); }

void infer_cross_entropy2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, ys, xshape_s;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  check_hard_label(c, c.input("Label"));
  if (std::string e = shapes::cross_entropy2_shape(xs, ys, xshape_s); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType y = x, xshape = x;
  y.dims = shape_rules::from_shape(ys);
  xshape.dims = shape_rules::from_shape(xshape_s);
  c.set_output("Y", y);
  c.set_output("MatchX", y);
  c.set_output("XShape", xshape);
}

void infer_cross_entropy_grad2(ShapeCtx& c) {
  TensorType x = c.input("XShape");
  rt::Shape xshape_s, xs;
  if (!x.known || !shape_rules::to_shape(c, x, xshape_s)) return;
  if (std::string e = shapes::x_from_cross_entropy2_xshape(xshape_s, xs); !e.empty()) {
    c.error(e);
    return;
  }
  x.dims = shape_rules::from_shape(xs);
  x.dtype = c.input("MatchX").dtype;
  c.set_output("X@GRAD", x);
}

void infer_label_smooth(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, ps;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const rt::Shape* prior = nullptr;
  if (c.has_input("PriorDist")) {
    const TensorType& p = c.input("PriorDist");
    if (p.known && shape_rules::to_shape(c, p, ps)) prior = &ps;
  }
  if (std::string e = shapes::label_smooth_shape(xs, prior); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", x);
}

// label_smooth_grad reads only Out@GRAD: X@GRAD takes its type.
void infer_label_smooth_grad(ShapeCtx& c) { c.set_output("X@GRAD", c.input("Out@GRAD")); }

}  // namespace

void add_loss_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> xent_attrs = kernel_attrs<kernels::SoftmaxWithCrossEntropyAttrs>();
  t.push_back({.type = "softmax_with_cross_entropy", .family = "loss", .inputs = {{"Logits"}, {"Label"}},
               .outputs = {{"Softmax"}, {"Loss"}}, .attrs = xent_attrs,
               .attrs_struct = "SoftmaxWithCrossEntropyAttrs", .grad = "softmax_with_cross_entropy_grad",
               .infer_shape = infer_softmax_xent});
  t.push_back({.type = "softmax_with_cross_entropy_grad", .family = "loss",
               .inputs = {{"Label"}, {"Softmax"}, {"Loss@GRAD"}}, .outputs = {{"Logits@GRAD", true}},
               .attrs = xent_attrs, .attrs_struct = "SoftmaxWithCrossEntropyAttrs",
               .infer_shape = infer_softmax_xent_grad});
  const std::vector<AttrDef> ce_attrs = kernel_attrs<kernels::CrossEntropy2Attrs>();
  t.push_back({.type = "cross_entropy2", .family = "loss", .inputs = {{"X"}, {"Label"}},
               .outputs = {{"Y"}, {"XShape"}, {"MatchX"}}, .attrs = ce_attrs, .attrs_struct = "CrossEntropy2Attrs",
               .grad = "cross_entropy_grad2", .infer_shape = infer_cross_entropy2});
  t.push_back({.type = "cross_entropy_grad2", .family = "loss",
               .inputs = {{"Label"}, {"MatchX"}, {"XShape"}, {"Y@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = ce_attrs, .attrs_struct = "CrossEntropy2Attrs", .infer_shape = infer_cross_entropy_grad2});
  const std::vector<AttrDef> ls_attrs = kernel_attrs<kernels::LabelSmoothAttrs>();
  t.push_back({.type = "label_smooth", .family = "loss", .inputs = {{"X"}, {"PriorDist", true}},
               .outputs = {{"Out"}}, .attrs = ls_attrs, .attrs_struct = "LabelSmoothAttrs",
               .grad = "label_smooth_grad", .infer_shape = infer_label_smooth});
  t.push_back({.type = "label_smooth_grad", .family = "loss", .inputs = {{"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = ls_attrs, .attrs_struct = "LabelSmoothAttrs",
               .infer_shape = infer_label_smooth_grad});
}

}  // namespace fluidc::ops
