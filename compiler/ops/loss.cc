// compiler/ops/loss.cc - softmax_with_cross_entropy and cross_entropy2 with their grads.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"
#include "kernels/loss.h"

namespace fluidc::ops {
namespace {

int normalize_axis(int axis, size_t rank) { return axis < 0 ? axis + static_cast<int>(rank) : axis; }

void check_hard_label(ShapeCtx& c, const TensorType& label) {
  if (label.known && label.dtype != pb::VarType::INT64 && label.dtype != pb::VarType::INT32)
    c.error(fmt::format("Label is {}: hard labels must be int64 or int32", label.str()));
}

void infer_softmax_xent(ShapeCtx& c) {
  const TensorType& logits = c.input("Logits");
  if (!logits.known) return;
  bool soft = attr_bool(c.op(), "soft_label", false);
  if (!soft) check_hard_label(c, c.input("Label"));
  int axis = normalize_axis(static_cast<int>(attr_int(c.op(), "axis", -1)), logits.dims.size());
  if (axis < 0 || axis >= static_cast<int>(logits.dims.size())) {
    c.error(fmt::format("axis {} is out of range for Logits {}", axis, logits.str()));
    return;
  }
  c.set_output("Softmax", logits);
  TensorType loss = logits;
  loss.dims[axis] = 1;
  c.set_output("Loss", loss);
}

void infer_softmax_xent_grad(ShapeCtx& c) { c.set_output("Logits@GRAD", c.input("Softmax")); }

void infer_cross_entropy2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known || x.dims.empty()) return;
  check_hard_label(c, c.input("Label"));
  TensorType y = x;
  y.dims.back() = 1;
  c.set_output("Y", y);
  c.set_output("MatchX", y);
  // Paddle records X's dims in XShape with a trailing 0, so it holds no data.
  TensorType xshape = x;
  xshape.dims.push_back(0);
  c.set_output("XShape", xshape);
}

void infer_cross_entropy_grad2(ShapeCtx& c) {
  TensorType x = c.input("XShape");
  if (!x.known || x.dims.empty()) return;
  x.dims.pop_back();
  x.dtype = c.input("MatchX").dtype;
  c.set_output("X@GRAD", x);
}

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
}

}  // namespace fluidc::ops
