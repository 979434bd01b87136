// kernels/cpu/pool_with_index.cc - max_pool2d/3d_with_index (max and its flat index per window) and gradients.
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/pool.h"
#include "kernels/shapes/pool.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::PoolGeom;

namespace {

PoolGeom geometry(const char* op, int nsp, const Tensor& x, const MaxPoolWithIndexAttrs& a, Shape& os) {
  require_init(op, "X", x);
  PoolGeom g;
  require_rule(op, shapes::pool_with_index_geom(x.shape(), a, nsp, g, os));
  if (g.channel_last) rt::fail(fmt::format("{}: X must be channel-first", op));  // pool_geom's default
  return g;
}

template <class T>
void forward(const PoolGeom& g, const T* x, T* y, int32_t* mask) {
  const int64_t IH = g.in[1], IW = g.in[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t in_plane = g.in[0] * IH * IW, out_plane = OD * OH * OW;
  parallel_items(g.n * g.c, in_plane, [&](int64_t b0, int64_t e0) {
    for (int64_t p = b0; p < e0; ++p) {
      const T* xp = x + p * in_plane;
      T* yp = y + p * out_plane;
      int32_t* mp = mask + p * out_plane;
      for (int64_t od = 0; od < OD; ++od)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t b[3], e[3], full;
            g.window(0, od, b[0], e[0], full);
            g.window(1, oh, b[1], e[1], full);
            g.window(2, ow, b[2], e[2], full);
            T best = std::numeric_limits<T>::lowest();
            int64_t at = -1;
            for (int64_t d = b[0]; d < e[0]; ++d)
              for (int64_t h = b[1]; h < e[1]; ++h)
                for (int64_t w = b[2]; w < e[2]; ++w) {
                  const int64_t i = (d * IH + h) * IW + w;
                  if (xp[i] > best) best = xp[i], at = i;  // strictly greater: the first max wins
                }
            const int64_t o = (od * OH + oh) * OW + ow;
            yp[o] = best;
            mp[o] = static_cast<int32_t>(at);
          }
    }
  });
}

template <class T, class M>
void backward(const PoolGeom& g, const M* mask, const T* dy, T* dx) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  parallel_items(g.n * g.c, out_plane, [&](int64_t b0, int64_t e0) {
    for (int64_t p = b0; p < e0; ++p) {
      T* dxp = dx + p * in_plane;
      const M* mp = mask + p * out_plane;
      const T* dyp = dy + p * out_plane;
      for (int64_t i = 0; i < in_plane; ++i) dxp[i] = T(0);
      for (int64_t o = 0; o < out_plane; ++o)
        if (mp[o] >= 0) dxp[mp[o]] += dyp[o];
    }
  });
}

// A Mask from the program is untrusted: every index must lie in its plane.
template <class M>
void check_mask(const char* op, const M* m, int64_t n, int64_t plane) {
  for (int64_t i = 0; i < n; ++i)
    if (m[i] < -1 || m[i] >= plane)
      rt::fail(fmt::format("{}: Mask value {} at {} is outside the input plane of {} elements", op,
                           static_cast<int64_t>(m[i]), i, plane));
}

void fwd(const char* op, int nsp, const Tensor& x, Tensor& out, Tensor& mask, const MaxPoolWithIndexAttrs& a) {
  Shape os;
  const PoolGeom g = geometry(op, nsp, x, a, os);
  if (g.in[0] * g.in[1] * g.in[2] > std::numeric_limits<int32_t>::max())
    rt::fail(fmt::format("{}: the input plane of X {} is too large for int32 indices", op, x.shape().str()));
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x}));
  OutBuf mb(&mask, Slot::kOut1, aliases(&mask, {&x, &out}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    mb.get().resize(os, DType::kInt32);
    forward<T>(g, x.data<T>(), ob.get().data<T>(), mb.get().data<int32_t>());
  });
  ob.finish();
  mb.finish();
}

void bwd(const char* op, int nsp, const Tensor& x, const Tensor& mask, const Tensor& dout, Tensor* dx,
         const MaxPoolWithIndexAttrs& a) {
  if (!dx) return;
  Shape os;
  const PoolGeom g = geometry(op, nsp, x, a, os);
  require_init(op, "Mask", mask);
  require_init(op, "Out@GRAD", dout);
  if (dout.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {} but pooling X {} gives {}", op, dout.shape().str(),
                         x.shape().str(), os.str()));
  require_same_shape(op, "Mask", mask, "Out@GRAD", dout);
  require_same_dtype(op, "X", x, "Out@GRAD", dout);
  const int64_t plane = g.in[0] * g.in[1] * g.in[2];
  OutBuf ob(dx, Slot::kOut0, aliases(dx, {&x, &mask, &dout}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(x.shape(), x.dtype());
    if (mask.dtype() == DType::kInt32) {
      check_mask(op, mask.data<int32_t>(), mask.numel(), plane);
      backward<T, int32_t>(g, mask.data<int32_t>(), dout.data<T>(), ob.get().data<T>());
    } else if (mask.dtype() == DType::kInt64) {
      check_mask(op, mask.data<int64_t>(), mask.numel(), plane);
      backward<T, int64_t>(g, mask.data<int64_t>(), dout.data<T>(), ob.get().data<T>());
    } else {
      fail_dtype(op, "Mask", mask.dtype());
    }
  });
  ob.finish();
}

}  // namespace

void max_pool2d_with_index(const Tensor& x, Tensor& out, Tensor& mask, const MaxPoolWithIndexAttrs& attrs) {
  fwd("max_pool2d_with_index", 2, x, out, mask, attrs);
}
void max_pool3d_with_index(const Tensor& x, Tensor& out, Tensor& mask, const MaxPoolWithIndexAttrs& attrs) {
  fwd("max_pool3d_with_index", 3, x, out, mask, attrs);
}
void max_pool2d_with_index_grad(const Tensor& x, const Tensor& mask, const Tensor& out_grad, Tensor* x_grad,
                                const MaxPoolWithIndexAttrs& attrs) {
  bwd("max_pool2d_with_index_grad", 2, x, mask, out_grad, x_grad, attrs);
}
void max_pool3d_with_index_grad(const Tensor& x, const Tensor& mask, const Tensor& out_grad, Tensor* x_grad,
                                const MaxPoolWithIndexAttrs& attrs) {
  bwd("max_pool3d_with_index_grad", 3, x, mask, out_grad, x_grad, attrs);
}

}  // namespace fluidc::kernels
