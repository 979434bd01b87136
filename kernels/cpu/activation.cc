// kernels/cpu/activation.cc - relu/sigmoid/tanh/square/scale/softmax and gradients as flat loops.
#include "kernels/activation.h"

#include <cmath>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rows_f32.h"
#include "kernels/pointwise.h"
#include "kernels/cpu/softmax_impl.h"
#include "kernels/cpu/unary_impl.h"
#include "kernels/shapes/activation.h"

namespace fluidc::kernels {

using namespace detail;

void relu(const Tensor& x, Tensor& out) {
  unary("relu", x, out, kFloat, [](auto v) { return pw::Relu::f(v); });
}
void relu_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("relu_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return d * static_cast<T>(o > T(0));
  });
}

void sqrt(const Tensor& x, Tensor& out) {
  unary("sqrt", x, out, kFloat, [](auto v) { return pw::Sqrt::f(v); });
}
void sqrt_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("sqrt_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return d * T(0.5) / o;
  });
}

void sigmoid(const Tensor& x, Tensor& out) {
  unary("sigmoid", x, out, kFloat, [](auto v) { return pw::Sigmoid::f(v); });
}
void sigmoid_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("sigmoid_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return d * o * (T(1) - o);
  });
}

void tanh(const Tensor& x, Tensor& out) {
  unary("tanh", x, out, kFloat, [](auto v) { return pw::Tanh::f(v); });
}
void tanh_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("tanh_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return d * (T(1) - o * o);
  });
}

void square(const Tensor& x, Tensor& out) {
  unary("square", x, out, kNumeric, [](auto v) { return pw::Square::f(v); });
}
void square_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("square_grad", "X", x, out_grad, x_grad, kNumeric, [](auto xv, auto d) {
    using T = decltype(xv);
    return static_cast<T>(d * T(2) * xv);
  });
}

void scale(const Tensor& x, const Tensor* scale_tensor, Tensor& out, const ScaleAttrs& attrs) {
  ScaleAttrs a = attrs;
  if (scale_tensor) a.scale = static_cast<float>(scalar_of("scale", "ScaleTensor", *scale_tensor));
  unary("scale", x, out, kNumeric, [&](auto v) { return pw::Scale::f(v, a); });
}

namespace {

/// softmax_rows for an axis that is not the last (inner > 1): one running
/// max and sum per inner position, so every pass over a group reads memory
/// contiguously instead of striding by `inner`. Same clip at -64, same exp.
/// The group is read fully before it is written, so y may alias x.
template <class T>
void softmax_columns(const T* x, T* y, const AxisSplit& sp) {
  const T kClip = T(-64);
  T* mx = scratch_array<T>(Slot::kTmp0, 2 * sp.inner);
  T* inv = mx + sp.inner;
  Acc<T>* sum = scratch_array<Acc<T>>(Slot::kAcc, sp.inner);
  for (int64_t o = 0; o < sp.outer; ++o) {
    const int64_t base = o * sp.n * sp.inner;
    for (int64_t in = 0; in < sp.inner; ++in) mx[in] = x[base + in];
    for (int64_t j = 1; j < sp.n; ++j)
      for (int64_t in = 0; in < sp.inner; ++in) {
        const T v = x[base + j * sp.inner + in];
        mx[in] = v > mx[in] ? v : mx[in];
      }
    for (int64_t in = 0; in < sp.inner; ++in) sum[in] = 0;
    for (int64_t j = 0; j < sp.n; ++j)
      for (int64_t in = 0; in < sp.inner; ++in) {
        const int64_t k = base + j * sp.inner + in;
        T shifted = x[k] - mx[in];
        shifted = shifted < kClip ? kClip : shifted;
        const T e = std::exp(shifted);
        y[k] = e;
        sum[in] += e;
      }
    for (int64_t in = 0; in < sp.inner; ++in) inv[in] = T(1) / static_cast<T>(sum[in]);
    for (int64_t j = 0; j < sp.n; ++j)
      for (int64_t in = 0; in < sp.inner; ++in) y[base + j * sp.inner + in] *= inv[in];
  }
}

}  // namespace

void softmax(const Tensor& x, Tensor& out, const SoftmaxAttrs& attrs) {
  require_init("softmax", "X", x);
  Shape os;
  if (std::string e = shapes::softmax_shape(x.shape(), attrs, os); !e.empty()) rt::fail("softmax: " + e);
  const AxisSplit sp = split_at_axis("softmax", x.shape(), attrs.axis);
  out.resize(os, x.dtype());
  visit_float("softmax", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (sp.inner == 1)
      softmax_rows<T>(x.data<T>(), out.data<T>(), sp);
    else
      softmax_columns<T>(x.data<T>(), out.data<T>(), sp);
  });
}

void softmax_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SoftmaxAttrs& attrs) {
  // X@GRAD = (Out@GRAD - sum(Out@GRAD * Out)) * Out. Along the last axis
  // (attention's rows) in fp32: the vectorised rows of rows_f32.h.
  if (x_grad && out.initialized() && out_grad.initialized() && out.dtype() == DType::kFP32 &&
      out_grad.dtype() == DType::kFP32 && out.shape() == out_grad.shape() && out.rank() > 0) {
    const AxisSplit sp = split_at_axis("softmax_grad", out.shape(), attrs.axis);
    if (sp.inner == 1) {
      x_grad->resize(out.shape(), out.dtype());
      return softmax_grad_rows_f32(sp.outer, sp.n, out.data<float>(), out_grad.data<float>(), x_grad->data<float>());
    }
  }
  axis_sum_grad(
      "softmax_grad", out, out_grad, x_grad, attrs.axis, [](auto o, auto d) { return o * d; },
      [](auto o, auto d, auto s) { return (d - s) * o; });
}

}  // namespace fluidc::kernels
