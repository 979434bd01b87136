// compiler/ops/rnn_units.cc - Fluid 1.x's one-step RNN cell gru_unit (kernels/gru_unit.h) and its gradient.
//
// Its sibling lstm_unit is not here: Paddle 2.6.2 no longer registers it, so no reference could check it.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/gru_unit.h"

namespace fluidc::ops {
namespace {

// Gate [B, 3D], ResetHiddenPrev and Hidden [B, D], from Input [B, 3D] and Weight [D, 3D].
void infer_gru_unit(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  const TensorType& w = c.input("Weight");
  if (!in.known || !w.known) return;
  if (in.dims.size() != 2 || w.dims.size() != 2)
    return c.error("gru_unit: Input and Weight must be 2-D, got " + in.str() + " and " + w.str());
  const int64_t d = w.dims[0];
  if (d >= 0 && w.dims[1] >= 0 && w.dims[1] != 3 * d) return c.error("gru_unit: Weight must be [D, 3D], got " + w.str());
  if (d >= 0 && in.dims[1] >= 0 && in.dims[1] != 3 * d)
    return c.error(fmt::format("gru_unit: Input must be [batch, 3D] = [batch, {}], got {}", 3 * d, in.str()));
  TensorType out = in;
  out.dims = {in.dims[0], d < 0 ? -1 : 3 * d};
  c.set_output("Gate", out);
  out.dims = {in.dims[0], d};
  c.set_output("ResetHiddenPrev", out);
  c.set_output("Hidden", out);
}

}  // namespace

void add_rnn_unit_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> attrs = kernel_attrs<kernels::GruUnitAttrs>();
  t.push_back({.type = "gru_unit", .family = "gru_unit",
               .inputs = {{"Input"}, {"HiddenPrev"}, {"Weight"}, {"Bias", true}},
               .outputs = {{"Gate"}, {"ResetHiddenPrev"}, {"Hidden"}}, .attrs = attrs, .attrs_struct = "GruUnitAttrs",
               .grad = "gru_unit_grad", .infer_shape = infer_gru_unit});
  t.push_back({.type = "gru_unit_grad", .family = "gru_unit",
               .inputs = {{"Input"}, {"HiddenPrev"}, {"Weight"}, {"Bias", true}, {"Gate"}, {"ResetHiddenPrev"},
                          {"Hidden@GRAD"}},
               .outputs = {{"Input@GRAD", true}, {"HiddenPrev@GRAD", true}, {"Weight@GRAD", true}, {"Bias@GRAD", true}},
               .attrs = attrs, .attrs_struct = "GruUnitAttrs", .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
