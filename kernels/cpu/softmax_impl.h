// kernels/cpu/softmax_impl.h - softmax loops shared by softmax, log_softmax and softmax_with_cross_entropy.
#pragma once

#include <cmath>
#include <cstdint>

#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rows_f32.h"
#include "kernels/cpu/unary_impl.h"

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
/// kernel clips x - max at -64 before exp (kSoftmaxClip); we do the same so tiny
/// probabilities (and the losses built on them) agree with it. Each line's
/// max is taken before any element of it is written, so y may alias x.
template <class T>
void softmax_rows(const T* x, T* y, const AxisSplit& sp) {
  if constexpr (std::is_same_v<T, float>)
    if (sp.inner == 1 && sp.n > 0) return softmax_rows_f32(sp.outer, sp.n, x, y);  // contiguous rows, vectorised
  const T kClip = T(kSoftmaxClip);
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

/// The gradient of a softmax-like op along `axis`, from Out and Out@GRAD:
/// per group s = sum over the axis of term(Out_j, dOut_j) (accumulated in
/// Acc<T>), then X@GRAD_j = map(Out_j, dOut_j, s). One running sum per
/// inner position, so each pass walks the group's memory contiguously
/// whatever the axis; the sums are complete before any element of the group
/// is written, so X@GRAD may alias Out or Out@GRAD.
template <class Term, class Map>
void axis_sum_grad(const char* op, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, int axis, Term term,
                   Map map) {
  if (!x_grad) return;
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "Out", out, "Out@GRAD", out_grad);
  require_same_dtype(op, "Out", out, "Out@GRAD", out_grad);
  const AxisSplit sp = split_at_axis(op, out.shape(), axis);
  x_grad->resize(out.shape(), out.dtype());
  visit_float(op, "Out", out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* po = out.data<T>();
    const T* pd = out_grad.data<T>();
    T* px = x_grad->data<T>();
    Acc<T>* acc = scratch_array<Acc<T>>(Slot::kAcc, sp.inner);
    T* sums = scratch_array<T>(Slot::kTmp0, sp.inner);
    for (int64_t o = 0; o < sp.outer; ++o) {
      const int64_t base = o * sp.n * sp.inner;
      for (int64_t in = 0; in < sp.inner; ++in) acc[in] = 0;
      for (int64_t j = 0; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in) {
          const int64_t k = base + j * sp.inner + in;
          acc[in] += term(static_cast<Acc<T>>(po[k]), static_cast<Acc<T>>(pd[k]));
        }
      for (int64_t in = 0; in < sp.inner; ++in) sums[in] = static_cast<T>(acc[in]);
      for (int64_t j = 0; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in) {
          const int64_t k = base + j * sp.inner + in;
          px[k] = map(po[k], pd[k], sums[in]);
        }
    }
  });
}

}  // namespace fluidc::kernels::detail
