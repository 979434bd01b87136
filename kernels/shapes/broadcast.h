// kernels/shapes/broadcast.h - broadcast shape rules (Paddle's elementwise axis rule, numpy's), shared by kernels and compiler.
//
// Shape rules live in kernels/shapes/ so that the kernels (sizing their
// outputs) and the compiler (infer_shape, with kUnknown for run-time dims)
// run the same code. A rule returns "" on success, else the reason, without
// the op's name (the kernel prefixes it, the compiler reports it at the op).
// Header-only and free of compiler includes: generated programs may use it.
#pragma once

#include <fmt/format.h>

#include <string>

#include "runtime/tensor.h"

namespace fluidc::shapes {

using rt::Shape;

/// A dim known only at run time. Only the compiler passes it; a rule treats
/// it as "could be anything" and yields kUnknown where the result depends on it.
constexpr int64_t kUnknown = -1;

/// Two dims agree when either is unknown or they are equal.
inline bool dims_agree(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

/// The broadcast of one aligned dim pair; false when they conflict.
inline bool broadcast_dim(int64_t a, int64_t b, int64_t& out) {
  if (a == b || b == 1) out = a;
  else if (a == 1) out = b;
  else if (a < 0 || b < 0) out = a < 0 ? b : a;  // the unknown one is 1 or equal: the known one wins
  else return false;
  return true;
}

/// Paddle's elementwise alignment. When ranks differ, the lower-rank operand's
/// dims are placed at `axis` of the higher-rank one (-1: trailing), the rest
/// padded with 1; equal ranks ignore `axis`. Then each dim pair broadcasts.
/// Writes both aligned shapes and Out's shape.
inline std::string broadcast_paddle(const Shape& x, const Shape& y, int axis, Shape& xa, Shape& ya, Shape& out) {
  const int r = x.rank > y.rank ? x.rank : y.rank;
  if (x.rank == y.rank) {
    xa = x;
    ya = y;
  } else {
    const bool x_small = x.rank < y.rank;
    const Shape& small = x_small ? x : y;
    const int diff = r - small.rank;
    const int a = axis == -1 ? diff : axis;
    if (a < 0 || a > diff)
      return fmt::format("axis {} is out of range [0, {}] for X {} and Y {}", axis, diff, x.str(), y.str());
    Shape s;
    s.rank = r;
    for (int i = 0; i < r; ++i) s.d[i] = 1;
    for (int i = 0; i < small.rank; ++i) s.d[a + i] = small.d[i];
    xa = x_small ? s : x;
    ya = x_small ? y : s;
  }
  out.rank = r;
  for (int i = 0; i < r; ++i)
    if (!broadcast_dim(xa.d[i], ya.d[i], out.d[i]))
      return fmt::format("X {} and Y {} cannot be broadcast (axis={}): aligned dimension {} is {} in X but {} in Y",
                         x.str(), y.str(), axis, i, xa.d[i], ya.d[i]);
  return {};
}

/// Numpy's alignment: trailing dims line up, missing leading dims are 1,
/// size-1 dims broadcast (matmul_v2's batch dims).
inline std::string broadcast_numpy(const Shape& a, const Shape& b, Shape& aa, Shape& ba, Shape& out) {
  const int r = a.rank > b.rank ? a.rank : b.rank;
  aa.rank = ba.rank = out.rank = r;
  for (int i = 0; i < r; ++i) {
    const int ia = i - (r - a.rank), ib = i - (r - b.rank);
    aa.d[i] = ia >= 0 ? a.d[ia] : 1;
    ba.d[i] = ib >= 0 ? b.d[ib] : 1;
    if (!broadcast_dim(aa.d[i], ba.d[i], out.d[i]))
      return fmt::format("{} and {} cannot be broadcast: dimension {} is {} vs {}", a.str(), b.str(), i, aa.d[i],
                         ba.d[i]);
  }
  return {};
}

/// Product of dims [begin, end); kUnknown when any of them is.
inline int64_t numel_of(const Shape& s, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) {
    if (s.d[i] < 0) return kUnknown;
    n *= s.d[i];
  }
  return n;
}

}  // namespace fluidc::shapes
