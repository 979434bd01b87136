// kernels/cpu/affine_channel.cc - affine_channel (per-channel Scale and Bias) and its gradient.
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy.h"
#include "kernels/vision_legacy.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// X seen as [outer, C, inner] around the channel axis.
struct Geom {
  int64_t outer = 1, c = 1, inner = 1;
};

Geom geom(const char* op, const Tensor& x, const AffineChannelAttrs& a) {
  int axis = 0;
  require_rule(op, shapes::affine_channel_axis(x.shape(), a, axis));
  return {prod(x.shape(), 0, axis), x.shape()[axis], prod(x.shape(), axis + 1, x.shape().rank)};
}

void require_per_channel(const char* op, const char* role, const Tensor& t, const Tensor& x, int64_t c) {
  require_init(op, role, t);
  require_same_dtype(op, "X", x, role, t);
  if (t.numel() != c)
    rt::fail(fmt::format("{}: {} {} must hold one value per channel of X {} ({})", op, role, t.shape().str(),
                         x.shape().str(), c));
}

}  // namespace

void affine_channel(const Tensor& x, const Tensor& scale, const Tensor& bias, Tensor& out,
                    const AffineChannelAttrs& attrs) {
  const char* op = "affine_channel";
  require_init(op, "X", x);
  const Geom g = geom(op, x, attrs);
  require_per_channel(op, "Scale", scale, x, g.c);
  require_per_channel(op, "Bias", bias, x, g.c);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Each element of X is read once and written once at the same index, so
    // Out may be X; an Out bound to Scale or Bias is written through scratch.
    OutBuf ob(&out, Slot::kOut0, aliases(&out, {&scale, &bias}));
    ob.get().resize(x.shape(), x.dtype());
    const T* px = x.data<T>();
    const T* s = scale.data<T>();
    const T* b = bias.data<T>();
    T* po = ob.get().data<T>();
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t c = 0; c < g.c; ++c) {
        const int64_t base = (o * g.c + c) * g.inner;
        for (int64_t i = 0; i < g.inner; ++i) po[base + i] = px[base + i] * s[c] + b[c];
      }
    ob.finish();
  });
}

void affine_channel_grad(const Tensor& x, const Tensor& scale, const Tensor& out_grad, Tensor* x_grad,
                         Tensor* scale_grad, Tensor* bias_grad, const AffineChannelAttrs& attrs) {
  const char* op = "affine_channel_grad";
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  const Geom g = geom(op, x, attrs);
  require_per_channel(op, "Scale", scale, x, g.c);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* dy = out_grad.data<T>();
    const T* s = scale.data<T>();
    // The channel sums first: X@GRAD may take Out@GRAD's or X's buffer.
    double* ds = zeroed(Slot::kAcc, g.c);
    double* db = zeroed(Slot::kTmp0, g.c);
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t c = 0; c < g.c; ++c) {
        const int64_t base = (o * g.c + c) * g.inner;
        for (int64_t i = 0; i < g.inner; ++i) {
          ds[c] += static_cast<double>(dy[base + i]) * px[base + i];
          db[c] += dy[base + i];
        }
      }
    if (x_grad) {  // same-index reads of Out@GRAD (or X) and writes; Scale through scratch
      OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&scale}));
      ob.get().resize(x.shape(), x.dtype());
      T* dx = ob.get().data<T>();
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t c = 0; c < g.c; ++c) {
          const int64_t base = (o * g.c + c) * g.inner;
          for (int64_t i = 0; i < g.inner; ++i) dx[base + i] = dy[base + i] * s[c];
        }
      ob.finish();
    }
    auto put = [&](Tensor* t, const double* v) {
      if (!t) return;
      t->resize(scale.shape(), x.dtype());
      T* p = t->data<T>();
      for (int64_t c = 0; c < g.c; ++c) p[c] = static_cast<T>(v[c]);
    };
    put(scale_grad, ds);
    put(bias_grad, db);
  });
}

}  // namespace fluidc::kernels
