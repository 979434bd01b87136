// kernels/shapes/transpose.h - the shape rule of transpose2, for kernels and compiler.
#pragma once

#include "kernels/shapes/broadcast.h"
#include "kernels/transpose.h"

namespace fluidc::shapes {

/// transpose2: `axis` must be a permutation of X's dims (negative entries
/// count from the end); Out's dim k is X's dim axis[k].
inline std::string transpose_shape(const Shape& x, const kernels::TransposeAttrs& a, Shape& out) {
  if (static_cast<int>(a.axis.size()) != x.rank)
    return fmt::format("axis has {} entries for a rank-{} tensor", a.axis.size(), x.rank);
  bool seen[Shape::kMaxRank] = {};
  out = Shape{};
  out.rank = x.rank;
  for (int k = 0; k < x.rank; ++k) {
    const int ax = a.axis[k] < 0 ? a.axis[k] + x.rank : a.axis[k];
    if (ax < 0 || ax >= x.rank || seen[ax]) return fmt::format("axis is not a permutation of 0..{}", x.rank - 1);
    seen[ax] = true;
    out.d[k] = x.d[ax];
  }
  return {};
}

}  // namespace fluidc::shapes
