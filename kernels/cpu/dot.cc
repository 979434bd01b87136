// kernels/cpu/dot.cc - dot and dot_grad: one inner product per row of 1-D or 2-D operands.
#include "kernels/cpu/kernel_util.h"
#include "kernels/matmul.h"
#include "kernels/shapes/matmul.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

shapes::MatmulShape check_dot(const char* op, const Tensor& x, const Tensor& y) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  shapes::MatmulShape s;
  require_rule(op, shapes::dot_shape(x.shape(), y.shape(), DotAttrs{}, s));
  return s;
}

}  // namespace

void dot(const Tensor& x, const Tensor& y, Tensor& out) {
  const char* op = "dot";
  const shapes::MatmulShape s = check_dot(op, x, y);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &y}));
  Tensor& o = buf.get();
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(s.out, x.dtype());
    const T *px = x.data<T>(), *py = y.data<T>();
    T* po = o.data<T>();
    for (int64_t r = 0; r < s.M; ++r) {
      Acc<T> acc = 0;  // fp32 sums in double, as the reductions do
      for (int64_t k = 0; k < s.K; ++k) acc += static_cast<Acc<T>>(px[r * s.K + k]) * py[r * s.K + k];
      po[r] = static_cast<T>(acc);
    }
  });
  buf.finish();
}

void dot_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad) {
  const char* op = "dot_grad";
  const shapes::MatmulShape s = check_dot(op, x, y);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.numel() != s.M)
    rt::fail(fmt::format("{}: Out@GRAD {} must hold one value per row of X {}", op, out_grad.shape().str(),
                         x.shape().str()));
  // Each gradient reads the other operand: written to scratch when it
  // aliases an input.
  OutBuf bx(x_grad, Slot::kOut0, aliases(x_grad, {&x, &y, &out_grad}));
  OutBuf by(y_grad, Slot::kOut1, aliases(y_grad, {&x, &y, &out_grad}));
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *py = y.data<T>(), *pg = out_grad.data<T>();
    auto fill = [&](OutBuf& b, const T* other) {
      if (!b.wanted()) return;
      Tensor& g = b.get();
      g.resize(x.shape(), x.dtype());
      T* pd = g.data<T>();
      for (int64_t r = 0; r < s.M; ++r)
        for (int64_t k = 0; k < s.K; ++k) pd[r * s.K + k] = pg[r] * other[r * s.K + k];
    };
    fill(bx, py);
    fill(by, px);
  });
  if (bx.wanted()) bx.finish();
  if (by.wanted()) by.finish();
}

}  // namespace fluidc::kernels
