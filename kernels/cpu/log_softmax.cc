// kernels/cpu/log_softmax.cc - log_softmax and its gradient along any axis.
#include <cmath>

#include "kernels/activation.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/softmax_impl.h"
#include "kernels/cpu/unary_impl.h"
#include "kernels/pointwise.h"
#include "kernels/shapes/activation.h"

namespace fluidc::kernels {

using namespace detail;

// Both kernels see the tensor as [outer, n, inner] and keep one running
// value per inner position, so every pass over a group walks memory
// contiguously whatever the axis (for the last axis, inner = 1: rows).

void log_softmax(const Tensor& x, Tensor& out, const SoftmaxAttrs& attrs) {
  require_init("log_softmax", "X", x);
  Shape os;
  if (std::string e = shapes::softmax_shape(x.shape(), attrs, os); !e.empty()) rt::fail("log_softmax: " + e);
  const AxisSplit sp = split_at_axis("log_softmax", x.shape(), attrs.axis);
  out.resize(os, x.dtype());
  visit_float("log_softmax", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = out.data<T>();
    T* mx = scratch_array<T>(Slot::kTmp0, 2 * sp.inner);
    T* lse = mx + sp.inner;
    Acc<T>* sum = scratch_array<Acc<T>>(Slot::kAcc, sp.inner);
    for (int64_t o = 0; o < sp.outer; ++o) {
      const int64_t base = o * sp.n * sp.inner;
      for (int64_t in = 0; in < sp.inner; ++in) mx[in] = px[base + in];
      for (int64_t j = 1; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in) {
          const T v = px[base + j * sp.inner + in];
          mx[in] = v > mx[in] ? v : mx[in];
        }
      for (int64_t in = 0; in < sp.inner; ++in) sum[in] = 0;
      for (int64_t j = 0; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in)
          sum[in] += static_cast<Acc<T>>(pw::exp_t(px[base + j * sp.inner + in] - mx[in]));
      for (int64_t in = 0; in < sp.inner; ++in) lse[in] = mx[in] + static_cast<T>(std::log(sum[in]));
      // Every read of the group is done: Out may alias X.
      for (int64_t j = 0; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in) {
          const int64_t k = base + j * sp.inner + in;
          py[k] = px[k] - lse[in];
        }
    }
  });
}

void log_softmax_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SoftmaxAttrs& attrs) {
  if (!x_grad) return;
  const char* op = "log_softmax_grad";
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "Out", out, "Out@GRAD", out_grad);
  require_same_dtype(op, "Out", out, "Out@GRAD", out_grad);
  const AxisSplit sp = split_at_axis(op, out.shape(), attrs.axis);
  x_grad->resize(out.shape(), out.dtype());
  visit_float(op, "Out", out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* po = out.data<T>();
    const T* pd = out_grad.data<T>();
    T* px = x_grad->data<T>();
    Acc<T>* sum = scratch_array<Acc<T>>(Slot::kAcc, sp.inner);
    T* s = scratch_array<T>(Slot::kTmp0, sp.inner);
    for (int64_t o = 0; o < sp.outer; ++o) {
      const int64_t base = o * sp.n * sp.inner;
      for (int64_t in = 0; in < sp.inner; ++in) sum[in] = 0;
      for (int64_t j = 0; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in) sum[in] += static_cast<Acc<T>>(pd[base + j * sp.inner + in]);
      for (int64_t in = 0; in < sp.inner; ++in) s[in] = static_cast<T>(sum[in]);
      // The sums are complete before any element is written: X@GRAD may alias.
      for (int64_t j = 0; j < sp.n; ++j)
        for (int64_t in = 0; in < sp.inner; ++in) {
          const int64_t k = base + j * sp.inner + in;
          px[k] = pd[k] - pw::exp_t(po[k]) * s[in];
        }
    }
  });
}

}  // namespace fluidc::kernels
