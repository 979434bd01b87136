// compiler/ops/nll_loss.cc - nll_loss and its gradient.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/nll_loss.h"

namespace fluidc::ops {
namespace {

// Out: Label's shape (reduction none) or 0-D, X's dtype; Total_weight 0-D.
void infer_nll_loss(ShapeCtx& c) {
  const TensorType &x = c.input("X"), &label = c.input("Label");
  if (label.known && label.dtype != pb::VarType::INT64) {
    c.error("Label must be int64");
    return;
  }
  rt::Shape xs, ls, ws, os;
  if (!x.known || !label.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, label, ls)) return;
  const bool has_w = c.has_input("Weight") && c.input("Weight").known;
  if (has_w && !shape_rules::to_shape(c, c.input("Weight"), ws)) return;
  if (std::string e = shapes::nll_loss_shape(xs, ls, has_w ? &ws : nullptr, parse_attrs<kernels::NllLossAttrs>(c.op()), os);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
  t.dims.clear();
  c.set_output("Total_weight", t);
}

}  // namespace

void add_nll_loss_ops(std::vector<OpDef>& t) {
  const auto attrs = kernel_attrs<kernels::NllLossAttrs>();
  t.push_back({.type = "nll_loss", .family = "nll_loss", .inputs = {{"X"}, {"Label"}, {"Weight", true}},
               .outputs = {{"Out"}, {"Total_weight"}}, .attrs = attrs, .attrs_struct = "NllLossAttrs",
               .grad = "nll_loss_grad", .infer_shape = infer_nll_loss});
  t.push_back({.type = "nll_loss_grad", .family = "nll_loss",
               .inputs = {{"X"}, {"Label"}, {"Weight", true}, {"Total_weight"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = "NllLossAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
