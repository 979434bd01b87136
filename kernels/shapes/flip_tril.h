// kernels/shapes/flip_tril.h - the checks of flip and tril_triu (Out keeps X's shape) and diagonal's shape, for kernels and compiler.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/tensor_manip_more.h"

namespace fluidc::shapes {

/// flip's axes mapped into [0, rank) as a mask per dim, or the reason they are invalid.
inline std::string flip_axes(const Shape& x, const kernels::FlipAttrs& a, bool (&flipped)[Shape::kMaxRank]) {
  for (bool& f : flipped) f = false;
  for (int ax : a.axis) {
    const int d = ax < 0 ? ax + x.rank : ax;
    if (d < 0 || d >= x.rank) return fmt::format("axis {} is out of range for X {}", ax, x.str());
    if (flipped[d]) return fmt::format("axis {} is given twice", ax);
    flipped[d] = true;
  }
  return {};
}

/// tril_triu works on the last two dims.
inline std::string tril_triu_check(const Shape& x) {
  if (x.rank < 2) return fmt::format("X {} must have rank >= 2", x.str());
  return {};
}

/// diagonal: axis1 and axis2 distinct dims of Input (negative counts from
/// the end); Out drops both and appends the diagonal's length (-1 when a
/// plane dim is unknown). `a1`, `a2` get the axes in [0, rank).
inline std::string diagonal_shape(const Shape& in, const kernels::DiagonalAttrs& at, int& a1, int& a2, Shape& out) {
  a1 = at.axis1 < 0 ? at.axis1 + in.rank : at.axis1;
  a2 = at.axis2 < 0 ? at.axis2 + in.rank : at.axis2;
  if (in.rank < 2) return fmt::format("Input {} must have rank >= 2", in.str());
  if (a1 < 0 || a1 >= in.rank || a2 < 0 || a2 >= in.rank || a1 == a2)
    return fmt::format("axis1 {} and axis2 {} must be two distinct dims of Input {}", at.axis1, at.axis2, in.str());
  out = Shape{};
  for (int i = 0; i < in.rank; ++i)
    if (i != a1 && i != a2) out.d[out.rank++] = in.d[i];
  const int64_t d1 = in.d[a1], d2 = in.d[a2], off = at.offset;
  int64_t len = -1;
  if (d1 >= 0 && d2 >= 0) {
    len = off >= 0 ? std::min(d1, d2 - off) : std::min(d1 + off, d2);
    len = std::max<int64_t>(len, 0);
  }
  out.d[out.rank++] = len;
  return {};
}

}  // namespace fluidc::shapes
