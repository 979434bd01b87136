// compiler/ops/quant.cc - fake quantization ops (quantize_linear, dequantize_linear, the fake_* family) and the straight-through gradients.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/quant.h"

namespace fluidc::ops {
namespace {

// A [n] tensor of X's dtype (a scale or a moving-average state).
TensorType vector_of(const TensorType& x, int64_t n) {
  TensorType t = x;
  t.dims = {n};
  return t;
}

// The number of per-channel scales along `axis` of X: -1 when unknown.
int64_t channels(ShapeCtx& c, const TensorType& x, int axis) {
  if (axis != 0 && axis != 1) {
    c.error(fmt::format("quant_axis {} must be 0 or 1 for per-channel scales", axis));
    return -1;
  }
  if (static_cast<int>(x.dims.size()) <= axis) {
    c.error(fmt::format("quant_axis {} is out of range for X {}", axis, x.str()));
    return -1;
  }
  return x.dims[axis];
}

void set_if(ShapeCtx& c, const char* slot, const TensorType& t) {
  if (c.has_output(slot)) c.set_output(slot, t);
}

// quantize_linear: Y is X (levels as floats); the training outputs are one
// value (per-tensor) or one per channel (OutScale, per-channel).
void infer_quantize_linear(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  const auto a = parse_attrs<kernels::QuantLinearAttrs>(c.op());
  c.set_output("Y", x);
  const int64_t n = a.quant_axis < 0 ? 1 : channels(c, x, a.quant_axis);
  set_if(c, "OutScale", vector_of(x, n));
  set_if(c, "OutState", vector_of(x, 1));
  set_if(c, "OutAccum", vector_of(x, 1));
}

// dequantize_linear: Y has X's dims in Scale's dtype (X may be int8).
void infer_dequantize_linear(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& s = c.input("Scale");
  if (!x.known || !s.known) return;
  const auto a = parse_attrs<kernels::QuantLinearAttrs>(c.op());
  if (a.quant_axis >= 0) channels(c, x, a.quant_axis);
  TensorType y = x;
  y.dtype = s.dtype;
  c.set_output("Y", y);
}

// The fake_* ops with one scale: Out is X; OutScale (and the states) [1].
void infer_fake_scalar(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  c.set_output("Out", x);
  set_if(c, "OutScale", vector_of(x, 1));
  set_if(c, "OutState", vector_of(x, 1));
  set_if(c, "OutAccum", vector_of(x, 1));
  if (c.has_output("OutScales"))
    c.set_output("OutScales", vector_of(x, parse_attrs<kernels::FakeQuantRangeAttrs>(c.op()).window_size));
}

// fake_channel_wise_quantize_dequantize_abs_max: OutScale holds one per channel.
void infer_fake_channel(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  c.set_output("Out", x);
  c.set_output("OutScale", vector_of(x, channels(c, x, parse_attrs<kernels::FakeChannelQuantAttrs>(c.op()).quant_axis)));
}

const std::vector<SlotDef> kLinearIn{{"X"}, {"Scale"}, {"ZeroPoint"}, {"InAccum", true}, {"InState", true}};
const std::vector<SlotDef> kLinearOut{{"Y"}, {"OutState", true}, {"OutAccum", true}, {"OutScale", true}};
const std::vector<SlotDef> kMovingIn{{"X"}, {"InScale"}, {"InAccum", true}, {"InState", true}};
const std::vector<SlotDef> kMovingOut{{"Out"}, {"OutScale"}, {"OutState", true}, {"OutAccum", true}};

// The gradient Paddle 2.6.2 gives all three quantize-dequantize ops
// (its spelling): straight through, X@GRAD = Out@GRAD.
constexpr const char* kStraightThrough = "stright_throuth_estimator_grad";

}  // namespace

void add_quant_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "quantize_linear", .family = "quant", .inputs = kLinearIn, .outputs = kLinearOut,
               .attrs = kernel_attrs<kernels::QuantLinearAttrs>(), .attrs_struct = "QuantLinearAttrs",
               .infer_shape = infer_quantize_linear, .share_lod = "X"});
  // X may be an int8 weight under a float32 VarDesc (QuantWeightPass's saved form).
  std::vector<SlotDef> dequant_in = kLinearIn;
  dequant_in[0].integer_storage = true;
  t.push_back({.type = "dequantize_linear", .family = "quant", .inputs = dequant_in, .outputs = kLinearOut,
               .attrs = kernel_attrs<kernels::QuantLinearAttrs>(), .attrs_struct = "QuantLinearAttrs",
               .infer_shape = infer_dequantize_linear, .share_lod = "X"});

  t.push_back({.type = "fake_quantize_dequantize_moving_average_abs_max", .family = "quant", .inputs = kMovingIn,
               .outputs = kMovingOut, .attrs = kernel_attrs<kernels::FakeQuantMovingAttrs>(),
               .attrs_struct = "FakeQuantMovingAttrs", .grad = kStraightThrough,
               .infer_shape = infer_fake_scalar, .share_lod = "X"});
  t.push_back({.type = "fake_quantize_dequantize_abs_max", .family = "quant", .inputs = {{"X"}},
               .outputs = {{"Out"}, {"OutScale"}}, .attrs = kernel_attrs<kernels::FakeQuantAbsMaxAttrs>(),
               .attrs_struct = "FakeQuantAbsMaxAttrs", .grad = kStraightThrough,
               .infer_shape = infer_fake_scalar, .share_lod = "X"});
  t.push_back({.type = "fake_channel_wise_quantize_dequantize_abs_max", .family = "quant", .inputs = {{"X"}},
               .outputs = {{"Out"}, {"OutScale"}}, .attrs = kernel_attrs<kernels::FakeChannelQuantAttrs>(),
               .attrs_struct = "FakeChannelQuantAttrs", .grad = kStraightThrough,
               .infer_shape = infer_fake_channel, .share_lod = "X"});
  t.push_back({.type = kStraightThrough, .family = "quant", .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .infer_shape = shape_rules::grads_like_inputs, .in_place = kUnaryGradInPlace});
  t.push_back({.type = "fake_dequantize_max_abs", .family = "quant", .inputs = {{"X"}, {"Scale"}},
               .outputs = {{"Out"}}, .attrs = kernel_attrs<kernels::FakeDequantAttrs>(),
               .attrs_struct = "FakeDequantAttrs", .infer_shape = shape_rules::same_as_x, .share_lod = "X"});
  t.push_back({.type = "fake_channel_wise_dequantize_max_abs", .family = "quant",
               .inputs = {{"X"}, {"Scales", false, true}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::FakeChannelDequantAttrs>(), .attrs_struct = "FakeChannelDequantAttrs",
               .infer_shape = shape_rules::same_as_x, .share_lod = "X"});
  t.push_back({.type = "fake_quantize_abs_max", .family = "quant", .inputs = {{"X"}},
               .outputs = {{"Out"}, {"OutScale"}}, .attrs = kernel_attrs<kernels::FakeQuantAbsMaxAttrs>(),
               .attrs_struct = "FakeQuantAbsMaxAttrs", .infer_shape = infer_fake_scalar, .share_lod = "X"});
  t.push_back({.type = "fake_quantize_moving_average_abs_max", .family = "quant", .inputs = kMovingIn,
               .outputs = kMovingOut, .attrs = kernel_attrs<kernels::FakeQuantMovingAttrs>(),
               .attrs_struct = "FakeQuantMovingAttrs", .infer_shape = infer_fake_scalar, .share_lod = "X"});
  t.push_back({.type = "fake_quantize_range_abs_max", .family = "quant", .inputs = {{"X"}, {"InScale"}, {"Iter", true}},
               .outputs = {{"Out"}, {"OutScale"}, {"OutScales", true}},
               .attrs = kernel_attrs<kernels::FakeQuantRangeAttrs>(), .attrs_struct = "FakeQuantRangeAttrs",
               .infer_shape = infer_fake_scalar, .share_lod = "X"});
}

}  // namespace fluidc::ops
