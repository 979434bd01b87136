// kernels/shapes/activation.h - the shape rule of softmax, for kernels and compiler.
#pragma once

#include "kernels/activation.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// softmax: Out has X's shape; `axis` (negative counts from the end) must
/// name a dim of X, except for a 0-D X, whose softmax is 1 whatever the axis.
inline std::string softmax_shape(const Shape& x, const kernels::SoftmaxAttrs& a, Shape& out) {
  const int axis = a.axis < 0 ? a.axis + x.rank : a.axis;
  if (x.rank > 0 && (axis < 0 || axis >= x.rank))
    return fmt::format("axis {} is out of range for a rank-{} tensor", a.axis, x.rank);
  out = x;
  return {};
}

}  // namespace fluidc::shapes
