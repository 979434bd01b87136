// kernels/cpu/softmax_impl.h - the softmax row loop shared by softmax and softmax_with_cross_entropy.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::detail {

/// A tensor viewed as [outer, n, inner] around one axis.
struct AxisSplit {
  int axis = 0;
  int64_t outer = 1, n = 1, inner = 1;
};

/// Splits `s` at `axis` (negative counts from the end). A 0-D tensor is one
/// group of one element, whatever the axis.
inline AxisSplit split_at_axis(const char* op, const Shape& s, int axis) {
  AxisSplit sp;
  if (s.rank == 0) return sp;
  sp.axis = canonical_axis(op, "axis", axis, s.rank);
  sp.outer = prod(s, 0, sp.axis);
  sp.n = s.d[sp.axis];
  sp.inner = prod(s, sp.axis + 1, s.rank);
  return sp;
}

/// Softmax of every [n] line of x (stride `inner`) into y. Paddle's CPU
/// kernel clips x - max at -64 before exp; we do the same so tiny
/// probabilities (and the losses built on them) agree with it. Each line's
/// max is taken before any element of it is written, so y may alias x.
template <class T>
void softmax_rows(const T* x, T* y, const AxisSplit& sp) {
  const T kClip = T(-64);
  for (int64_t o = 0; o < sp.outer; ++o) {
    for (int64_t in = 0; in < sp.inner; ++in) {
      const int64_t base = o * sp.n * sp.inner + in;
      T mx = x[base];
      for (int64_t j = 1; j < sp.n; ++j) {
        const T v = x[base + j * sp.inner];
        if (v > mx) mx = v;
      }
      Acc<T> sum = 0;
      for (int64_t j = 0; j < sp.n; ++j) {
        const int64_t k = base + j * sp.inner;
        T shifted = x[k] - mx;
        if (shifted < kClip) shifted = kClip;
        const T e = std::exp(shifted);
        y[k] = e;
        sum += e;
      }
      const T inv = T(1) / static_cast<T>(sum);
      for (int64_t j = 0; j < sp.n; ++j) y[base + j * sp.inner] *= inv;
    }
  }
}

}  // namespace fluidc::kernels::detail
