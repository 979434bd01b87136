// kernels/cpu/lerp.cc - lerp and its gradient over the broadcast of X, Y and Weight.
#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/elementwise.h"
#include "kernels/shapes/lerp.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The index space of Out walked by X (0), Y (1), Weight (2) and Out (3).
StridedSpace<4> lerp_space(const char* op, const Tensor& x, const Tensor& y, const Tensor& w, Shape& out) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_init(op, "Weight", w);
  require_same_dtype(op, "X", x, "Y", y);
  require_same_dtype(op, "X", x, "Weight", w);
  Shape xa, ya, wa;
  require_rule(op, shapes::lerp_shape(x.shape(), y.shape(), w.shape(), xa, ya, wa, out));
  StridedSpace<4> s;
  s.rank = out.rank;
  for (int i = 0; i < out.rank; ++i) s.dims[i] = out.d[i];
  broadcast_strides(xa, s.strides[0]);
  broadcast_strides(ya, s.strides[1]);
  broadcast_strides(wa, s.strides[2]);
  broadcast_strides(out, s.strides[3]);
  simplify(s);
  return s;
}

}  // namespace

void lerp(const Tensor& x, const Tensor& y, const Tensor& weight, Tensor& out) {
  const char* op = "lerp";
  Shape os;
  const StridedSpace<4> s = lerp_space(op, x, y, weight, os);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &y, &weight}));
  Tensor& o = buf.get();
  o.resize(os, x.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *py = y.data<T>(), *pw = weight.data<T>();
    T* po = o.data<T>();
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const T xv = px[off[0] + i * st[0]], yv = py[off[1] + i * st[1]], wv = pw[off[2] + i * st[2]];
        po[off[3] + i * st[3]] = xv + wv * (yv - xv);
      }
    });
  });
  buf.finish();
}

void lerp_grad(const Tensor& x, const Tensor& y, const Tensor& weight, const Tensor& out, const Tensor& out_grad,
               Tensor* x_grad, Tensor* y_grad) {
  const char* op = "lerp_grad";
  (void)out;
  Shape os;
  const StridedSpace<4> s = lerp_space(op, x, y, weight, os);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD is {} but X, Y and Weight broadcast to {}", op, out_grad.shape().str(),
                         os.str()));
  // Sums in double scratch (X's, Y's sizes), then written out: either
  // gradient may be one of the inputs.
  double* dx = zeroed(Slot::kAcc, x.numel());
  double* dy = zeroed(Slot::kTmp0, y.numel());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *pw = weight.data<T>(), *pg = out_grad.data<T>();
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i) {
        const double g = pg[off[3] + i * st[3]], wv = pw[off[2] + i * st[2]];
        dx[off[0] + i * st[0]] += g * (1.0 - wv);
        dy[off[1] + i * st[1]] += g * wv;
      }
    });
    auto write = [&](Tensor* t, const Shape& shape, const double* acc) {
      if (!t) return;
      t->resize(shape, x.dtype());
      T* p = t->data<T>();
      for (int64_t i = 0, n = shape.numel(); i < n; ++i) p[i] = static_cast<T>(acc[i]);
    };
    const Shape xs = x.shape(), ys = y.shape();
    write(x_grad, xs, dx);
    write(y_grad, ys, dy);
  });
}

}  // namespace fluidc::kernels
