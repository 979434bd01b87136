// kernels/cpu/pad.cc - pad, pad2d, pad3d and their gradients: each output reads one X element (or the constant).
#include "kernels/pad.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/pad.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::PadGeom;

namespace {

// The X index each output index reads along D, H and W (-1: constant
// padding), made once per call.
struct Sources {
  const int64_t* at[3];
};

Sources source_tables(const PadGeom& g) {
  Tensor& buf = scratch(Slot::kTmp1);
  buf.resize(Shape{g.out[0] + g.out[1] + g.out[2]}, DType::kInt64);
  int64_t* p = buf.data<int64_t>();
  Sources s;
  for (int d = 0; d < 3; ++d) {
    for (int64_t o = 0; o < g.out[d]; ++o) p[o] = g.source(d, o);
    s.at[d] = p;
    p += g.out[d];
  }
  return s;
}

template <class T>
void pad_forward(const PadGeom& g, const Sources& s, const T* x, T* y, T value) {
  const int64_t IH = g.in[1], IW = g.in[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t in_plane = g.in[0] * IH * IW, out_plane = OD * OH * OW;
  if (!g.channel_last) {
    parallel_items(g.n * g.c, out_plane, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* xp = x + p * in_plane;
        T* yp = y + p * out_plane;
        for (int64_t od = 0; od < OD; ++od)
          for (int64_t oh = 0; oh < OH; ++oh) {
            T* yr = yp + (od * OH + oh) * OW;
            const int64_t sd = s.at[0][od], sh = s.at[1][oh];
            if (sd < 0 || sh < 0) {
              std::fill(yr, yr + OW, value);
              continue;
            }
            const T* xr = xp + (sd * IH + sh) * IW;
            for (int64_t ow = 0; ow < OW; ++ow) {
              const int64_t sw = s.at[2][ow];
              yr[ow] = sw < 0 ? value : xr[sw];
            }
          }
      }
    });
    return;
  }
  // Channel-last: each output position copies C contiguous values.
  const int64_t C = g.c;
  parallel_items(g.n * OD * OH, OW * C, [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t n = q / (OD * OH), od = q / OH % OD, oh = q % OH;
      const int64_t sd = s.at[0][od], sh = s.at[1][oh];
      T* yr = y + q * OW * C;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t sw = s.at[2][ow];
        T* yc = yr + ow * C;
        if (sd < 0 || sh < 0 || sw < 0) std::fill(yc, yc + C, value);
        else std::copy_n(x + (n * in_plane + (sd * IH + sh) * IW + sw) * C, C, yc);
      }
    }
  });
}

// X@GRAD: every output that read X[i] adds its gradient there. Padding
// modes other than constant read one X element several times, so each
// plane (channel-first) or batch item (channel-last) belongs to one thread.
template <class T>
void pad_backward(const PadGeom& g, const Sources& s, const T* dy, T* dx) {
  const int64_t IH = g.in[1], IW = g.in[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t in_plane = g.in[0] * IH * IW, out_plane = OD * OH * OW;
  const int64_t C = g.channel_last ? g.c : 1;
  const int64_t items = g.channel_last ? g.n : g.n * g.c;
  parallel_items(items, out_plane * C, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      T* dxp = dx + p * in_plane * C;
      const T* dyp = dy + p * out_plane * C;
      std::fill(dxp, dxp + in_plane * C, T(0));
      for (int64_t od = 0; od < OD; ++od)
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t sd = s.at[0][od], sh = s.at[1][oh];
          if (sd < 0 || sh < 0) continue;
          const T* dyr = dyp + (od * OH + oh) * OW * C;
          T* dxr = dxp + (sd * IH + sh) * IW * C;
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t sw = s.at[2][ow];
            if (sw < 0) continue;
            for (int64_t c = 0; c < C; ++c) dxr[sw * C + c] += dyr[ow * C + c];
          }
        }
    }
  });
}

// The run-time Paddings tensor's values, on the stack (no allocation per step).
struct RunTimePads {
  int64_t v[6];
  std::optional<std::span<const int64_t>> span;
};

RunTimePads run_time_pads(const char* op, const Tensor* paddings, int64_t count) {
  RunTimePads r;
  if (!paddings) return r;
  require_init(op, "Paddings", *paddings);
  if (paddings->numel() != count)
    rt::fail(fmt::format("{}: Paddings has {} values; {} expected", op, paddings->numel(), count));
  for (int64_t k = 0; k < count; ++k) r.v[k] = int_at(op, "Paddings", *paddings, k);
  r.span = std::span<const int64_t>(r.v, static_cast<size_t>(count));
  return r;
}

void spatial_fwd(const char* op, const Tensor& x, const PadGeom& g, const Shape& os, float value, Tensor& out) {
  OutBuf ob(&out, Slot::kOut0, &out == &x);
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Sources s = source_tables(g);
    ob.get().resize(os, x.dtype());
    pad_forward<T>(g, s, x.data<T>(), ob.get().data<T>(), static_cast<T>(value));
  });
  ob.finish();
}

void spatial_bwd(const char* op, const Tensor& x, const PadGeom& g, const Shape& os, const Tensor& dout,
                 Tensor* dx) {
  require_init(op, "Out@GRAD", dout);
  if (dout.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {} but padding X {} gives {}", op, dout.shape().str(),
                         x.shape().str(), os.str()));
  OutBuf ob(dx, Slot::kOut0, aliases(dx, {&x, &dout}));
  visit_float(op, "Out@GRAD", dout.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Sources s = source_tables(g);
    ob.get().resize(x.shape(), dout.dtype());
    pad_backward<T>(g, s, dout.data<T>(), ob.get().data<T>());
  });
  ob.finish();
}

PadGeom geom3d(const char* op, const Tensor& x, const Tensor* paddings, const Pad3dAttrs& a, Shape& os) {
  require_init(op, "X", x);
  const RunTimePads p = run_time_pads(op, paddings, 6);
  PadGeom g;
  require_rule(op, shapes::pad3d_geom(x.shape(), a, p.span, false, g, os));
  return g;
}

PadGeom geom2d(const char* op, const Tensor& x, const Tensor* paddings, const Pad2dAttrs& a, Shape& os) {
  require_init(op, "X", x);
  const RunTimePads p = run_time_pads(op, paddings, 4);
  PadGeom g;
  require_rule(op, shapes::pad2d_geom(x.shape(), a, p.span, false, g, os));
  return g;
}

// pad and pad_grad over any rank: body(k, o) for each row k of X (its last
// dim, row-major) and the offset o in Out where that row sits.
template <class Body>
void for_each_x_row(const Shape& xs, const Shape& os, const std::vector<int>& p, Body body) {
  const int r = xs.rank;
  if (r == 0 || xs.numel() == 0) return;
  int64_t ostride[Shape::kMaxRank];
  ostride[r - 1] = 1;
  for (int i = r - 2; i >= 0; --i) ostride[i] = ostride[i + 1] * os.d[i + 1];
  const int64_t rows = xs.numel() / xs.d[r - 1];
  int64_t idx[Shape::kMaxRank] = {};
  for (int64_t k = 0; k < rows; ++k) {
    int64_t o = p[2 * (r - 1)];
    for (int i = 0; i < r - 1; ++i) o += (idx[i] + p[2 * i]) * ostride[i];
    body(k, o);
    for (int i = r - 2; i >= 0; --i) {
      if (++idx[i] < xs.d[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

void pad3d(const Tensor& x, const Tensor* paddings, Tensor& out, const Pad3dAttrs& attrs) {
  Shape os;
  const PadGeom g = geom3d("pad3d", x, paddings, attrs, os);
  spatial_fwd("pad3d", x, g, os, attrs.value, out);
}

void pad3d_grad(const Tensor& x, const Tensor* paddings, const Tensor& out_grad, Tensor* x_grad,
                const Pad3dAttrs& attrs) {
  if (!x_grad) return;
  Shape os;
  const PadGeom g = geom3d("pad3d_grad", x, paddings, attrs, os);
  spatial_bwd("pad3d_grad", x, g, os, out_grad, x_grad);
}

void pad2d(const Tensor& x, const Tensor* paddings, Tensor& out, const Pad2dAttrs& attrs) {
  Shape os;
  const PadGeom g = geom2d("pad2d", x, paddings, attrs, os);
  spatial_fwd("pad2d", x, g, os, attrs.pad_value, out);
}

void pad2d_grad(const Tensor& x, const Tensor* paddings, const Tensor& out_grad, Tensor* x_grad,
                const Pad2dAttrs& attrs) {
  if (!x_grad) return;
  Shape os;
  const PadGeom g = geom2d("pad2d_grad", x, paddings, attrs, os);
  spatial_bwd("pad2d_grad", x, g, os, out_grad, x_grad);
}

void pad(const Tensor& x, Tensor& out, const PadAttrs& attrs) {
  require_init("pad", "X", x);
  Shape os;
  require_rule("pad", shapes::pad_shape(x.shape(), attrs.paddings, +1, os));
  OutBuf ob(&out, Slot::kOut0, &out == &x);
  visit_numeric("pad", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    const T* xp = x.data<T>();
    T* y = ob.get().data<T>();
    std::fill(y, y + os.numel(), static_cast<T>(attrs.pad_value));
    if (os.rank == 0) y[0] = xp[0];
    const int64_t row = os.rank ? x.shape().d[os.rank - 1] : 0;
    for_each_x_row(x.shape(), os, attrs.paddings, [&](int64_t k, int64_t o) { std::copy_n(xp + k * row, row, y + o); });
  });
  ob.finish();
}

void pad_grad(const Tensor& out_grad, Tensor* x_grad, const PadAttrs& attrs) {
  if (!x_grad) return;
  require_init("pad_grad", "Out@GRAD", out_grad);
  Shape xs;
  require_rule("pad_grad", shapes::pad_shape(out_grad.shape(), attrs.paddings, -1, xs));
  OutBuf ob(x_grad, Slot::kOut0, x_grad == &out_grad);
  visit_float("pad_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(xs, out_grad.dtype());
    const T* dy = out_grad.data<T>();
    T* dx = ob.get().data<T>();
    if (xs.rank == 0) dx[0] = dy[0];
    const int64_t row = xs.rank ? xs.d[xs.rank - 1] : 0;
    for_each_x_row(xs, out_grad.shape(), attrs.paddings,
                   [&](int64_t k, int64_t o) { std::copy_n(dy + o, row, dx + k * row); });
  });
  ob.finish();
}

}  // namespace fluidc::kernels
