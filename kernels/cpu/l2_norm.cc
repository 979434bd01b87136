// kernels/cpu/l2_norm.cc - norm (SSD's L2Norm: X / sqrt(sum X^2 + epsilon) along an axis) and its gradient.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy.h"
#include "kernels/vision_legacy.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// X seen as [pre, n, post] around the axis.
struct Geom {
  int64_t pre = 1, n = 1, post = 1;
  Shape norm;
};

Geom geom(const char* op, const Tensor& x, const NormAttrs& a) {
  Geom g;
  int axis = 0;
  require_rule(op, shapes::norm_shape(x.shape(), a.axis, axis, g.norm));
  g.pre = prod(x.shape(), 0, axis);
  g.n = x.shape()[axis];
  g.post = prod(x.shape(), axis + 1, x.shape().rank);
  return g;
}

}  // namespace

void norm(const Tensor& x, Tensor& out, Tensor* norm, const NormAttrs& attrs) {
  const char* op = "norm";
  require_init(op, "X", x);
  const Geom g = geom(op, x, attrs);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Out may be X (same-index reads and writes after Norm is complete);
    // a Norm bound to X, or an Out bound to Norm, goes through scratch, as
    // does an absent Norm.
    OutBuf nb(norm ? norm : &scratch(Slot::kOut1), Slot::kOut1, norm == &x);
    nb.get().resize(g.norm, x.dtype());
    const T* px = x.data<T>();
    T* pn = nb.get().data<T>();
    for (int64_t p = 0; p < g.pre; ++p)
      for (int64_t q = 0; q < g.post; ++q) {
        double s = 0;
        for (int64_t i = 0; i < g.n; ++i) {
          const double v = px[(p * g.n + i) * g.post + q];
          s += v * v;
        }
        // Summed in double; epsilon is added in T before the root, as Paddle does.
        pn[p * g.post + q] = static_cast<T>(std::sqrt(static_cast<T>(s) + static_cast<T>(attrs.epsilon)));
      }
    OutBuf ob(&out, Slot::kOut0, aliases(&out, {norm}));
    ob.get().resize(x.shape(), x.dtype());
    T* po = ob.get().data<T>();
    for (int64_t p = 0; p < g.pre; ++p)
      for (int64_t i = 0; i < g.n; ++i)
        for (int64_t q = 0; q < g.post; ++q) {
          const int64_t k = (p * g.n + i) * g.post + q;
          po[k] = px[k] / pn[p * g.post + q];
        }
    nb.finish();
    ob.finish();
  });
}

void norm_grad(const Tensor& x, const Tensor& norm, const Tensor& out_grad, Tensor* x_grad, const NormAttrs& attrs) {
  const char* op = "norm_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Norm", norm);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Norm", norm);
  const Geom g = geom(op, x, attrs);
  if (norm.shape().numel() != g.norm.numel())
    rt::fail(fmt::format("{}: Norm {} does not fit X {} (want {})", op, norm.shape().str(), x.shape().str(),
                         g.norm.str()));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Each column's dot product is taken before its X@GRAD is written, and
    // a column reads and writes only its own elements, so X@GRAD may be X
    // or Out@GRAD; Norm goes through scratch.
    OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&norm}));
    ob.get().resize(x.shape(), x.dtype());
    const T* px = x.data<T>();
    const T* dy = out_grad.data<T>();
    const T* pn = norm.data<T>();
    T* dx = ob.get().data<T>();
    for (int64_t p = 0; p < g.pre; ++p)
      for (int64_t q = 0; q < g.post; ++q) {
        double dot = 0;
        for (int64_t i = 0; i < g.n; ++i) {
          const int64_t k = (p * g.n + i) * g.post + q;
          dot += static_cast<double>(px[k]) * dy[k];
        }
        const double nv = pn[p * g.post + q];
        for (int64_t i = 0; i < g.n; ++i) {
          const int64_t k = (p * g.n + i) * g.post + q;
          dx[k] = static_cast<T>((dy[k] - px[k] * dot / (nv * nv)) / nv);
        }
      }
    ob.finish();
  });
}

}  // namespace fluidc::kernels
