// kernels/cpu/conv_depthwise.h - private: the direct loops of a depthwise convolution, one channel plane at a time.
//
// A depthwise filter has one input channel per output channel, so a GEMM
// would have an inner dimension of only k*k; these loops instead run along
// output rows, contiguous in both planes when the stride is 1, which the
// compiler vectorises.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

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

/// The phase planes of depthwise_plane_phased: a 2-D window at stride 1 or
/// 2 per axis is split into sv x sh planes, plane (pr, pc) holding the padded
/// input's rows pr, pr + sv, ... and columns pc, pc + sh, ... (Hq x Wq each,
/// plus slack for the last vector's overreach). In them every tap of a
/// strided window reads a contiguous, unit-stride run: output f = r*Wq + o
/// reads plane (a*dv % sv, b*dh % sh) at f + (a*dv / sv)*Wq + b*dh / sh.
struct PhasePlanes {
  int64_t sv, sh, Hq, Wq, plane, n;  // plane: floats per plane; n: flat outputs (row pitch Wq)
};

/// Whether depthwise_plane_phased applies to l, and its geometry.
inline bool phase_planes(const Lowering& l, PhasePlanes& q) {
  if (l.img[0] != 1 || l.k[0] != 1 || l.s[1] > 2 || l.s[2] > 2 || l.col_size() == 0) return false;
  q.sv = l.s[1];
  q.sh = l.s[2];
  const int64_t ro = l.d[1] * (l.k[1] - 1) / q.sv, co = l.d[2] * (l.k[2] - 1) / q.sh;
  // Large enough for both what the window reaches and all of the padded
  // input, so the copy never has to clip.
  q.Hq = std::max(l.col[1] + ro, (l.p[1] + l.img[1] + q.sv - 1) / q.sv);
  q.Wq = std::max(l.col[2] + co, (l.p[2] + l.img[2] + q.sh - 1) / q.sh);
  q.n = (l.col[1] - 1) * q.Wq + l.col[2];
  q.plane = (q.Hq + 1) * q.Wq + 16;  // the flat loop runs up to 15 outputs past n
  return true;
}

/// dst[0, n) = src[0, n), or zeros when src is null, for the short runs of
/// a plane's rows: inline, 16 floats a vector with the last vector
/// overlapping the one before, and a fixed-size copy under 16 (a memmove or
/// memset call per row had cost more than the row's arithmetic: half of a
/// 56x56 depthwise plane). src and dst do not overlap.
template <size_t... I>
__attribute__((always_inline)) inline void short_run(const float* src, int64_t n, float* dst,
                                                     std::index_sequence<I...>) {
  ((n == static_cast<int64_t>(I) ? (src ? __builtin_memcpy(dst, src, I * sizeof(float))
                                        : __builtin_memset(dst, 0, I * sizeof(float)),
                                    true)
                                 : false) ||
   ...);
}
__attribute__((always_inline)) inline void copy_run(const float* src, int64_t n, float* dst) {
  typedef float v16 __attribute__((vector_size(64)));
  typedef float v16u __attribute__((vector_size(64), aligned(4)));
  if (n < 16) return short_run(src, n, dst, std::make_index_sequence<16>());
  const auto at = [src](int64_t i) { return src ? *reinterpret_cast<const v16u*>(src + i) : v16{}; };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) *reinterpret_cast<v16u*>(dst + i) = at(i);
  if (i < n) *reinterpret_cast<v16u*>(dst + n - 16) = at(n - 16);
}

/// out[t] = src[t * step] for t < count (step 1 or 2), 16 at a time where
/// the reads stay inside src[0, avail).
__attribute__((always_inline)) inline void strided_copy(const float* src, int64_t step, int64_t count, int64_t avail, float* out) {
  typedef float v16 __attribute__((vector_size(64)));
  typedef float v16u __attribute__((vector_size(64), aligned(4)));
  if (step == 1) return copy_run(src, count, out);
  const auto even = [src, out](int64_t t) {  // out[t, t + 16) from src[2t, 2t + 32)
    const v16 lo = *reinterpret_cast<const v16u*>(src + 2 * t), hi = *reinterpret_cast<const v16u*>(src + 2 * t + 16);
    *reinterpret_cast<v16u*>(out + t) =
        __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  };
  int64_t t = 0;
  for (; t + 16 <= count && 2 * t + 32 <= avail; t += 16) even(t);
  // The rest as one vector overlapping the last, where its reads stay in src.
  if (t < count && t >= 16 && 2 * count <= avail) return even(count - 16);
  for (; t < count; ++t) out[t] = src[t * step];
}

/// Fills the phase planes xq (q.sv * q.sh planes of q.plane floats) from
/// the plane x: input pixels at their padded places, zeros elsewhere.
__attribute__((always_inline)) inline void fill_phase_planes(const Lowering& l, const PhasePlanes& q, const float* x, float* xq) {
  const int64_t H = l.img[1], W = l.img[2];
  for (int64_t pr = 0; pr < q.sv; ++pr)
    for (int64_t pc = 0; pc < q.sh; ++pc) {
      float* plane = xq + (pr * q.sh + pc) * q.plane;
      // Plane columns jq hold input column jq*sh + pc - p: those in [0, W).
      const int64_t first = l.p[2] - pc;
      const int64_t jlo = first <= 0 ? 0 : (first + q.sh - 1) / q.sh;
      const int64_t jhi = std::clamp<int64_t>((W - 1 + first) / q.sh + 1, jlo, q.Wq);
      for (int64_t iq = 0; iq < q.Hq; ++iq) {
        float* row = plane + iq * q.Wq;
        const int64_t ri = iq * q.sv + pr - l.p[1];
        if (ri < 0 || ri >= H || jlo >= jhi) {
          copy_run(nullptr, q.Wq, row);
          continue;
        }
        const int64_t c0 = jlo * q.sh - first;  // the input column plane column jlo holds
        copy_run(nullptr, jlo, row);
        strided_copy(x + ri * W + c0, q.sh, jhi - jlo, W - c0, row + jlo);
        copy_run(nullptr, q.Wq - jhi, row + jhi);
      }
      std::fill(plane + q.Hq * q.Wq, plane + q.plane, 0.0f);
    }
}

/// Outputs yq[0, n) (row pitch Wq) as sums over the taps of w[t] * base[t][f];
/// NT > 0 fixes the tap count at compile time (the 3x3 case) so the weights
/// stay in registers.
template <int NT>
__attribute__((always_inline)) inline void phased_taps(int64_t taps, const float* const* base, const float* w,
                                                       int64_t n, float* yq) {
  typedef float v16 __attribute__((vector_size(64)));
  typedef float v16u __attribute__((vector_size(64), aligned(4)));
  if constexpr (NT > 0) {
    // Weights and tap pointers in registers: read through w/base the
    // compiler would reload them every 16 outputs (yq might alias them).
    v16 wv[NT];
    const float* bp[NT];
    for (int t = 0; t < NT; ++t) wv[t] = v16{} + w[t], bp[t] = base[t];
    for (int64_t f = 0; f < n; f += 16) {
      // Three partial sums: the taps' FMAs are not one long dependency chain.
      v16 acc[3] = {};
#pragma clang loop unroll(full)
      for (int t = 0; t < NT; ++t) acc[t % 3] += wv[t] * *reinterpret_cast<const v16u*>(bp[t] + f);
      *reinterpret_cast<v16u*>(yq + f) = acc[0] + acc[1] + acc[2];
    }
  } else {
    for (int64_t f = 0; f < n; f += 16) {
      v16 acc = {};
      for (int64_t t = 0; t < taps; ++t) acc += w[t] * *reinterpret_cast<const v16u*>(base[t] + f);
      *reinterpret_cast<v16u*>(yq + f) = acc;
    }
  }
}

/// depthwise_plane for a 2-D window at stride 1 or 2 (MobileNet's 3x3 and
/// its stride-2 layers), vectorised across output positions: the input goes
/// into phase planes (PhasePlanes), where each tap is a unit-stride run, and
/// each 16 outputs are summed over all taps in registers before one store.
/// xq and yq hold q.sv*q.sh*q.plane and q.n + 16 floats.
__attribute__((always_inline)) inline void depthwise_plane_phased(const Lowering& l, const PhasePlanes& q, const float* x, const float* w, float* y,
                                   float* xq, float* yq) {
  fill_phase_planes(l, q, x, xq);
  constexpr int kMaxTaps = 64;
  const float* base[kMaxTaps];
  const int64_t taps = l.taps();
  for (int64_t a = 0; a < l.k[1]; ++a)
    for (int64_t b = 0; b < l.k[2]; ++b) {
      const int64_t dr = a * l.d[1], dc = b * l.d[2];
      base[a * l.k[2] + b] = xq + ((dr % q.sv) * q.sh + dc % q.sh) * q.plane + (dr / q.sv) * q.Wq + dc / q.sh;
    }
  if (taps == 9) phased_taps<9>(taps, base, w, q.n, yq);
  else phased_taps<0>(taps, base, w, q.n, yq);
  for (int64_t r = 0; r < l.col[1]; ++r) copy_run(yq + r * q.Wq, l.col[2], y + r * l.col[2]);
}

/// Largest window depthwise_plane_phased takes (its tap table is on the stack).
inline bool phased_fits(const Lowering& l) { return l.taps() <= 64; }

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
