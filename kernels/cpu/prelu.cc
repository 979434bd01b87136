// kernels/cpu/prelu.cc - prelu and its gradient: each X element against the slope its mode assigns it.
#include "kernels/prelu.h"

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/prelu.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

shapes::PreluMap checked_map(const char* op, const Tensor& x, const Tensor& alpha, const PreluAttrs& a) {
  require_init(op, "X", x);
  require_init(op, "Alpha", alpha);
  require_same_dtype(op, "X", x, "Alpha", alpha);
  shapes::PreluMap m;
  require_rule(op, shapes::prelu_check(x.shape(), alpha.shape(), a, m));
  return m;
}

}  // namespace

void prelu(const Tensor& x, const Tensor& alpha, Tensor& out, const PreluAttrs& attrs) {
  const shapes::PreluMap m = checked_map("prelu", x, alpha, attrs);
  // Element i is read before Out[i] is written: safe with Out == X, not with Out == Alpha.
  OutBuf ob(&out, Slot::kOut0, &out == &alpha);
  visit_float("prelu", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(x.shape(), x.dtype());  // same bytes when Out == X: the data stays
    const T* xp = x.data<T>();
    const T* ap = alpha.data<T>();
    T* y = ob.get().data<T>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) {
      const T v = xp[i];
      y[i] = v > T(0) ? v : ap[i / m.inner % m.count] * v;
    }
  });
  ob.finish();
}

void prelu_grad(const Tensor& x, const Tensor& alpha, const Tensor& out_grad, Tensor* x_grad, Tensor* alpha_grad,
                const PreluAttrs& attrs) {
  constexpr const char* op = "prelu_grad";
  const shapes::PreluMap m = checked_map(op, x, alpha, attrs);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    const T* ap = alpha.data<T>();
    const T* dy = out_grad.data<T>();
    const int64_t n = x.numel();
    // Both results go to buffers that alias no input before either is
    // stored: X@GRAD may share Out@GRAD's or X's bytes (same-index loop).
    OutBuf oa(alpha_grad, Slot::kOut1, aliases(alpha_grad, {&x, &alpha, &out_grad}));
    if (alpha_grad) {
      double* acc = zeroed(Slot::kAcc, m.count);
      for (int64_t i = 0; i < n; ++i)
        if (!(xp[i] > T(0))) acc[i / m.inner % m.count] += static_cast<double>(xp[i]) * dy[i];
      oa.get().resize(alpha.shape(), alpha.dtype());
      T* da = oa.get().data<T>();
      for (int64_t j = 0; j < m.count; ++j) da[j] = static_cast<T>(acc[j]);
    }
    if (x_grad) {
      OutBuf ob(x_grad, Slot::kOut0, x_grad == &alpha || x_grad == alpha_grad);
      ob.get().resize(x.shape(), x.dtype());  // same bytes when in place: the data stays
      T* dx = ob.get().data<T>();
      for (int64_t i = 0; i < n; ++i) dx[i] = xp[i] > T(0) ? dy[i] : ap[i / m.inner % m.count] * dy[i];
      ob.finish();
    }
    oa.finish();
  });
}

}  // namespace fluidc::kernels
