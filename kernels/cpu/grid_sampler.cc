// kernels/cpu/grid_sampler.cc - grid_sampler and its gradient on 4-D images: bilinear / nearest sampling with zeros, border or reflection padding.
#include <cmath>
#include <utility>

#include "kernels/cpu/grid_sample_coord.h"

namespace fluidc::kernels {

using namespace detail;
using namespace grid_detail;

void grid_sampler(const Tensor& x, const Tensor& grid, Tensor& output, const GridSamplerAttrs& attrs) {
  constexpr const char* op = "grid_sampler";
  Shape os;
  const Setup s = setup_of(op, x, grid, attrs, os);
  OutBuf buf(&output, Slot::kOut0, aliases(&output, {&x, &grid}));
  Tensor& out = buf.get();
  out.resize(os, x.dtype());
  if (os.rank == 5) {
    grid_sampler_5d(s, x, grid, out);
    buf.finish();
    return;
  }
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
  // Both gradients accumulate: they start at zero.
  for (auto [b, like] : {std::pair{&xb, &x}, std::pair{&gb, &grid}})
    if (b->wanted()) {
      b->get().resize(like->shape(), like->dtype());
      b->get().zero();
    }
  if (os.rank == 5) {
    grid_sampler_5d_grad(s, x, grid, output_grad, xb.wanted() ? &xb.get() : nullptr,
                         gb.wanted() ? &gb.get() : nullptr);
    xb.finish();
    gb.finish();
    return;
  }
  const int64_t N = os.d[0], C = os.d[1], Ho = os.d[2], Wo = os.d[3], H = x.shape().d[2], W = x.shape().d[3];
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* gd = grid.data<T>();
    const T* dod = output_grad.data<T>();
    T* dxd = xb.wanted() ? xb.get().data<T>() : nullptr;
    T* dgd = gb.wanted() ? gb.get().data<T>() : nullptr;
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
