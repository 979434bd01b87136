// kernels/cpu/atan2.cc - the same-shape binary ops: atan2 and its gradient (paddle.atan2, integers to fp64), and Fluid 1.x's minus.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/elementwise.h"
#include "kernels/shapes/atan2.h"

namespace fluidc::kernels {

using namespace detail;

void atan2(const Tensor& x1, const Tensor& x2, Tensor& out) {
  const char* op = "atan2";
  require_init(op, "X1", x1);
  require_init(op, "X2", x2);
  require_same_dtype(op, "X1", x1, "X2", x2);
  require_rule(op, shapes::atan2_check(x1.shape(), x2.shape()));
  const bool integer = x1.dtype() == DType::kInt32 || x1.dtype() == DType::kInt64;
  const DType odt = integer ? DType::kFP64 : x1.dtype();
  // Each element reads only its own index, so Out may be X1 or X2 unless the
  // dtype changes (an integer input written over with fp64).
  OutBuf buf(&out, Slot::kOut0, integer && aliases(&out, {&x1, &x2}));
  Tensor& o = buf.get();
  const int64_t n = x1.numel();
  visit_numeric(op, "X1", x1.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = x1.data<T>();
    const T* b = x2.data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      o.resize(x1.shape(), odt);
      T* po = o.data<T>();
      for (int64_t i = 0; i < n; ++i) po[i] = std::atan2(a[i], b[i]);
    } else {
      // Paddle's CPU functor takes the float atan2 of integers and widens the result: a float64
      // Out with float32 precision (atan2(0, -4) is 3.14159274). Matched rather than improved.
      o.resize(x1.shape(), odt);
      double* po = o.data<double>();
      for (int64_t i = 0; i < n; ++i)
        po[i] = static_cast<double>(std::atan2(static_cast<float>(a[i]), static_cast<float>(b[i])));
    }
  });
  buf.finish();
}

void atan2_grad(const Tensor& x1, const Tensor& x2, const Tensor& out_grad, Tensor* x1_grad, Tensor* x2_grad) {
  const char* op = "atan2_grad";
  require_init(op, "X1", x1);
  require_init(op, "X2", x2);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X1", x1, "X2", x2);
  require_same_dtype(op, "X1", x1, "Out@GRAD", out_grad);
  require_rule(op, shapes::atan2_check(x1.shape(), x2.shape()));
  require_same_shape(op, "X1", x1, "Out@GRAD", out_grad);
  const int64_t n = x1.numel();
  // Element i reads only index i of every input, so a gradient may alias any of them; both are computed
  // from the inputs before either is stored.
  visit_float(op, "X1", x1.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (x1_grad) x1_grad->resize(x1.shape(), x1.dtype());
    if (x2_grad) x2_grad->resize(x1.shape(), x1.dtype());
    const T* a = x1.data<T>();
    const T* b = x2.data<T>();
    const T* d = out_grad.data<T>();
    T* g1 = x1_grad ? x1_grad->data<T>() : nullptr;
    T* g2 = x2_grad ? x2_grad->data<T>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const T r = a[i] * a[i] + b[i] * b[i];
      const T v1 = d[i] * b[i] / r, v2 = -d[i] * a[i] / r;
      if (g1) g1[i] = v1;
      if (g2) g2[i] = v2;
    }
  });
}

void minus(const Tensor& x, const Tensor& y, Tensor& out) {
  const char* op = "minus";
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  require_same_shape(op, "X", x, "Y", y);
  // Paddle 2.6.2 registers minus for float32 alone.
  if (x.dtype() != DType::kFP32) fail_dtype(op, "X", x.dtype());
  // Element i reads only index i of X and Y: Out may be either.
  const float* a = x.data<float>();
  const float* b = y.data<float>();
  out.resize(x.shape(), x.dtype());
  float* o = out.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] - b[i];
}

}  // namespace fluidc::kernels
