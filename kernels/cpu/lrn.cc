// kernels/cpu/lrn.cc - lrn (local response normalisation across channels) and its gradient.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy.h"
#include "kernels/vision_legacy.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// X seen as [outer, C, inner] around the channel axis; channel c's window
// is [c - pre, c - pre + n) clipped to [0, C).
struct Geom {
  int64_t outer = 1, c = 1, inner = 1, pre = 0, n = 1;
  int64_t lo(int64_t ch) const { return std::max<int64_t>(0, ch - pre); }
  int64_t hi(int64_t ch) const { return std::min<int64_t>(c, ch - pre + n); }
};

Geom geom(const char* op, const Tensor& x, const LrnAttrs& a) {
  int axis = 1;
  require_rule(op, shapes::lrn_axis(x.shape(), a, axis));
  const Shape& s = x.shape();
  return {prod(s, 0, axis), s[axis], prod(s, axis + 1, s.rank), (a.n - 1) / 2, a.n};
}

}  // namespace

void lrn(const Tensor& x, Tensor& out, Tensor& mid_out, const LrnAttrs& attrs) {
  const char* op = "lrn";
  require_init(op, "X", x);
  const Geom g = geom(op, x, attrs);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Every output element reads a window of X: both outputs go through
    // scratch when bound to X.
    OutBuf mb(&mid_out, Slot::kOut1, &mid_out == &x);
    OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x, &mid_out}));
    mb.get().resize(x.shape(), x.dtype());
    ob.get().resize(x.shape(), x.dtype());
    const T* px = x.data<T>();
    T* pm = mb.get().data<T>();
    T* po = ob.get().data<T>();
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t i = 0; i < g.inner; ++i) {
          double s = 0;
          for (int64_t w = g.lo(c); w < g.hi(c); ++w) {
            const double v = px[(o * g.c + w) * g.inner + i];
            s += v * v;
          }
          const int64_t k = (o * g.c + c) * g.inner + i;
          const T mid = static_cast<T>(attrs.k + attrs.alpha * s);
          pm[k] = mid;
          po[k] = static_cast<T>(px[k] * std::pow(static_cast<double>(mid), -static_cast<double>(attrs.beta)));
        }
    mb.finish();
    ob.finish();
  });
}

void lrn_grad(const Tensor& x, const Tensor& out, const Tensor& mid_out, const Tensor& out_grad, Tensor* x_grad,
              const LrnAttrs& attrs) {
  const char* op = "lrn_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out", out);
  require_init(op, "MidOut", mid_out);
  require_init(op, "Out@GRAD", out_grad);
  for (auto [role, t] : {std::pair{"Out", &out}, {"MidOut", &mid_out}, {"Out@GRAD", &out_grad}}) {
    require_same_shape(op, "X", x, role, *t);
    require_same_dtype(op, "X", x, role, *t);
  }
  const Geom g = geom(op, x, attrs);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out, &mid_out, &out_grad}));
    ob.get().resize(x.shape(), x.dtype());
    const T* px = x.data<T>();
    const T* py = out.data<T>();
    const T* pm = mid_out.data<T>();
    const T* dy = out_grad.data<T>();
    T* dx = ob.get().data<T>();
    const double beta = attrs.beta, two_ab = 2.0 * attrs.alpha * attrs.beta;
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t i = 0; i < g.inner; ++i) {
          // Channel c is in the window of channel c' when c' - pre <= c < c' - pre + n.
          double s = 0;
          for (int64_t w = std::max<int64_t>(0, c + g.pre - g.n + 1); w <= std::min(g.c - 1, c + g.pre); ++w) {
            const int64_t kw = (o * g.c + w) * g.inner + i;
            s += static_cast<double>(dy[kw]) * py[kw] / pm[kw];
          }
          const int64_t k = (o * g.c + c) * g.inner + i;
          dx[k] = static_cast<T>(dy[k] * std::pow(static_cast<double>(pm[k]), -beta) - two_ab * px[k] * s);
        }
    ob.finish();
  });
}

}  // namespace fluidc::kernels
