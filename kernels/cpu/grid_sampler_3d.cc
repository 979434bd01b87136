// kernels/cpu/grid_sampler_3d.cc - grid_sampler and its gradient on 5-D volumes: trilinear / nearest sampling at Grid's (x, y, z).
#include <cmath>

#include "kernels/cpu/grid_sample_coord.h"

namespace fluidc::kernels::grid_detail {

namespace {

/// One grid point's position in the volume: pixel coordinates (along W, H,
/// D) and their derivatives with respect to the grid's (x, y, z).
template <class T>
struct Point {
  T p[3];  // x (W), y (H), z (D)
  T dp[3];
  bool ok;
};

template <class T>
Point<T> point_of(const T* g, const int64_t size[3], const Setup& s) {
  Point<T> pt;
  pt.ok = true;
  for (int k = 0; k < 3; ++k) {
    pt.p[k] = source_coord(g[k], size[k], s, pt.dp[k]);
    pt.ok = pt.ok && usable(pt.p[k], size[k]);
  }
  return pt;
}

/// The 8 corners (or, nearest, the one voxel) a point reads: flat offsets
/// within one channel's volume (-1 when outside) and their weights.
template <class T>
struct Corners {
  int64_t at[8];
  T w[8];
  T frac[3];      // distance past the lower corner along x, y, z
  int64_t lo[3];  // the lower corner
  int n;
};

template <class T>
Corners<T> corners_of(const Point<T>& pt, const int64_t size[3], const Setup& s) {
  Corners<T> c;
  const int64_t W = size[0], H = size[1], D = size[2];
  auto flat = [&](int64_t xx, int64_t yy, int64_t zz) -> int64_t {
    return xx >= 0 && xx < W && yy >= 0 && yy < H && zz >= 0 && zz < D ? (zz * H + yy) * W + xx : -1;
  };
  if (!s.bilinear) {
    // Paddle 2.6.2 tests the volume's bounds on the unrounded coordinate
    // (0 <= p <= size - 1), then rounds: under zeros padding a point within
    // half a voxel outside reads 0, where the 4-D kernel (and PyTorch) round
    // first and read the edge voxel. Border and reflection padding keep p in
    // range, so only zeros padding sees the difference.
    c.n = 1;
    c.w[0] = T(1);
    for (int k = 0; k < 3; ++k)
      if (!(pt.p[k] >= T(0) && pt.p[k] <= static_cast<T>(size[k] - 1))) {
        c.at[0] = -1;
        return c;
      }
    c.at[0] = flat(static_cast<int64_t>(std::round(pt.p[0])), static_cast<int64_t>(std::round(pt.p[1])),
                   static_cast<int64_t>(std::round(pt.p[2])));
    return c;
  }
  c.n = 8;
  for (int k = 0; k < 3; ++k) {
    const T f = std::floor(pt.p[k]);
    c.lo[k] = static_cast<int64_t>(f);
    c.frac[k] = pt.p[k] - f;
  }
  // Corner bit 0 steps along x, bit 1 along y, bit 2 along z.
  for (int m = 0; m < 8; ++m) {
    T w = T(1);
    int64_t idx[3];
    for (int k = 0; k < 3; ++k) {
      const bool hi = (m >> k) & 1;
      idx[k] = c.lo[k] + hi;
      w *= hi ? c.frac[k] : T(1) - c.frac[k];
    }
    c.at[m] = flat(idx[0], idx[1], idx[2]);
    c.w[m] = w;
  }
  return c;
}

}  // namespace

void grid_sampler_5d(const Setup& s, const Tensor& x, const Tensor& grid, Tensor& out) {
  const Shape& os = out.shape();
  const int64_t N = os.d[0], C = os.d[1], Do = os.d[2], Ho = os.d[3], Wo = os.d[4];
  const int64_t size[3] = {x.dim(4), x.dim(3), x.dim(2)};
  const int64_t vol = size[0] * size[1] * size[2], pts = Do * Ho * Wo;
  visit_float("grid_sampler", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* gd = grid.data<T>();
    T* od = out.data<T>();
    parallel_items(N * pts, C * 16, [&](int64_t begin, int64_t end) {
      for (int64_t q = begin; q < end; ++q) {
        const int64_t n = q / pts, r = q % pts;
        const Point<T> pt = point_of(gd + q * 3, size, s);
        const Corners<T> cs = pt.ok ? corners_of(pt, size, s) : Corners<T>{};
        for (int64_t c = 0; c < C; ++c) {
          const T* xc = xd + (n * C + c) * vol;
          T v = T(0);
          if (pt.ok)
            for (int m = 0; m < cs.n; ++m)
              if (cs.at[m] >= 0) v += xc[cs.at[m]] * cs.w[m];
          od[(n * C + c) * pts + r] = v;
        }
      }
    });
  });
}

void grid_sampler_5d_grad(const Setup& s, const Tensor& x, const Tensor& grid, const Tensor& output_grad,
                          Tensor* x_grad, Tensor* grid_grad) {
  const Shape& os = output_grad.shape();
  const int64_t N = os.d[0], C = os.d[1], Do = os.d[2], Ho = os.d[3], Wo = os.d[4];
  const int64_t size[3] = {x.dim(4), x.dim(3), x.dim(2)};
  const int64_t vol = size[0] * size[1] * size[2], pts = Do * Ho * Wo;
  visit_float("grid_sampler_grad", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* gd = grid.data<T>();
    const T* dod = output_grad.data<T>();
    T* dxd = x_grad ? x_grad->data<T>() : nullptr;
    T* dgd = grid_grad ? grid_grad->data<T>() : nullptr;
    // Threads split the batch: each volume's X@GRAD is written by one thread.
    parallel_items(N, pts * C * 32, [&](int64_t nb, int64_t ne) {
      for (int64_t n = nb; n < ne; ++n)
        for (int64_t r = 0; r < pts; ++r) {
          const int64_t q = n * pts + r;
          const Point<T> pt = point_of(gd + q * 3, size, s);
          if (!pt.ok) continue;
          const Corners<T> cs = corners_of(pt, size, s);
          T gsum[3] = {T(0), T(0), T(0)};
          for (int64_t c = 0; c < C; ++c) {
            const T go = dod[(n * C + c) * pts + r];
            const T* xc = xd + (n * C + c) * vol;
            for (int m = 0; m < cs.n; ++m) {
              if (cs.at[m] < 0) continue;
              if (dxd) dxd[(n * C + c) * vol + cs.at[m]] += go * cs.w[m];
              if (!s.bilinear) continue;
              // d(weight)/d(p_k): the other two axes' factors, signed by
              // whether this corner is the upper (+) or lower (-) one along k.
              const T v = xc[cs.at[m]] * go;
              for (int k = 0; k < 3; ++k) {
                T w = (m >> k) & 1 ? T(1) : T(-1);
                for (int j = 0; j < 3; ++j)
                  if (j != k) w *= (m >> j) & 1 ? cs.frac[j] : T(1) - cs.frac[j];
                gsum[k] += v * w;
              }
            }
          }
          // Nearest sampling is flat in the grid: its Grid@GRAD stays zero.
          if (dgd && s.bilinear)
            for (int k = 0; k < 3; ++k) dgd[q * 3 + k] = gsum[k] * pt.dp[k];
        }
    });
  });
}

}  // namespace fluidc::kernels::grid_detail
