// kernels/shapes/index_misc.h - shapes of kthvalue, cummax/cummin, logcumsumexp and searchsorted, for kernels and compiler (-1: known at run time).
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

/// cummax / cummin / logcumsumexp (without flatten): `axis` in [-rank, rank)
/// (a 0-D X takes 0 and -1). `a` gets it in [0, rank).
inline std::string cum_axis(const Shape& x, int axis, int& a) {
  const int rank = x.rank > 0 ? x.rank : 1;
  a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) return fmt::format("axis {} is out of range for X {}", axis, x.str());
  return {};
}

/// searchsorted: SortedSequence 1-D, or of Values' rank with Values' leading
/// dims (all but the last); Out has Values' shape.
inline std::string searchsorted_check(const Shape& seq, const Shape& values) {
  if (seq.rank < 1) return fmt::format("SortedSequence must have at least one dim, got {}", seq.str());
  if (seq.rank == 1) return {};
  bool ok = seq.rank == values.rank;
  for (int i = 0; ok && i + 1 < seq.rank; ++i)
    if (seq.d[i] >= 0 && values.d[i] >= 0 && seq.d[i] != values.d[i]) ok = false;
  if (!ok)
    return fmt::format("SortedSequence {} must be 1-D or share all but its last dim with Values {}", seq.str(),
                       values.str());
  return {};
}

}  // namespace fluidc::shapes
