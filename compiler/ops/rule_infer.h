// compiler/ops/rule_infer.h - infer_shape from a kernels/shapes/ rule over an op's parsed attribute struct.
#pragma once

#include <string>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc::ops {

/// Out (slot `out`) gets input `in`'s dtype and the dims that
/// `rule(in dims, parsed Attrs, out dims)` gives (-1 for run-time dims); a
/// rule's reason becomes an error at the op. XShape, when the op has it,
/// records `in` as Paddle does. Nothing is set while `in` is unknown.
template <class Attrs, class Rule>
void infer_out_by_rule(ShapeCtx& c, Rule rule, const char* in = "X", const char* out = "Out") {
  const TensorType& x = c.input(in);
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = rule(xs, parse_attrs<Attrs>(c.op()), os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output(out, t);
  shape_rules::set_xshape(c, x);
}

}  // namespace fluidc::ops
