// compiler/ops/tensor_manip_misc.cc - roll, unbind and meshgrid with their gradients.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/grad_util.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/roll.h"
#include "kernels/tensor_manip.h"

namespace fluidc::ops {
namespace {

using kernels::RollAttrs;

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

}  // namespace

void add_tensor_manip_misc_ops(std::vector<OpDef>& t) {
  const char* f = "tensor_manip";
  const auto roll_attrs = kernel_attrs<RollAttrs>();
  t.push_back({.type = "roll", .family = f, .inputs = {{"X"}, {"ShiftsTensor", true}}, .outputs = {{"Out"}},
               .attrs = roll_attrs, .attrs_struct = "RollAttrs", .grad = "roll_grad", .infer_shape = infer_roll});
  t.push_back({.type = "roll_grad", .family = f, .inputs = {{"X"}, {"ShiftsTensor", true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = roll_attrs, .attrs_struct = "RollAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
