// kernels/cpu/grid_sampler.cc - grid_sampler and its gradient: bilinear / nearest sampling with zeros, border or reflection padding.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/sampling.h"
#include "kernels/shapes/sampling.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

enum class Pad { kZeros, kBorder, kReflection };

struct Setup {
  bool bilinear = true;
  Pad pad = Pad::kZeros;
  bool align = true;
};

Setup setup_of(const char* op, const Tensor& x, const Tensor& grid, const GridSamplerAttrs& a, Shape& out) {
  require_init(op, "X", x);
  require_init(op, "Grid", grid);
  require_same_dtype(op, "X", x, "Grid", grid);
  require_rule(op, shapes::grid_sampler_shape(x.shape(), grid.shape(), a, out));
  Setup s;
  s.bilinear = a.mode == "bilinear";
  s.pad = a.padding_mode == "border" ? Pad::kBorder : a.padding_mode == "reflection" ? Pad::kReflection : Pad::kZeros;
  s.align = a.align_corners;
  return s;
}

/// The pixel coordinate a normalised grid value g reads along a dim of
/// `size` pixels (Paddle's unnormalise, then border clamping or
/// reflection), and in `d` its derivative with respect to g. NaN stays NaN
/// (the caller reads nothing there).
template <class T>
T source_coord(T g, int64_t size, const Setup& s, T& d) {
  const int64_t max = size - 1;
  T x;
  if (s.align) {
    x = (g + T(1)) * static_cast<T>(max * 0.5);
    d = static_cast<T>(max * 0.5);
  } else {
    x = ((g + T(1)) * static_cast<T>(max + 1) - T(1)) * T(0.5);
    d = static_cast<T>(max + 1) * T(0.5);
  }
  auto clamp = [&](T v) {
    if (v < T(0)) return d = T(0), T(0);
    if (v > static_cast<T>(max)) return d = T(0), static_cast<T>(max);
    return v;
  };
  if (s.pad == Pad::kBorder) return clamp(x);
  if (s.pad == Pad::kReflection) {
    // Mirror at the edges: fold |x| (shifted by half a pixel unless
    // align_corners) into one period of twice the range.
    const T shift = s.align ? T(0) : T(0.5);
    const T range2 = static_cast<T>(s.align ? 2 * max : 2 * (max + 1));
    if (range2 == T(0)) return d = T(0), T(0);
    const T v = x + shift;
    const T sign = v < T(0) ? T(-1) : T(1);
    const T a = std::abs(v);
    const T extra = a - std::floor(a / range2) * range2;
    T r;
    if (extra <= range2 - extra) {
      r = extra;
      d *= sign;
    } else {
      r = range2 - extra;
      d *= -sign;
    }
    x = r - shift;
    if (!s.align) x = clamp(x);
    return x;
  }
  return x;
}

/// True when the pixel coordinate is one whose integer neighbours can be
/// formed without overflow (NaN and huge values read nothing).
template <class T>
bool usable(T v, int64_t size) {
  return v > T(-2) && v < static_cast<T>(size + 1);
}

}  // namespace

void grid_sampler(const Tensor& x, const Tensor& grid, Tensor& output, const GridSamplerAttrs& attrs) {
  constexpr const char* op = "grid_sampler";
  Shape os;
  const Setup s = setup_of(op, x, grid, attrs, os);
  OutBuf buf(&output, Slot::kOut0, aliases(&output, {&x, &grid}));
  Tensor& out = buf.get();
  out.resize(os, x.dtype());
  const int64_t N = os.d[0], C = os.d[1], Ho = os.d[2], Wo = os.d[3], H = x.shape().d[2], W = x.shape().d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* gd = grid.data<T>();
    T* od = out.data<T>();
    parallel_items(N * Ho, Wo * C * 4, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / Ho, i = row % Ho;
        for (int64_t j = 0; j < Wo; ++j) {
          const T* g = gd + ((n * Ho + i) * Wo + j) * 2;
          T dx, dy;
          const T px = source_coord(g[0], W, s, dx), py = source_coord(g[1], H, s, dy);
          const bool ok = usable(px, W) && usable(py, H);
          auto at = [&](int64_t c, int64_t yy, int64_t xx) {
            return yy >= 0 && yy < H && xx >= 0 && xx < W ? xd[((n * C + c) * H + yy) * W + xx] : T(0);
          };
          for (int64_t c = 0; c < C; ++c) {
            T v = T(0);
            if (ok && s.bilinear) {
              const T fx = std::floor(px), fy = std::floor(py);
              const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
              const T dw = px - fx, de = T(1) - dw, dn = py - fy, ds = T(1) - dn;
              v = at(c, y0, x0) * de * ds + at(c, y0, x0 + 1) * dw * ds + at(c, y0 + 1, x0) * de * dn +
                  at(c, y0 + 1, x0 + 1) * dw * dn;
            } else if (ok) {
              v = at(c, static_cast<int64_t>(std::round(py)), static_cast<int64_t>(std::round(px)));
            }
            od[((n * C + c) * Ho + i) * Wo + j] = v;
          }
        }
      }
    });
  });
  buf.finish();
}

void grid_sampler_grad(const Tensor& x, const Tensor& grid, const Tensor& output_grad, Tensor* x_grad,
                       Tensor* grid_grad, const GridSamplerAttrs& attrs) {
  constexpr const char* op = "grid_sampler_grad";
  Shape os;
  const Setup s = setup_of(op, x, grid, attrs, os);
  require_init(op, "Output@GRAD", output_grad);
  if (output_grad.shape() != os)
    rt::fail(fmt::format("{}: Output@GRAD is {} but Output is {}", op, output_grad.shape().str(), os.str()));
  require_same_dtype(op, "X", x, "Output@GRAD", output_grad);
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, {&x, &grid, &output_grad}));
  OutBuf gb(grid_grad, Slot::kOut1, aliases(grid_grad, {&x, &grid, &output_grad}));
  const int64_t N = os.d[0], C = os.d[1], Ho = os.d[2], Wo = os.d[3], H = x.shape().d[2], W = x.shape().d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* gd = grid.data<T>();
    const T* dod = output_grad.data<T>();
    T* dxd = nullptr;
    T* dgd = nullptr;
    if (xb.wanted()) {
      xb.get().resize(x.shape(), x.dtype());
      dxd = xb.get().data<T>();
      std::fill(dxd, dxd + x.numel(), T(0));
    }
    if (gb.wanted()) {
      gb.get().resize(grid.shape(), grid.dtype());
      dgd = gb.get().data<T>();
      std::fill(dgd, dgd + grid.numel(), T(0));
    }
    // Threads split the batch: each image's X@GRAD is written by one thread.
    parallel_items(N, Ho * Wo * C * 8, [&](int64_t nb, int64_t ne) {
      for (int64_t n = nb; n < ne; ++n)
        for (int64_t i = 0; i < Ho; ++i)
          for (int64_t j = 0; j < Wo; ++j) {
            const int64_t gi = ((n * Ho + i) * Wo + j) * 2;
            T dcx, dcy;
            const T px = source_coord(gd[gi], W, s, dcx), py = source_coord(gd[gi + 1], H, s, dcy);
            if (!(usable(px, W) && usable(py, H))) continue;
            auto in = [&](int64_t yy, int64_t xx) { return yy >= 0 && yy < H && xx >= 0 && xx < W; };
            if (!s.bilinear) {
              const int64_t yy = static_cast<int64_t>(std::round(py)), xx = static_cast<int64_t>(std::round(px));
              if (dxd && in(yy, xx))
                for (int64_t c = 0; c < C; ++c)
                  dxd[((n * C + c) * H + yy) * W + xx] += dod[((n * C + c) * Ho + i) * Wo + j];
              continue;
            }
            const T fx = std::floor(px), fy = std::floor(py);
            const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
            const T dw = px - fx, de = T(1) - dw, dn = py - fy, ds = T(1) - dn;
            const int64_t ys[2] = {y0, y0 + 1}, xs[2] = {x0, x0 + 1};
            const T wy[2] = {ds, dn}, wx[2] = {de, dw};
            T gx = T(0), gy = T(0);
            for (int64_t c = 0; c < C; ++c) {
              const T go = dod[((n * C + c) * Ho + i) * Wo + j];
              for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b) {
                  if (!in(ys[a], xs[b])) continue;
                  const int64_t xi = ((n * C + c) * H + ys[a]) * W + xs[b];
                  if (dxd) dxd[xi] += go * wy[a] * wx[b];
                  const T v = xd[xi] * go;
                  // d(weight)/d(px): -1 for the west column, +1 for the east; likewise py.
                  gx += v * wy[a] * (b ? T(1) : T(-1));
                  gy += v * wx[b] * (a ? T(1) : T(-1));
                }
            }
            if (dgd) {
              dgd[gi] = gx * dcx;
              dgd[gi + 1] = gy * dcy;
            }
          }
    });
  });
  xb.finish();
  gb.finish();
}

}  // namespace fluidc::kernels
