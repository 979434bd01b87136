// kernels/cpu/interp.cc - nearest and bilinear resizing (NCHW / NHWC) and their gradients.
#include "kernels/interp.h"

#include <cmath>
#include <vector>

#include "kernels/cpu/interp_common.h"
#include "kernels/shapes/interp.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::InterpGeom;

namespace {

InterpGeom geometry(const char* op, const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                    int num_size_tensor, const Tensor* scale, const InterpAttrs& a, Shape& out) {
  require_init(op, "X", x);
  InterpGeom g;
  require_rule(op, shapes::interp_geom(x.shape(), a, read_sources(op, 2, out_size, size_tensor, num_size_tensor, scale),
                                       g, out));
  return g;
}

// The blend of one output pixel from rows r0, r1 at columns a, b. fp32
// blends in fp32 as Paddle does; the weights are products of the two dims'.
template <class T>
inline T blend(const T* r0, const T* r1, int64_t a, int64_t b, const Tap& ty, const Tap& tx) {
  return static_cast<T>(r0[a] * (ty.w0 * tx.w0) + r1[a] * (ty.w1 * tx.w0) + r0[b] * (ty.w0 * tx.w1) +
                        r1[b] * (ty.w1 * tx.w1));
}

template <class T>
void forward(const InterpGeom& g, const Tensor& x, Tensor& out) {
  std::vector<Tap> ty, tx;
  make_taps(g.nearest, g.align_corners, g.half_pixel, g.in_h, g.out_h, g.ratio_h, ty);
  make_taps(g.nearest, g.align_corners, g.half_pixel, g.in_w, g.out_w, g.ratio_w, tx);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const int64_t IH = g.in_h, IW = g.in_w, OH = g.out_h, OW = g.out_w, C = g.c;
  if (!g.channel_last) {
    parallel_items(g.n * C, OH * OW, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* plane = in + p * IH * IW;
        T* op = o + p * OH * OW;
        for (int64_t k = 0; k < OH; ++k) {
          const Tap& y = ty[k];
          const T* r0 = plane + y.i0 * IW;
          const T* r1 = plane + y.i1 * IW;
          T* orow = op + k * OW;
          if (g.nearest)
            for (int64_t l = 0; l < OW; ++l) orow[l] = r0[tx[l].i0];
          else
            for (int64_t l = 0; l < OW; ++l) orow[l] = blend(r0, r1, tx[l].i0, tx[l].i1, y, tx[l]);
        }
      }
    });
    return;
  }
  // NHWC: the channels of a pixel are contiguous; blend them as vectors.
  parallel_items(g.n * OH, OW * C, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / OH, k = r % OH;
      const Tap& y = ty[k];
      const T* r0 = in + (n * IH + y.i0) * IW * C;
      const T* r1 = in + (n * IH + y.i1) * IW * C;
      T* orow = o + r * OW * C;
      for (int64_t l = 0; l < OW; ++l) {
        const Tap& t = tx[l];
        T* op = orow + l * C;
        if (g.nearest) {
          std::copy(r0 + t.i0 * C, r0 + t.i0 * C + C, op);
          continue;
        }
        const T *a = r0 + t.i0 * C, *b = r0 + t.i1 * C, *c = r1 + t.i0 * C, *d = r1 + t.i1 * C;
        const T w00 = y.w0 * t.w0, w01 = y.w0 * t.w1, w10 = y.w1 * t.w0, w11 = y.w1 * t.w1;
        for (int64_t ch = 0; ch < C; ++ch) op[ch] = a[ch] * w00 + c[ch] * w10 + b[ch] * w01 + d[ch] * w11;
      }
    }
  });
}

template <class T>
void backward(const InterpGeom& g, const Tensor& dout, Tensor& dx) {
  std::vector<Tap> ty, tx;
  make_taps(g.nearest, g.align_corners, g.half_pixel, g.in_h, g.out_h, g.ratio_h, ty);
  make_taps(g.nearest, g.align_corners, g.half_pixel, g.in_w, g.out_w, g.ratio_w, tx);
  const T* go = dout.data<T>();
  T* gi = dx.data<T>();
  const int64_t IH = g.in_h, IW = g.in_w, OH = g.out_h, OW = g.out_w, C = g.c;
  // Each item (a plane, or a batch for NHWC) scatters into its own input
  // region only, so the items run in parallel without races.
  const int64_t items = g.channel_last ? g.n : g.n * C;
  const int64_t plane_out = g.channel_last ? OH * OW * C : OH * OW, plane_in = g.channel_last ? IH * IW * C : IH * IW;
  const int64_t cs = g.channel_last ? C : 1;  // channels per pixel in this walk
  parallel_items(items, plane_out, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* src = go + p * plane_out;
      T* dst = gi + p * plane_in;
      for (int64_t k = 0; k < OH; ++k) {
        const Tap& y = ty[k];
        T* r0 = dst + y.i0 * IW * cs;
        T* r1 = dst + y.i1 * IW * cs;
        for (int64_t l = 0; l < OW; ++l) {
          const Tap& t = tx[l];
          const T* gv = src + (k * OW + l) * cs;
          for (int64_t ch = 0; ch < cs; ++ch) {
            const T v = gv[ch];
            if (g.nearest) {
              r0[t.i0 * cs + ch] += v;
              continue;
            }
            r0[t.i0 * cs + ch] += static_cast<T>(v * y.w0 * t.w0);
            r1[t.i0 * cs + ch] += static_cast<T>(v * y.w1 * t.w0);
            r0[t.i1 * cs + ch] += static_cast<T>(v * y.w0 * t.w1);
            r1[t.i1 * cs + ch] += static_cast<T>(v * y.w1 * t.w1);
          }
        }
      }
    }
  });
}

void run_forward(const char* op, const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                 int num_size_tensor, const Tensor* scale, Tensor& out, const InterpAttrs& a) {
  Shape os;
  const InterpGeom g = geometry(op, x, out_size, size_tensor, num_size_tensor, scale, a, os);
  if (&out == &x) rt::fail(fmt::format("{}: Out must not be X", op));
  out.resize(os, x.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) { forward<decltype(tag)>(g, x, out); });
}

void run_backward(const char* op, const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                  int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                  const InterpAttrs& a) {
  if (!x_grad) return;
  Shape os;
  const InterpGeom g = geometry(op, x, out_size, size_tensor, num_size_tensor, scale, a, os);
  require_init(op, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {}, the resize gives {}", op, out_grad.shape().str(), os.str()));
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&out_grad}));
  buf.get().resize(x.shape(), x.dtype());
  buf.get().zero();
  visit_float(op, "X", x.dtype(), [&](auto tag) { backward<decltype(tag)>(g, out_grad, buf.get()); });
  buf.finish();
}

}  // namespace

void nearest_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                       const Tensor* scale, Tensor& out, const InterpAttrs& attrs) {
  run_forward("nearest_interp_v2", x, out_size, size_tensor, num_size_tensor, scale, out, attrs);
}
void bilinear_interp_v2(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                        int num_size_tensor, const Tensor* scale, Tensor& out, const InterpAttrs& attrs) {
  run_forward("bilinear_interp_v2", x, out_size, size_tensor, num_size_tensor, scale, out, attrs);
}
void nearest_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                            int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                            const InterpAttrs& attrs) {
  run_backward("nearest_interp_v2_grad", x, out_size, size_tensor, num_size_tensor, scale, out_grad, x_grad, attrs);
}
void bilinear_interp_v2_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                             int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                             const InterpAttrs& attrs) {
  run_backward("bilinear_interp_v2_grad", x, out_size, size_tensor, num_size_tensor, scale, out_grad, x_grad, attrs);
}

void nearest_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                    const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs) {
  run_forward("nearest_interp", x, out_size, size_tensor, num_size_tensor, scale, out, attrs.v2());
}
void bilinear_interp(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                     const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs) {
  run_forward("bilinear_interp", x, out_size, size_tensor, num_size_tensor, scale, out, attrs.v2());
}
void nearest_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                         int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                         const InterpV1Attrs& attrs) {
  run_backward("nearest_interp_grad", x, out_size, size_tensor, num_size_tensor, scale, out_grad, x_grad,
               attrs.v2());
}
void bilinear_interp_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                          int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                          const InterpV1Attrs& attrs) {
  run_backward("bilinear_interp_grad", x, out_size, size_tensor, num_size_tensor, scale, out_grad, x_grad,
               attrs.v2());
}

}  // namespace fluidc::kernels
