// kernels/shapes/flip_tril.h - the checks of flip and tril_triu (Out keeps X's shape) and the shapes of diagonal and diag_embed, for kernels and compiler.
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

/// diag_embed: Out's rank is Input's + 1 (at most the largest rank); dim1
/// and dim2 distinct dims of it; `a1`, `a2` get them in [0, rank + 1).
inline std::string diag_embed_shape(const Shape& in, const kernels::DiagEmbedAttrs& at, int& a1, int& a2, Shape& out) {
  const int rank = in.rank + 1;
  if (in.rank < 1 || rank > Shape::kMaxRank)
    return fmt::format("Input {} must have rank in [1, {}]", in.str(), Shape::kMaxRank - 1);
  a1 = at.dim1 < 0 ? at.dim1 + rank : at.dim1;
  a2 = at.dim2 < 0 ? at.dim2 + rank : at.dim2;
  if (a1 < 0 || a1 >= rank || a2 < 0 || a2 >= rank || a1 == a2)
    return fmt::format("dim1 {} and dim2 {} must be two distinct dims of the rank-{} Out", at.dim1, at.dim2, rank);
  const int64_t n = in.d[in.rank - 1];
  const int64_t side = n < 0 ? -1 : n + (at.offset < 0 ? -static_cast<int64_t>(at.offset) : at.offset);
  out = Shape{};
  out.rank = rank;
  int k = 0;
  for (int i = 0; i < rank; ++i) out.d[i] = (i == a1 || i == a2) ? side : in.d[k++];
  return {};
}

}  // namespace fluidc::shapes
