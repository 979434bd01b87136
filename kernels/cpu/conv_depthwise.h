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

/// depthwise_plane for a 2-D window at stride 1 (MobileNet's 3x3): the
/// plane is copied into a zero-padded buffer whose rows are as wide as the
/// padded input, so every tap is one long contiguous multiply-add over the
/// whole plane (no edge cases, no short rows); the output rows are then
/// copied out of the padded width. Planes stay in L1/L2 across the taps.
template <class T>
void depthwise_plane_padded(const Lowering& l, const T* x, const T* w, T* y, T* xp, T* yp) {
  const int64_t H = l.img[1], W = l.img[2], O1 = l.col[1], O2 = l.col[2];
  const int64_t Hp = O1 + l.d[1] * (l.k[1] - 1), Wp = O2 + l.d[2] * (l.k[2] - 1);
  std::fill(xp, xp + Hp * Wp, T(0));
  for (int64_t r = 0; r < H; ++r) std::copy(x + r * W, x + (r + 1) * W, xp + (r + l.p[1]) * Wp + l.p[2]);
  const int64_t n = (O1 - 1) * Wp + O2;
  std::fill(yp, yp + n, T(0));
  for (int64_t a = 0; a < l.k[1]; ++a)
    for (int64_t b = 0; b < l.k[2]; ++b) {
      const T wv = w[a * l.k[2] + b];
      const T* xs = xp + a * l.d[1] * Wp + b * l.d[2];
      for (int64_t f = 0; f < n; ++f) yp[f] += wv * xs[f];
    }
  for (int64_t r = 0; r < O1; ++r) std::copy(yp + r * Wp, yp + r * Wp + O2, y + r * O2);
}

/// Whether depthwise_plane_padded applies, and its buffer sizes.
inline bool padded_plane_sizes(const Lowering& l, int64_t& xp, int64_t& yp) {
  if (l.img[0] != 1 || l.k[0] != 1 || l.s[1] != 1 || l.s[2] != 1) return false;
  const int64_t Hp = l.col[1] + l.d[1] * (l.k[1] - 1), Wp = l.col[2] + l.d[2] * (l.k[2] - 1);
  // Padding beyond the output's reach (possible with explicit paddings) would
  // put input rows outside the buffer: the general loop handles those.
  if (l.p[1] + l.img[1] > Hp || l.p[2] + l.img[2] > Wp) return false;
  xp = Hp * Wp;
  yp = l.col[1] * Wp;
  return true;
}

/// y[col_size] = the plane x[img_size] filtered by w[taps].
template <class T>
void depthwise_plane(const Lowering& l, const T* x, const T* w, T* y) {
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
      if (s == 1)  // contiguous: vectorised
        for (int64_t o = lo; o < hi; ++o) d[o] += wv * g[o];
      else
        for (int64_t o = lo; o < hi; ++o) d[o * s] += wv * g[o];
    }
    if (dw) {
      const T* xr = x + xo;
      T acc = 0;
      if (s == 1)
        for (int64_t o = lo; o < hi; ++o) acc += g[o] * xr[o];
      else
        for (int64_t o = lo; o < hi; ++o) acc += g[o] * xr[o * s];
      dw[tap] += acc;
    }
  });
}

}  // namespace fluidc::kernels::detail
