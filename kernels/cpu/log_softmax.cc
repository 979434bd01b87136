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
  // X@GRAD = Out@GRAD - exp(Out) * sum(Out@GRAD).
  axis_sum_grad(
      "log_softmax_grad", out, out_grad, x_grad, attrs.axis, [](auto, auto d) { return d; },
      [](auto o, auto d, auto s) { return d - pw::exp_t(o) * s; });
}

}  // namespace fluidc::kernels
