// kernels/cpu/broadcast.h - N-operand strided iteration over broadcast operands.
//
// Every broadcasting or reducing kernel is a walk over one index space in
// which each operand has its own strides (0 along a broadcast dimension).
// The walk first drops size-1 dimensions and merges dimensions that are
// contiguous for every operand, so the common cases (same shapes, a bias
// row, a scalar) become one long inner loop.
#pragma once

#include <cstdint>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::kernels::detail {

constexpr int kMaxRank = Shape::kMaxRank;

/// An index space `dims` walked by N operands; operand k's element for
/// index (i_0..i_{r-1}) sits at sum_j i_j * strides[k][j].
template <int N>
struct StridedSpace {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[N][kMaxRank] = {};
};

/// Row-major strides of `aligned`, with 0 for every size-1 dimension so the
/// operand repeats along it when the index space is larger there.
inline void broadcast_strides(const Shape& aligned, int64_t* strides) {
  int64_t s = 1;
  for (int i = aligned.rank - 1; i >= 0; --i) {
    strides[i] = aligned.d[i] == 1 ? 0 : s;
    s *= aligned.d[i];
  }
}

/// Drops size-1 dimensions and merges neighbours that are contiguous for all
/// operands. Leaves at least one dimension.
template <int N>
void simplify(StridedSpace<N>& s) {
  int w = 0;
  for (int i = 0; i < s.rank; ++i) {
    if (s.dims[i] == 1) continue;
    if (w > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k)
        if (s.strides[k][w - 1] != s.strides[k][i] * s.dims[i]) merge = false;
      if (merge) {
        s.dims[w - 1] *= s.dims[i];
        for (int k = 0; k < N; ++k) s.strides[k][w - 1] = s.strides[k][i];
        continue;
      }
    }
    s.dims[w] = s.dims[i];
    for (int k = 0; k < N; ++k) s.strides[k][w] = s.strides[k][i];
    ++w;
  }
  if (w == 0) {
    w = 1;
    s.dims[0] = 1;
    for (int k = 0; k < N; ++k) s.strides[k][0] = 0;
  }
  s.rank = w;
}

/// Walks a simplified space. For each run along the innermost dimension calls
/// f(off, n, inner): off[k] is operand k's offset of the run's first element,
/// n its length and inner[k] operand k's stride within the run.
template <int N, class F>
void for_each_run(const StridedSpace<N>& s, F&& f) {
  for (int i = 0; i < s.rank; ++i)
    if (s.dims[i] == 0) return;
  const int r = s.rank;
  const int64_t n = s.dims[r - 1];
  int64_t inner[N];
  for (int k = 0; k < N; ++k) inner[k] = s.strides[k][r - 1];
  int64_t idx[kMaxRank] = {};
  int64_t off[N] = {};
  for (;;) {
    f(static_cast<const int64_t*>(off), n, static_cast<const int64_t*>(inner));
    int j = r - 2;
    for (; j >= 0; --j) {
      ++idx[j];
      for (int k = 0; k < N; ++k) off[k] += s.strides[k][j];
      if (idx[j] < s.dims[j]) break;
      for (int k = 0; k < N; ++k) off[k] -= s.strides[k][j] * s.dims[j];
      idx[j] = 0;
    }
    if (j < 0) return;
  }
}

/// The simplified index space of a broadcasting binary op: operands X (0)
/// and Y (1) aligned to the output shape, and the output (2).
inline StridedSpace<3> binary_space(const Shape& xa, const Shape& ya, const Shape& os) {
  StridedSpace<3> s;
  s.rank = os.rank;
  for (int i = 0; i < os.rank; ++i) s.dims[i] = os.d[i];
  broadcast_strides(xa, s.strides[0]);
  broadcast_strides(ya, s.strides[1]);
  broadcast_strides(os, s.strides[2]);
  simplify(s);
  return s;
}

/// Paddle's elementwise alignment (the rule in kernels/shapes/broadcast.h,
/// which the compiler's shape inference runs too); fails with the op's name.
inline void align_binary(const char* op, const Shape& x, const Shape& y, int axis, Shape& xa,
                         Shape& ya, Shape& out) {
  require_rule(op, shapes::broadcast_paddle(x, y, axis, xa, ya, out));
}

}  // namespace fluidc::kernels::detail
