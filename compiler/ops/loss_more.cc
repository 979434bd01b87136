// compiler/ops/loss_more.cc - elementwise losses with their gradients: sigmoid_cross_entropy_with_logits, bce_loss, huber_loss, kldiv_loss, log_loss.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/loss_more.h"

namespace fluidc::ops {
namespace {

// Every output takes input `in`'s type once `other` (a label) agrees with it.
void outputs_like(ShapeCtx& c, const char* in, const char* other, std::initializer_list<const char*> outs) {
  const TensorType& x = c.input(in);
  const TensorType& l = c.input(other);
  if (!x.known) return;
  if (l.known) {
    bool same = l.dims.size() == x.dims.size() && l.dtype == x.dtype;
    for (size_t i = 0; same && i < x.dims.size(); ++i) same = shape_rules::dims_agree(x.dims[i], l.dims[i]);
    if (!same) {
      c.error(fmt::format("{} is {} but {} is {}: they must match in shape and dtype", in, x.str(), other, l.str()));
      return;
    }
  }
  for (const char* o : outs)
    if (c.has_output(o)) c.set_output(o, x);
}

void infer_sce(ShapeCtx& c) { outputs_like(c, "X", "Label", {"Out"}); }
void infer_huber(ShapeCtx& c) { outputs_like(c, "X", "Y", {"Out", "Residual"}); }
void infer_huber_grad(ShapeCtx& c) { outputs_like(c, "Residual", "Out@GRAD", {"X@GRAD", "Y@GRAD"}); }
void infer_log_loss(ShapeCtx& c) { outputs_like(c, "Predicted", "Labels", {"Loss"}); }

void infer_kldiv(ShapeCtx& c) {
  outputs_like(c, "X", "Target", {"Loss"});
  const TensorType& x = c.input("X");
  if (x.known && parse_attrs<kernels::KldivLossAttrs>(c.op()).reduction != "none") {
    TensorType t = x;
    t.dims.clear();
    c.set_output("Loss", t);
  }
}

}  // namespace

void add_loss_more_ops(std::vector<OpDef>& t) {
  const auto sce = kernel_attrs<kernels::SigmoidCrossEntropyWithLogitsAttrs>();
  t.push_back({.type = "sigmoid_cross_entropy_with_logits", .family = "loss_more",
               .inputs = {{"X"}, {"Label"}, {"pos_weight", true}}, .outputs = {{"Out"}}, .attrs = sce,
               .attrs_struct = "SigmoidCrossEntropyWithLogitsAttrs", .grad = "sigmoid_cross_entropy_with_logits_grad",
               .infer_shape = infer_sce});
  t.push_back({.type = "sigmoid_cross_entropy_with_logits_grad", .family = "loss_more",
               .inputs = {{"X"}, {"Label"}, {"pos_weight", true}, {"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = sce, .attrs_struct = "SigmoidCrossEntropyWithLogitsAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "bce_loss", .family = "loss_more", .inputs = {{"X"}, {"Label"}}, .outputs = {{"Out"}},
               .grad = "bce_loss_grad", .infer_shape = infer_sce});
  t.push_back({.type = "bce_loss_grad", .family = "loss_more", .inputs = {{"X"}, {"Label"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  const auto huber = kernel_attrs<kernels::HuberLossAttrs>();
  t.push_back({.type = "huber_loss", .family = "loss_more", .inputs = {{"X"}, {"Y"}},
               .outputs = {{"Out"}, {"Residual"}}, .attrs = huber, .attrs_struct = "HuberLossAttrs",
               .grad = "huber_loss_grad", .infer_shape = infer_huber});
  t.push_back({.type = "huber_loss_grad", .family = "loss_more", .inputs = {{"Residual"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = huber, .attrs_struct = "HuberLossAttrs",
               .infer_shape = infer_huber_grad});
  const auto kl = kernel_attrs<kernels::KldivLossAttrs>();
  t.push_back({.type = "kldiv_loss", .family = "loss_more", .inputs = {{"X"}, {"Target"}}, .outputs = {{"Loss"}},
               .attrs = kl, .attrs_struct = "KldivLossAttrs", .grad = "kldiv_loss_grad", .infer_shape = infer_kldiv});
  t.push_back({.type = "kldiv_loss_grad", .family = "loss_more", .inputs = {{"X"}, {"Target"}, {"Loss@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kl, .attrs_struct = "KldivLossAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  const auto ll = kernel_attrs<kernels::LogLossAttrs>();
  t.push_back({.type = "log_loss", .family = "loss_more", .inputs = {{"Predicted"}, {"Labels"}},
               .outputs = {{"Loss"}}, .attrs = ll, .attrs_struct = "LogLossAttrs", .grad = "log_loss_grad",
               .infer_shape = infer_log_loss});
  t.push_back({.type = "log_loss_grad", .family = "loss_more",
               .inputs = {{"Predicted"}, {"Labels"}, {"Loss@GRAD"}}, .outputs = {{"Predicted@GRAD", true}},
               .attrs = ll, .attrs_struct = "LogLossAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
