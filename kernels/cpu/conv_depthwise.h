// kernels/cpu/conv_depthwise.h - private: the direct loops of a depthwise convolution, one channel plane at a time.
//
// A depthwise filter has one input channel per output channel, so a GEMM
// would have an inner dimension of only k*k; these loops instead run along
// output rows, contiguous in both planes when the stride is 1, which the
// compiler vectorises.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/conv_lowering.h"

namespace fluidc::kernels::detail {

/// Calls f(out_row, in_row, tap, lo, hi) for every filter tap and every
/// output row whose input row that tap reads (rows over the padding
/// skipped); f covers outputs [lo, hi) of the row, reading in_row[o * stride].
/// Taps are the outer loops so the valid ranges (divisions) are worked out
/// once per tap, not once per row; a plane stays in cache across the taps.
template <class F>
void for_each_tap_row(const Lowering& l, F&& f) {
  const int64_t O1 = l.col[1], O2 = l.col[2];
  for (int64_t k0 = 0; k0 < l.k[0]; ++k0) {
    const int64_t off0 = k0 * l.d[0] - l.p[0];
    int64_t lo0, hi0;
    valid_range(off0, l.s[0], l.img[0], l.col[0], lo0, hi0);
    for (int64_t k1 = 0; k1 < l.k[1]; ++k1) {
      const int64_t off1 = k1 * l.d[1] - l.p[1];
      int64_t lo1, hi1;
      valid_range(off1, l.s[1], l.img[1], O1, lo1, hi1);
      for (int64_t k2 = 0; k2 < l.k[2]; ++k2) {
        const int64_t off2 = k2 * l.d[2] - l.p[2];
        int64_t lo2, hi2;
        valid_range(off2, l.s[2], l.img[2], O2, lo2, hi2);
        const int64_t tap = (k0 * l.k[1] + k1) * l.k[2] + k2;
        for (int64_t o0 = lo0; o0 < hi0; ++o0) {
          const int64_t i0 = o0 * l.s[0] + off0;
          for (int64_t o1 = lo1; o1 < hi1; ++o1) {
            const int64_t i1 = o1 * l.s[1] + off1;
            f((o0 * O1 + o1) * O2, (i0 * l.img[1] + i1) * l.img[2] + off2, tap, lo2, hi2);
          }
        }
      }
    }
  }
}

/// depthwise_plane for the common window of three taps along rows at
/// stride 1 (MobileNet's 3x3): the three taps of an input row are applied
/// in one pass over the output row, so each output is loaded and stored once
/// per input row instead of once per tap.
template <class T>
void depthwise_plane_row3(const Lowering& l, const T* x, const T* w, T* y) {
  std::fill(y, y + l.col_size(), T(0));
  const int64_t O1 = l.col[1], O2 = l.col[2];
  int64_t off[3], lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    off[k] = k * l.d[2] - l.p[2];
    valid_range(off[k], 1, l.img[2], O2, lo[k], hi[k]);
  }
  // Outputs where all three taps are inside the row; the rest take the taps one by one.
  const int64_t lo_all = std::max({lo[0], lo[1], lo[2]});
  const int64_t hi_all = std::max(lo_all, std::min({hi[0], hi[1], hi[2]}));
  for (int64_t k0 = 0; k0 < l.k[0]; ++k0) {
    const int64_t off0 = k0 * l.d[0] - l.p[0];
    int64_t lo0, hi0;
    valid_range(off0, l.s[0], l.img[0], l.col[0], lo0, hi0);
    for (int64_t k1 = 0; k1 < l.k[1]; ++k1) {
      const int64_t off1 = k1 * l.d[1] - l.p[1];
      int64_t lo1, hi1;
      valid_range(off1, l.s[1], l.img[1], O1, lo1, hi1);
      const T* wr = w + (k0 * l.k[1] + k1) * 3;
      const T w0 = wr[0], w1 = wr[1], w2 = wr[2];
      for (int64_t o0 = lo0; o0 < hi0; ++o0)
        for (int64_t o1 = lo1; o1 < hi1; ++o1) {
          T* yr = y + (o0 * O1 + o1) * O2;
          const T* xr = x + ((o0 * l.s[0] + off0) * l.img[1] + o1 * l.s[1] + off1) * l.img[2];
          const T *x0 = xr + off[0], *x1 = xr + off[1], *x2 = xr + off[2];
          for (int64_t o = lo_all; o < hi_all; ++o) yr[o] += w0 * x0[o] + w1 * x1[o] + w2 * x2[o];
          for (int k = 0; k < 3; ++k) {
            const T wk = wr[k];
            const T* xk = xr + off[k];
            for (int64_t o = lo[k]; o < std::min(hi[k], lo_all); ++o) yr[o] += wk * xk[o];
            for (int64_t o = std::max(lo[k], hi_all); o < hi[k]; ++o) yr[o] += wk * xk[o];
          }
        }
    }
  }
}

/// y[col_size] = the plane x[img_size] filtered by w[taps].
template <class T>
void depthwise_plane(const Lowering& l, const T* x, const T* w, T* y) {
  if (l.k[2] == 3 && l.s[2] == 1) {
    depthwise_plane_row3(l, x, w, y);
    return;
  }
  std::fill(y, y + l.col_size(), T(0));
  const int64_t s = l.s[2];
  for_each_tap_row(l, [&](int64_t yo, int64_t xo, int64_t tap, int64_t lo, int64_t hi) {
    const T wv = w[tap];
    T* yr = y + yo;
    const T* xr = x + xo;
    if (s == 1)
      for (int64_t o = lo; o < hi; ++o) yr[o] += wv * xr[o];
    else
      for (int64_t o = lo; o < hi; ++o) yr[o] += wv * xr[o * s];
  });
}

/// dx[img_size] += the adjoint of depthwise_plane applied to dy (when dx is
/// set); dw[taps] += dy . x over each tap's positions (when dw is set).
template <class T>
void depthwise_plane_grad(const Lowering& l, const T* x, const T* w, const T* dy, T* dx, T* dw) {
  const int64_t s = l.s[2];
  for_each_tap_row(l, [&](int64_t yo, int64_t xo, int64_t tap, int64_t lo, int64_t hi) {
    const T* g = dy + yo;
    if (dx) {
      const T wv = w[tap];
      T* d = dx + xo;
      for (int64_t o = lo; o < hi; ++o) d[o * s] += wv * g[o];
    }
    if (dw) {
      const T* xr = x + xo;
      T acc = 0;
      for (int64_t o = lo; o < hi; ++o) acc += g[o] * xr[o * s];
      dw[tap] += acc;
    }
  });
}

}  // namespace fluidc::kernels::detail
