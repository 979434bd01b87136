// kernels/shapes/index_misc.h - kthvalue's output shape, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/index_misc.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// kthvalue: Out and Indices are X without dim `axis` (kept as 1 with
/// keepdim); k must lie in [1, X's dim] (when known). A 0-D X is its own
/// only value: k must be 1. `a` gets the axis in [0, rank).
inline std::string kthvalue_shape(const Shape& x, const kernels::KthvalueAttrs& at, int& a, Shape& out) {
  out = Shape{};
  a = 0;
  if (x.rank == 0) {
    if (at.k != 1) return fmt::format("k {} is out of range for a 0-D X", at.k);
    return {};
  }
  a = at.axis < 0 ? at.axis + x.rank : at.axis;
  if (a < 0 || a >= x.rank) return fmt::format("axis {} is out of range for X {}", at.axis, x.str());
  if (at.k < 1 || (x.d[a] >= 0 && at.k > x.d[a]))
    return fmt::format("k {} is out of range [1, {}] along axis {} of X {}", at.k, x.d[a], at.axis, x.str());
  for (int i = 0; i < x.rank; ++i)
    if (i != a) out.d[out.rank++] = x.d[i];
    else if (at.keepdim) out.d[out.rank++] = 1;
  return {};
}

}  // namespace fluidc::shapes
