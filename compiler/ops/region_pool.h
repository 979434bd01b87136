// compiler/ops/region_pool.h - the shape rule shared by the region pooling ops (roi_align, roi_pool, psroi_pool).
#pragma once

#include <string>

#include "compiler/ops/shape_ctx.h"

namespace fluidc::ops {

/// Out (X's dtype) and, when the op has it, Argmax (int64) get the dims
/// `rule(X dims, ROIs dims, RoisNum dims or null, out dims)` gives; the
/// region count is ROIs' rows, often known only at run time (a LoD input, a
/// detector's proposals). RoisNum must be int32 or int64, X and ROIs one dtype.
template <class Rule>
void infer_region_pool(ShapeCtx& c, Rule rule) {
  const TensorType& x = c.input("X");
  const TensorType& rois = c.input("ROIs");
  rt::Shape xs, rs, ns, os;
  if (!x.known || !rois.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, rois, rs)) return;
  const bool has_num = c.has_input("RoisNum");
  if (has_num) {
    const TensorType& n = c.input("RoisNum");
    if (!n.known || !shape_rules::to_shape(c, n, ns)) return;
    if (n.dtype != pb::VarType::INT32 && n.dtype != pb::VarType::INT64) {
      c.error("RoisNum must be int32 or int64");
      return;
    }
  }
  if (std::string e = rule(xs, rs, has_num ? &ns : nullptr, os); !e.empty()) {
    c.error(e);
    return;
  }
  if (x.dtype != rois.dtype) {
    c.error("X and ROIs must have the same dtype");
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
  if (c.has_output("Argmax")) {
    out.dtype = pb::VarType::INT64;
    c.set_output("Argmax", out);
  }
}

}  // namespace fluidc::ops
