// kernels/shapes/matmul.h - the shape rules of mul, matmul (v1), matmul_v2 and addmm, for kernels and compiler.
#pragma once

#include "kernels/matmul.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// A (batched) product Out = op(X) @ op(Y) with op(X) [M, K], op(Y) [K, N].
struct MatmulShape {
  int64_t M = 0, N = 0, K = 0;
  bool tx = false, ty = false;  ///< transposes in effect (a 1-D operand has none to apply in v2)
  /// Batch dims of X and Y aligned to Out's batch dims `ob`: a 1 where the
  /// operand is shared along that dim. All three have rank 0 for no batch.
  Shape xb, yb, ob;
  Shape out;  ///< Out's shape as the op reports it
};

namespace detail {
inline std::string check_inner(const Shape& x, const Shape& y, const MatmulShape& s, int64_t ky) {
  if (dims_agree(s.K, ky)) return {};
  return fmt::format("X {} (transposed: {}) has {} columns but Y {} (transposed: {}) has {} rows", x.str(), s.tx,
                     s.K, y.str(), s.ty, ky);
}
}  // namespace detail

/// mul: X flattened to [prod(dims[:x_num_col_dims]), rest], Y likewise;
/// Out = X.dims[:x_num_col_dims] + Y.dims[y_num_col_dims:].
inline std::string mul_shape(const Shape& x, const Shape& y, const kernels::MulAttrs& a, MatmulShape& s) {
  if (a.x_num_col_dims < 1 || a.x_num_col_dims >= x.rank)
    return fmt::format("x_num_col_dims {} must be in [1, {}) for X {}", a.x_num_col_dims, x.rank, x.str());
  if (a.y_num_col_dims < 1 || a.y_num_col_dims >= y.rank)
    return fmt::format("y_num_col_dims {} must be in [1, {}) for Y {}", a.y_num_col_dims, y.rank, y.str());
  const int orank = a.x_num_col_dims + y.rank - a.y_num_col_dims;
  if (orank > Shape::kMaxRank) return fmt::format("Out would have rank {} (> {})", orank, Shape::kMaxRank);
  s = MatmulShape{};
  s.M = numel_of(x, 0, a.x_num_col_dims);
  s.K = numel_of(x, a.x_num_col_dims, x.rank);
  s.N = numel_of(y, a.y_num_col_dims, y.rank);
  const int64_t ky = numel_of(y, 0, a.y_num_col_dims);
  if (!dims_agree(s.K, ky))
    return fmt::format("X has {} columns after flattening but Y has {} rows (X {}, Y {})", s.K, ky, x.str(), y.str());
  s.out.rank = orank;
  for (int i = 0; i < a.x_num_col_dims; ++i) s.out.d[i] = x.d[i];
  for (int i = a.y_num_col_dims; i < y.rank; ++i) s.out.d[a.x_num_col_dims + i - a.y_num_col_dims] = y.d[i];
  return {};
}

/// Paddle's matmul v1: a 1-D X is the row [1, D], a 1-D Y the column [D, 1]
/// (transposes apply to them too). Batch dims are flattened: X and Y must
/// hold equally many matrices, or one none (it is shared). Out: the batch
/// dims of whichever operand has them, then [M, N], with the dims a 1-D
/// operand introduced dropped again, and [1] if nothing remains (Paddle 2.6).
inline std::string matmul_shape(const Shape& x, const Shape& y, const kernels::MatmulAttrs& a, MatmulShape& s) {
  if (x.rank == 0 || y.rank == 0) return fmt::format("X {} and Y {} must have rank >= 1", x.str(), y.str());
  s = MatmulShape{};
  const int64_t xr = x.rank == 1 ? 1 : x.d[x.rank - 2], xc = x.d[x.rank - 1];
  const int64_t yr = y.rank == 1 ? y.d[0] : y.d[y.rank - 2], yc = y.rank == 1 ? 1 : y.d[y.rank - 1];
  s.tx = a.transpose_X;
  s.ty = a.transpose_Y;
  s.M = s.tx ? xc : xr;
  s.K = s.tx ? xr : xc;
  s.N = s.ty ? yr : yc;
  if (auto e = detail::check_inner(x, y, s, s.ty ? yc : yr); !e.empty()) return e;
  const bool x_batched = x.rank > 2, y_batched = y.rank > 2;
  const int64_t bx = x_batched ? numel_of(x, 0, x.rank - 2) : 1;
  const int64_t by = y_batched ? numel_of(y, 0, y.rank - 2) : 1;
  if (x_batched && y_batched && !dims_agree(bx, by))
    return fmt::format("batch sizes differ: X {} has {} matrices, Y {} has {}", x.str(), bx, y.str(), by);
  if (x_batched || y_batched) {
    s.xb = Shape{bx};
    s.yb = Shape{by};
    s.ob = Shape{x_batched ? bx : by};
  }
  int64_t dims[Shape::kMaxRank + 1];
  int r = 0;
  const Shape& bs = x_batched ? x : y;
  if (x_batched || y_batched)
    for (int i = 0; i < bs.rank - 2; ++i) dims[r++] = bs.d[i];
  dims[r++] = s.M;
  dims[r++] = s.N;
  if (x.rank == 1 && dims[r - 2] == 1) {
    dims[r - 2] = dims[r - 1];
    --r;
  }
  if (y.rank == 1 && dims[r - 1] == 1) --r;
  if (r == 0) dims[r++] = 1;
  s.out = Shape::from(dims, r);
  return {};
}

/// numpy.matmul with optional transposes of the last two dims: a 1-D X is
/// promoted to [1, K], a 1-D Y to [K, 1] (their trans flag ignored) and the
/// added dim removed from Out (1-D @ 1-D is 0-D); batch dims broadcast numpy
/// style.
inline std::string matmul_v2_shape(const Shape& x, const Shape& y, const kernels::MatmulV2Attrs& a, MatmulShape& s) {
  if (x.rank == 0 || y.rank == 0) return fmt::format("X {} and Y {} must have rank >= 1", x.str(), y.str());
  s = MatmulShape{};
  const bool x1 = x.rank == 1, y1 = y.rank == 1;
  s.tx = !x1 && a.trans_x;
  s.ty = !y1 && a.trans_y;
  const int64_t xr = x1 ? 1 : x.d[x.rank - 2], xc = x.d[x.rank - 1];
  const int64_t yr = y1 ? y.d[0] : y.d[y.rank - 2], yc = y1 ? 1 : y.d[y.rank - 1];
  s.M = s.tx ? xc : xr;
  s.K = s.tx ? xr : xc;
  s.N = s.ty ? yr : yc;
  if (auto e = detail::check_inner(x, y, s, s.ty ? yc : yr); !e.empty()) return e;
  Shape xb, yb;
  xb.rank = x.rank > 2 ? x.rank - 2 : 0;
  yb.rank = y.rank > 2 ? y.rank - 2 : 0;
  for (int i = 0; i < xb.rank; ++i) xb.d[i] = x.d[i];
  for (int i = 0; i < yb.rank; ++i) yb.d[i] = y.d[i];
  if (!broadcast_numpy(xb, yb, s.xb, s.yb, s.ob).empty())
    return fmt::format("batch dims of X {} and Y {} cannot be broadcast", x.str(), y.str());
  s.out = s.ob;
  if (!x1) s.out.d[s.out.rank++] = s.M;
  if (!y1) s.out.d[s.out.rank++] = s.N;
  return {};
}

/// bmm: X [B, M, K] @ Y [B, K, N] = Out [B, M, N]; no broadcasting, no transposes.
inline std::string bmm_shape(const Shape& x, const Shape& y, const kernels::BmmAttrs&, MatmulShape& s) {
  if (x.rank != 3 || y.rank != 3) return fmt::format("X {} and Y {} must both be 3-D", x.str(), y.str());
  if (!dims_agree(x.d[0], y.d[0])) return fmt::format("X {} and Y {} differ in batch size", x.str(), y.str());
  if (!dims_agree(x.d[2], y.d[1]))
    return fmt::format("X {} has {} columns but Y {} has {} rows", x.str(), x.d[2], y.str(), y.d[1]);
  return matmul_v2_shape(x, y, kernels::MatmulV2Attrs{}, s);
}

/// dot: X and Y of one shape, [D] (Out 0-D) or [N, D] (Out [N]); M rows of K.
inline std::string dot_shape(const Shape& x, const Shape& y, const kernels::DotAttrs&, MatmulShape& s) {
  if (x.rank != y.rank || (x.rank != 1 && x.rank != 2))
    return fmt::format("X {} and Y {} must both be 1-D or both 2-D", x.str(), y.str());
  for (int i = 0; i < x.rank; ++i)
    if (!dims_agree(x.d[i], y.d[i])) return fmt::format("X {} and Y {} differ in shape", x.str(), y.str());
  s = MatmulShape{};
  s.K = x.d[x.rank - 1];
  s.M = x.rank == 2 ? x.d[0] : 1;
  s.N = 1;
  s.out.rank = 0;
  if (x.rank == 2) s.out.d[s.out.rank++] = x.d[0] >= 0 ? x.d[0] : y.d[0];
  return {};
}

/// addmm: X [M, K] and Y [K, N] 2-D; Input [M or 1, N or 1] or 1-D [N or 1]
/// (paddle.addmm's rule); Out [M, N]. Unknown (-1) dims pass.
inline std::string addmm_shape(const Shape& input, const Shape& x, const Shape& y, Shape& out) {
  if (x.rank != 2 || y.rank != 2) return fmt::format("X {} and Y {} must be 2-D", x.str(), y.str());
  if (x.d[1] >= 0 && y.d[0] >= 0 && x.d[1] != y.d[0])
    return fmt::format("X {} and Y {} do not chain: X's columns must be Y's rows", x.str(), y.str());
  out = Shape{x.d[0], y.d[1]};
  auto fits = [](int64_t d, int64_t want) { return d < 0 || want < 0 || d == 1 || d == want; };
  bool ok = false;
  if (input.rank == 1) ok = fits(input.d[0], out.d[1]);
  if (input.rank == 2) ok = fits(input.d[0], out.d[0]) && fits(input.d[1], out.d[1]);
  if (!ok) return fmt::format("Input {} does not broadcast to [X rows, Y columns] {}", input.str(), out.str());
  return "";
}

}  // namespace fluidc::shapes
