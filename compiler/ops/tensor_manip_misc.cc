// compiler/ops/tensor_manip_misc.cc - roll, unbind and meshgrid with their gradients.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/tensor_manip_misc.h"
#include "kernels/tensor_manip.h"

namespace fluidc::ops {
namespace {

using kernels::RollAttrs;
using kernels::UnbindAttrs;

// Out is X; the shifts and axes are checked when they are attributes (a
// ShiftsTensor holds run-time values: the kernel checks those).
void infer_roll(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (!c.has_input("ShiftsTensor")) {
    const auto a = parse_attrs<RollAttrs>(c.op());
    int64_t shift[rt::Shape::kMaxRank];
    bool flat = false;
    if (std::string e = shapes::roll_plan(xs, a.shifts, a.axis, shift, flat); !e.empty()) {
      c.error(e);
      return;
    }
  }
  c.set_output("Out", x);
}

void infer_unbind(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const int n = static_cast<int>(op_outputs(c.op(), "Out").size());
  int axis = 0;
  if (std::string e = shapes::unbind_shape(xs, parse_attrs<UnbindAttrs>(c.op()).axis, n, axis, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// Paddle's gradient of unbind: a stack of the Out gradients along the axis.
bool unbind_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                 pb::OpDesc& grad) {
  return join_output_grads(fwd, grad_of, "stack", "Y", parse_attrs<UnbindAttrs>(fwd).axis, grad);
}

void infer_meshgrid(ShapeCtx& c) {
  std::vector<rt::Shape> xs;
  if (!shape_rules::input_shapes(c, "X", xs)) return;
  const int n = static_cast<int>(xs.size());
  rt::Shape grid;
  if (std::string e = shapes::meshgrid_shape(xs.data(), n, grid); !e.empty()) {
    c.error(e);
    return;
  }
  if (static_cast<int>(op_outputs(c.op(), "Out").size()) != n) {
    c.error(fmt::format("{} inputs but {} outputs: meshgrid gives one output per input", n,
                        op_outputs(c.op(), "Out").size()));
    return;
  }
  TensorType out = c.input("X", 0);
  out.dims = shape_rules::from_shape(grid);
  c.set_output("Out", out);
}

// meshgrid_grad reads the Out gradients from a slot Paddle names
// `outputs@GRAD` (not Out@GRAD), so the generic gradient rule cannot map it.
bool meshgrid_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                   pb::OpDesc& grad) {
  std::vector<std::string> dxs, douts;
  bool any = false;
  for (const auto& x : op_inputs(fwd, "X")) {
    dxs.push_back(grad_of(x));
    any |= !dxs.back().empty();
    if (dxs.back().empty()) dxs.back() = "@EMPTY@";
  }
  if (!any) return false;
  // Every Out's gradient: autodiff hands zeros for one the loss does not reach.
  for (const auto& o : op_outputs(fwd, "Out")) douts.push_back(grad_of(o));
  grad.set_type("meshgrid_grad");
  add_input(grad, "X", op_inputs(fwd, "X"));
  add_input(grad, "outputs@GRAD", douts);
  add_output(grad, "X@GRAD", dxs);
  return true;
}

}  // namespace

void add_tensor_manip_misc_ops(std::vector<OpDef>& t) {
  const char* f = "tensor_manip";
  const auto roll_attrs = kernel_attrs<RollAttrs>();
  t.push_back({.type = "roll", .family = f, .inputs = {{"X"}, {"ShiftsTensor", true}}, .outputs = {{"Out"}},
               .attrs = roll_attrs, .attrs_struct = "RollAttrs", .grad = "roll_grad", .infer_shape = infer_roll});
  t.push_back({.type = "roll_grad", .family = f, .inputs = {{"X"}, {"ShiftsTensor", true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = roll_attrs, .attrs_struct = "RollAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "unbind", .family = f, .inputs = {{"X"}}, .outputs = {{"Out", false, true}},
               .attrs = kernel_attrs<UnbindAttrs>(), .attrs_struct = "UnbindAttrs", .grad = "stack",
               .make_grad = unbind_grad, .infer_shape = infer_unbind});
  t.push_back({.type = "meshgrid", .family = f, .inputs = {{"X", false, true}}, .outputs = {{"Out", false, true}},
               .grad = "meshgrid_grad", .make_grad = meshgrid_grad, .infer_shape = infer_meshgrid});
  t.push_back({.type = "meshgrid_grad", .family = f, .inputs = {{"X", false, true}, {"outputs@GRAD", false, true}},
               .outputs = {{"X@GRAD", true, true}}, .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
