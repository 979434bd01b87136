// kernels/shapes/linalg_misc.h - shape rules of diag_v2, eye, trace, kron, cross and mv, for kernels and compiler.
#pragma once

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "kernels/linalg_misc.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Length of diagonal `offset` of an [h, w] matrix (may be negative: no such diagonal).
inline int64_t diagonal_length(int64_t h, int64_t w, int64_t offset) {
  return offset >= 0 ? std::min(h, w - offset) : std::min(h + offset, w);
}

inline std::string diag_v2_shape(const Shape& x, const kernels::DiagV2Attrs& a, Shape& out) {
  const int64_t off = a.offset;
  if (x.rank <= 1) {
    const int64_t n = x.rank == 0 ? 1 : x.d[0];
    const int64_t side = n < 0 ? kUnknown : n + std::abs(off);
    out = Shape{side, side};
    return {};
  }
  if (x.rank != 2) return fmt::format("X {} must be 0-D, 1-D or 2-D", x.str());
  if (x.d[0] < 0 || x.d[1] < 0) {
    out = Shape{kUnknown};
    return {};
  }
  const int64_t len = diagonal_length(x.d[0], x.d[1], off);
  if (len < 0) return fmt::format("offset {} is outside X {}", off, x.str());
  out = Shape{len};
  return {};
}

inline std::string eye_shape(const kernels::EyeAttrs& a, Shape& out) {
  const int64_t cols = a.num_columns == -1 ? a.num_rows : a.num_columns;
  if (a.num_rows < 0 || cols < 0)
    return fmt::format("num_rows {} and num_columns {} must not be negative", a.num_rows, a.num_columns);
  out = Shape{a.num_rows, cols};
  return {};
}

/// The two matrix axes in [0, rank), or the reason they are invalid.
inline std::string trace_axes(const Shape& x, const kernels::TraceAttrs& a, int& ax1, int& ax2) {
  if (x.rank < 2) return fmt::format("Input {} must have rank >= 2", x.str());
  ax1 = a.axis1 < 0 ? a.axis1 + x.rank : a.axis1;
  ax2 = a.axis2 < 0 ? a.axis2 + x.rank : a.axis2;
  if (ax1 < 0 || ax1 >= x.rank || ax2 < 0 || ax2 >= x.rank)
    return fmt::format("axis1 {} or axis2 {} is out of range for Input {}", a.axis1, a.axis2, x.str());
  if (ax1 == ax2) return fmt::format("axis1 {} and axis2 {} name the same axis", a.axis1, a.axis2);
  return {};
}

inline std::string trace_shape(const Shape& x, const kernels::TraceAttrs& a, Shape& out) {
  int ax1 = 0, ax2 = 0;
  if (std::string e = trace_axes(x, a, ax1, ax2); !e.empty()) return e;
  out.rank = 0;
  for (int i = 0; i < x.rank; ++i)
    if (i != ax1 && i != ax2) out.d[out.rank++] = x.d[i];
  return {};
}

/// kron: ranks aligned with leading 1s; Out dim = product of the pair.
inline std::string kron_shape(const Shape& x, const Shape& y, Shape& xa, Shape& ya, Shape& out) {
  const int r = std::max(x.rank, y.rank);
  xa.rank = ya.rank = out.rank = r;
  for (int i = 0; i < r; ++i) {
    const int ix = i - (r - x.rank), iy = i - (r - y.rank);
    xa.d[i] = ix >= 0 ? x.d[ix] : 1;
    ya.d[i] = iy >= 0 ? y.d[iy] : 1;
    out.d[i] = xa.d[i] < 0 || ya.d[i] < 0 ? kUnknown : xa.d[i] * ya.d[i];
  }
  return {};
}

/// cross: X and Y of one shape; the vector axis (dim, or the first of
/// size 3 when dim is 9) has size 3.
inline std::string cross_axis(const Shape& x, const Shape& y, const kernels::CrossAttrs& a, int& axis) {
  if (x.rank != y.rank) return fmt::format("X {} and Y {} must have the same shape", x.str(), y.str());
  for (int i = 0; i < x.rank; ++i)
    if (!dims_agree(x.d[i], y.d[i])) return fmt::format("X {} and Y {} must have the same shape", x.str(), y.str());
  if (a.dim == 9) {
    for (axis = 0; axis < x.rank; ++axis)
      if (x.d[axis] == 3) return {};
    for (int i = 0; i < x.rank; ++i)  // the compiler may not know yet which axis it is
      if (x.d[i] < 0) return {};
    return fmt::format("X {} has no axis of size 3", x.str());
  }
  axis = a.dim < 0 ? a.dim + x.rank : a.dim;
  if (axis < 0 || axis >= x.rank) return fmt::format("dim {} is out of range for X {}", a.dim, x.str());
  if (!dims_agree(x.d[axis], 3)) return fmt::format("dim {} of X {} must have size 3", a.dim, x.str());
  return {};
}

/// mv: X [M, N] and Vec [N] give Out [M].
inline std::string mv_shape(const Shape& x, const Shape& vec, Shape& out) {
  if (x.rank != 2) return fmt::format("X {} must be 2-D", x.str());
  if (vec.rank != 1) return fmt::format("Vec {} must be 1-D", vec.str());
  if (!dims_agree(x.d[1], vec.d[0])) return fmt::format("X {}'s columns must match Vec {}", x.str(), vec.str());
  out = Shape{x.d[0]};
  return {};
}

}  // namespace fluidc::shapes
