// compiler/ops/elementwise.cc - elementwise_add/sub/mul/div/max/min/... with Paddle's axis broadcasting, lerp, atan2, minus, and grads.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/elementwise.h"
#include "kernels/shapes/atan2.h"
#include "kernels/shapes/lerp.h"

namespace fluidc::ops {
namespace {

void infer_elementwise(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  if (!x.known || !y.known) return;
  if (x.dtype != y.dtype) {
    c.error(fmt::format("X is {} but Y is {}: elementwise operands must have one dtype", x.str(), y.str()));
    return;
  }
  TensorType out = x;
  // The kernels' rule (kernels/shapes/broadcast.h) with the kernels' default axis.
  const auto a = parse_attrs<kernels::ElementwiseAttrs>(c.op());
  if (std::string e = shape_rules::broadcast(x.dims, y.dims, a.axis, out.dims); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", out);
}

// elementwise_add is Out = X + Y with Y broadcast at `axis`.
bool add_bias_add(const pb::OpDesc& op, BiasAdd& ba) {
  ba = {.axis = parse_attrs<kernels::ElementwiseAttrs>(op).axis};
  return true;
}

void infer_lerp(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  const TensorType& w = c.input("Weight");
  rt::Shape xs, ys, ws, xa, ya, wa, os;
  if (!x.known || !y.known || !w.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, y, ys) ||
      !shape_rules::to_shape(c, w, ws))
    return;
  if (std::string e = shapes::lerp_shape(xs, ys, ws, xa, ya, wa, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// atan2: X1's shape; fp32/fp64 keep their dtype, int32/int64 give fp64 (Paddle's rule).
void infer_atan2(ShapeCtx& c) {
  const TensorType& a = c.input("X1");
  const TensorType& b = c.input("X2");
  if (!a.known || !b.known) return;
  if (a.dtype != b.dtype) {
    c.error(fmt::format("X1 is {} but X2 is {}: atan2's operands must have one dtype", a.str(), b.str()));
    return;
  }
  rt::Shape as, bs;
  if (shape_rules::to_shape(c, a, as) && shape_rules::to_shape(c, b, bs))
    if (std::string e = shapes::atan2_check(as, bs); !e.empty()) {
      c.error(e);
      return;
    }
  TensorType out = a;
  if (a.dtype == pb::VarType::INT32 || a.dtype == pb::VarType::INT64) out.dtype = pb::VarType::FP64;
  c.set_output("Out", out);
}

// minus: X's type; Y must match it (kernel rule: one shape, float32).
void infer_minus(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  if (!x.known || !y.known) return;
  bool same = x.dtype == y.dtype && x.dims.size() == y.dims.size();
  for (size_t i = 0; same && i < x.dims.size(); ++i)
    if (x.dims[i] >= 0 && y.dims[i] >= 0 && x.dims[i] != y.dims[i]) same = false;
  if (!same) {
    c.error(fmt::format("X is {} but Y is {}: minus takes one shape and dtype", x.str(), y.str()));
    return;
  }
  if (x.dtype != pb::VarType::FP32) {
    c.error(fmt::format("X is {}: minus is float32 only, as Paddle registers it", x.str()));
    return;
  }
  c.set_output("Out", x);
}

}  // namespace

void add_elementwise_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> attrs = kernel_attrs<kernels::ElementwiseAttrs>();
  // paddle.maximum / minimum / fmax / fmin; the gradient goes to the operand taken (kernels/elementwise.h).
  // paddle.heaviside's goes to Y where X is 0. fmax, fmin and heaviside have no axis attribute in Paddle:
  // the kernel default (-1) applies.
  for (auto [name, fn] : {std::pair{"max", "Max"}, {"min", "Min"}, {"fmax", "FMax"}, {"fmin", "FMin"},
                          {"heaviside", "Heaviside"}}) {
    const std::string fwd = fmt::format("elementwise_{}", name);
    t.push_back({.type = fwd, .family = "elementwise", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .attrs = attrs, .attrs_struct = "ElementwiseAttrs", .grad = fwd + "_grad",
                 .infer_shape = infer_elementwise, .pointwise = fn, .in_place = kBinaryInPlace});
    t.push_back({.type = fwd + "_grad", .family = "elementwise", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
                 .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = attrs, .attrs_struct = "ElementwiseAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  // Used on loop counters (i % 2); Paddle gives it no gradient.
  t.push_back({.type = "elementwise_mod", .family = "elementwise", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .attrs = attrs, .attrs_struct = "ElementwiseAttrs", .infer_shape = infer_elementwise});
  // Integer-valued (Python's //); Paddle gives it no gradient. Out of fused
  // loops like div: its integer form checks for zero.
  t.push_back({.type = "elementwise_floordiv", .family = "elementwise", .inputs = {{"X"}, {"Y"}},
               .outputs = {{"Out"}}, .attrs = attrs, .attrs_struct = "ElementwiseAttrs",
               .infer_shape = infer_elementwise});
  t.push_back({.type = "elementwise_pow", .family = "elementwise", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .attrs = attrs, .attrs_struct = "ElementwiseAttrs", .grad = "elementwise_pow_grad",
               .infer_shape = infer_elementwise, .pointwise = "ElementwisePow"});
  t.push_back({.type = "elementwise_pow_grad", .family = "elementwise", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = attrs, .attrs_struct = "ElementwiseAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  // Bitwise ops (bool and integers): numpy broadcasting, no attributes, no gradient.
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor"})
    t.push_back({.type = name, .family = "elementwise", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
                 .infer_shape = infer_elementwise});
  t.push_back({.type = "bitwise_not", .family = "elementwise", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .infer_shape = shape_rules::same_as_x});
  // div stays out of fused loops: its integer form checks for zero.
  for (auto [name, fn] : {std::pair{"add", "Add"}, {"sub", "Sub"}, {"mul", "Mul"}, {"div", ""}}) {
    std::string fwd = fmt::format("elementwise_{}", name);
    std::vector<SlotDef> grad_inputs = {{"X"}, {"Y"}};
    // Division's gradient reads the forward result as well.
    if (std::string(name) == "div") grad_inputs.push_back({"Out"});
    grad_inputs.push_back({"Out@GRAD"});
    t.push_back({.type = fwd,
                 .family = "elementwise",
                 .inputs = {{"X"}, {"Y"}},
                 .outputs = {{"Out"}},
                 .attrs = attrs,
                 .attrs_struct = "ElementwiseAttrs",
                 .grad = fwd + "_grad",
                 .infer_shape = infer_elementwise,
                 .pointwise = fn,
                 .bias_add = std::string(name) == "add" ? add_bias_add : nullptr,
                 .in_place = kBinaryInPlace});
    t.push_back({.type = fwd + "_grad",
                 .family = "elementwise",
                 .inputs = grad_inputs,
                 .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}},
                 .attrs = attrs,
                 .attrs_struct = "ElementwiseAttrs",
                 .infer_shape = shape_rules::grads_like_inputs,
                 .in_place = std::string(name) == "add" ? kAddGradInPlace : std::vector<OpDef::InPlace>{}});
  }
  // lerp: three operands broadcast together; not fusable (three inputs).
  // paddle.atan2: same-shape operands (Paddle does not broadcast them).
  t.push_back({.type = "atan2", .family = "elementwise", .inputs = {{"X1"}, {"X2"}}, .outputs = {{"Out"}},
               .grad = "atan2_grad", .infer_shape = infer_atan2});
  t.push_back({.type = "atan2_grad", .family = "elementwise", .inputs = {{"X1"}, {"X2"}, {"Out@GRAD"}},
               .outputs = {{"X1@GRAD", true}, {"X2@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  // Fluid 1.x's minus (X - Y, same shapes). Paddle's backward writes scale ops for it, not a minus_grad,
  // so it has no gradient rule here.
  t.push_back({.type = "minus", .family = "elementwise", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .infer_shape = infer_minus});
  t.push_back({.type = "lerp", .family = "elementwise", .inputs = {{"X"}, {"Y"}, {"Weight"}}, .outputs = {{"Out"}},
               .grad = "lerp_grad", .infer_shape = infer_lerp});
  t.push_back({.type = "lerp_grad", .family = "elementwise",
               .inputs = {{"X"}, {"Y"}, {"Weight"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
