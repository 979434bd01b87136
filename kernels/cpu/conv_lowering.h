// kernels/cpu/conv_lowering.h - private helpers of the convolution kernels: im2col/col2im and the GEMM they feed.
//
// A convolution over a [Cg, I0, I1, I2] image becomes a product with the
// column matrix col[Cg*K0*K1*K2, O0*O1*O2], whose row (c, k0, k1, k2) holds
// the image pixels each output position reads through that filter tap (0
// where the window hangs over the padding). col2im is the adjoint: it adds
// each column entry back onto the pixel it came from. 2-D convolutions use
// depth 1 (see shapes::ConvGeometry).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/sgemm.h"
#include "kernels/loop_hints.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels::detail {

/// The outputs o in [lo, hi) whose input index o*s + off lies in [0, n).
inline void valid_range(int64_t off, int64_t s, int64_t n, int64_t count, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = n - 1 - off < 0 ? 0 : (n - 1 - off) / s + 1;
  lo = std::min(lo, count);
  hi = std::clamp(hi, lo, count);
}

/// The image/column sizes of one convolution: `img` is the side the filter
/// slides over (a convolution's Input, a transposed one's Output), `col` the
/// positions it stops at.
struct Lowering {
  int64_t img[3], col[3], k[3], s[3], d[3], p[3];
  int64_t img_size() const { return img[0] * img[1] * img[2]; }
  int64_t col_size() const { return col[0] * col[1] * col[2]; }
  int64_t taps() const { return k[0] * k[1] * k[2]; }
  /// A 1x1 window with stride 1 and no padding: the image is its own column matrix.
  bool pointwise() const {
    for (int i = 0; i < 3; ++i)
      if (k[i] != 1 || s[i] != 1 || p[i] != 0) return false;
    return true;
  }
};

inline Lowering lowering(const shapes::ConvGeometry& g, bool transposed) {
  Lowering l;
  for (int i = 0; i < 3; ++i) {
    l.img[i] = transposed ? g.out[i] : g.in[i];
    l.col[i] = transposed ? g.in[i] : g.out[i];
    l.k[i] = g.k[i];
    l.s[i] = g.stride[i];
    l.d[i] = g.dil[i];
    l.p[i] = g.pad[i];
  }
  return l;
}

/// col[channels * taps, col_size] from img[channels, img_size]; the rows
/// of col are `ld` elements apart (col_size when 0: dense).
template <class T>
void im2col(const Lowering& l, int64_t channels, const T* img, T* col, int64_t ld = 0) {
  const int64_t O1 = l.col[1], O2 = l.col[2];
  const int64_t skip = ld == 0 ? 0 : ld - l.col_size();
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k0 = 0; k0 < l.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < l.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < l.k[2]; ++k2, col += skip) {
          int64_t lo2, hi2;
          const int64_t off2 = k2 * l.d[2] - l.p[2];
          valid_range(off2, l.s[2], l.img[2], O2, lo2, hi2);
          for (int64_t o0 = 0; o0 < l.col[0]; ++o0) {
            const int64_t i0 = o0 * l.s[0] - l.p[0] + k0 * l.d[0];
            for (int64_t o1 = 0; o1 < O1; ++o1, col += O2) {
              const int64_t i1 = o1 * l.s[1] - l.p[1] + k1 * l.d[1];
              if (i0 < 0 || i0 >= l.img[0] || i1 < 0 || i1 >= l.img[1]) {
                std::fill(col, col + O2, T(0));
                continue;
              }
              const T* row = img + ((c * l.img[0] + i0) * l.img[1] + i1) * l.img[2] + off2;
              std::fill(col, col + lo2, T(0));
              if (l.s[2] == 1) std::copy(row + lo2, row + hi2, col + lo2);
              else
                for (int64_t o2 = lo2; o2 < hi2; ++o2) col[o2] = row[o2 * l.s[2]];
              std::fill(col + hi2, col + O2, T(0));
            }
          }
        }
}

/// col[k, j0:j0+n] of im2col's column matrix (any channel count) into
/// dst[0:n]: one row of it, made on demand for the GEMM's packing.
template <class T>
void im2col_row(const Lowering& l, const T* img, int64_t k, int64_t j0, int64_t n, T* dst) {
  const int64_t O1 = l.col[1], O2 = l.col[2], t = k % l.taps(), c = k / l.taps();
  const int64_t k0 = t / (l.k[1] * l.k[2]), k1 = t / l.k[2] % l.k[1], k2 = t % l.k[2];
  const int64_t off2 = k2 * l.d[2] - l.p[2];
  int64_t lo2, hi2;
  valid_range(off2, l.s[2], l.img[2], O2, lo2, hi2);
  int64_t o0 = j0 / (O1 * O2), o1 = j0 / O2 % O1, o2 = j0 % O2;
  while (n > 0) {  // one output row (or the part of it in range) at a time
    const int64_t seg = std::min(n, O2 - o2), end = o2 + seg;
    const int64_t i0 = o0 * l.s[0] - l.p[0] + k0 * l.d[0], i1 = o1 * l.s[1] - l.p[1] + k1 * l.d[1];
    if (i0 < 0 || i0 >= l.img[0] || i1 < 0 || i1 >= l.img[1]) {
      std::fill(dst, dst + seg, T(0));
    } else {
      const T* row = img + ((c * l.img[0] + i0) * l.img[1] + i1) * l.img[2] + off2;
      const int64_t a = std::clamp(lo2, o2, end), b = std::clamp(hi2, a, end);
      std::fill(dst, dst + (a - o2), T(0));
      if (l.s[2] == 1) std::copy(row + a, row + b, dst + (a - o2));
      else
        for (int64_t o = a; o < b; ++o) dst[o - o2] = row[o * l.s[2]];
      std::fill(dst + (b - o2), dst + seg, T(0));
    }
    dst += seg;
    n -= seg;
    o2 = 0;
    if (++o1 == O1) o1 = 0, ++o0;
  }
}

/// img[channels, img_size] += the adjoint of im2col applied to col, whose
/// rows are `ld` elements apart (col_size when 0: dense).
template <class T>
void col2im_add(const Lowering& l, int64_t channels, const T* col, T* img, int64_t ld = 0) {
  const int64_t O1 = l.col[1], O2 = l.col[2];
  const int64_t skip = ld == 0 ? 0 : ld - l.col_size();
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k0 = 0; k0 < l.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < l.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < l.k[2]; ++k2, col += skip) {
          int64_t lo2, hi2;
          const int64_t off2 = k2 * l.d[2] - l.p[2];
          valid_range(off2, l.s[2], l.img[2], O2, lo2, hi2);
          for (int64_t o0 = 0; o0 < l.col[0]; ++o0) {
            const int64_t i0 = o0 * l.s[0] - l.p[0] + k0 * l.d[0];
            for (int64_t o1 = 0; o1 < O1; ++o1, col += O2) {
              const int64_t i1 = o1 * l.s[1] - l.p[1] + k1 * l.d[1];
              if (i0 < 0 || i0 >= l.img[0] || i1 < 0 || i1 >= l.img[1]) continue;
              T* row = img + ((c * l.img[0] + i0) * l.img[1] + i1) * l.img[2] + off2;
              if (l.s[2] == 1) {  // unit stride, and col (scratch) never overlaps img: vectorised
                FLUIDC_ELEMENTWISE_LOOP
                for (int64_t o2 = lo2; o2 < hi2; ++o2) row[o2] += col[o2];
              } else {
                for (int64_t o2 = lo2; o2 < hi2; ++o2) row[o2 * l.s[2]] += col[o2];
              }
            }
          }
        }
}

/// Whether the windows tile the image: every image element is covered by
/// exactly one (tap, position) pair (kernel == stride, no padding, no
/// dilation, no rows left over), as in a 2x2 stride-2 transposed conv.
/// col2im is then a permutation (col2im_tiles), with no zeroing or adding.
inline bool tiles_exactly(const Lowering& l) {
  for (int i = 0; i < 3; ++i)
    if (l.k[i] != l.s[i] || l.p[i] != 0 || (l.k[i] > 1 && l.d[i] != 1) || l.img[i] != l.col[i] * l.s[i])
      return false;
  return true;
}

/// img[channels, img_size] from a dense col[channels * taps, col_size] when
/// tiles_exactly(l): each image row is written once, left to right,
/// interleaving the k[2] column rows of its taps.
template <class T>
void col2im_tiles(const Lowering& l, int64_t channels, const T* col, T* img) {
  const int64_t P = l.col_size(), O1 = l.col[1], O2 = l.col[2], K2 = l.k[2];
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k0 = 0; k0 < l.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < l.k[1]; ++k1) {
        const T* taps = col + ((c * l.k[0] + k0) * l.k[1] + k1) * K2 * P;  // tap k2's row: + k2 * P
        for (int64_t o0 = 0; o0 < l.col[0]; ++o0)
          for (int64_t o1 = 0; o1 < O1; ++o1) {
            const T* src = taps + (o0 * O1 + o1) * O2;
            T* row = img + ((c * l.img[0] + o0 * l.s[0] + k0) * l.img[1] + o1 * l.s[1] + k1) * l.img[2];
            if (K2 == 2) {  // the common 2x2 upsampling: two streams interleaved
              const T* src1 = src + P;
              for (int64_t o2 = 0; o2 < O2; ++o2) {
                row[2 * o2] = src[o2];
                row[2 * o2 + 1] = src1[o2];
              }
            } else {
              for (int64_t o2 = 0; o2 < O2; ++o2)
                for (int64_t k2 = 0; k2 < K2; ++k2) row[o2 * K2 + k2] = src[k2 * P + o2];
            }
          }
      }
}

/// Row-major C[M,N] = op(A)[M,K] @ op(B)[K,N] + beta * C with dense operands.
/// fp32 goes to the packed GEMM except for tiny products; fp64 (tests,
/// reference runs) uses the definition.
template <class T>
void conv_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T beta, T* C) {
  if (M == 0 || N == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (M * N * K > 4096) {
      packed_sgemm(ta, tb, M, N, K, 1.0f, A, ta ? M : K, B, tb ? K : N, beta, C, N);
      return;
    }
  }
  for (int64_t i = 0; i < M * N; ++i) C[i] = beta == T(0) ? T(0) : beta * C[i];
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * N;
    for (int64_t p = 0; p < K; ++p) {
      const T a = ta ? A[p * M + i] : A[i * K + p];
      if (tb) {
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[j * K + p];
      } else {
        const T* b = B + p * N;
        for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
      }
    }
  }
}

}  // namespace fluidc::kernels::detail
