// kernels/cpu/activation_unary.cc - the activations of kernels/activation_unary.h and their gradients.
#include "kernels/activation.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/unary_impl.h"
#include "kernels/pointwise.h"

// As in activation_more.cc: no a * b + c contracted into an FMA, so these
// loops give the bits of the scalar functions the fused loops call.
#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels {

using namespace detail;

// Forward kernels apply the op's scalar function (kernels/pointwise_unary.h).
// Gradients select between both sides of each condition, which keeps the
// loops branch-free. Where Paddle multiplies Out@GRAD by a 0/1 mask, a
// select gives the same value except that it does not turn an inf or NaN
// Out@GRAD into NaN where the mask is 0.

void brelu(const Tensor& x, Tensor& out, const BreluAttrs& a) {
  unary("brelu", x, out, kFloat, [&](auto v) { return pw::Brelu::f(v, a); });
}
void brelu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const BreluAttrs& a) {
  unary_grad("brelu_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    return ((xv > static_cast<T>(a.t_min)) & (xv < static_cast<T>(a.t_max))) ? d : T(0);
  });
}

void logsigmoid(const Tensor& x, Tensor& out) {
  unary("logsigmoid", x, out, kFloat, [](auto v) { return pw::LogSigmoid::f(v); });
}
void logsigmoid_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("logsigmoid_grad", "X", x, out_grad, x_grad, kFloat,
             [](auto xv, auto d) { return d * pw::sigmoid_t(-xv); });
}

void selu(const Tensor& x, Tensor& out, const SeluAttrs& a) {
  unary("selu", x, out, kFloat, [&](auto v) { return pw::Selu::f(v, a); });
}
void selu_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SeluAttrs& a) {
  // Below 0, d/dx scale alpha (e^X - 1) = scale alpha e^X = Out + scale alpha.
  unary_grad("selu_grad", "Out", out, out_grad, x_grad, kFloat, [&](auto o, auto d) {
    using T = decltype(o);
    const T s = static_cast<T>(a.scale);
    const T neg = o + s * static_cast<T>(a.alpha);
    return d * (o > T(0) ? s : neg);
  });
}

void celu(const Tensor& x, Tensor& out, const CeluAttrs& a) {
  unary("celu", x, out, kFloat, [&](auto v) { return pw::Celu::f(v, a); });
}
void celu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const CeluAttrs& a) {
  unary_grad("celu_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T neg = d * pw::exp_t(xv / static_cast<T>(a.alpha));
    return xv > T(0) ? d : neg;
  });
}

void softsign(const Tensor& x, Tensor& out) {
  unary("softsign", x, out, kFloat, [](auto v) { return pw::Softsign::f(v); });
}
void softsign_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("softsign_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    const T s = T(1) + std::fabs(xv);
    return d / (s * s);
  });
}

void softshrink(const Tensor& x, Tensor& out, const SoftshrinkAttrs& a) {
  unary("softshrink", x, out, kFloat, [&](auto v) { return pw::Softshrink::f(v, a); });
}
void softshrink_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SoftshrinkAttrs& a) {
  // The forward's two terms each pass Out@GRAD on (both at once for a negative lambda).
  unary_grad("softshrink_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T l = static_cast<T>(a.lambda);
    return (xv > l ? d : T(0)) + (xv < -l ? d : T(0));
  });
}

void hard_shrink(const Tensor& x, Tensor& out, const HardShrinkAttrs& a) {
  unary("hard_shrink", x, out, kFloat, [&](auto v) { return pw::HardShrink::f(v, a); });
}
void hard_shrink_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const HardShrinkAttrs& a) {
  unary_grad("hard_shrink_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T t = static_cast<T>(a.threshold);
    return ((xv > t) | (xv < -t)) ? d : T(0);
  });
}

void tanh_shrink(const Tensor& x, Tensor& out) {
  unary("tanh_shrink", x, out, kFloat, [](auto v) { return pw::TanhShrink::f(v); });
}
void tanh_shrink_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("tanh_shrink_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    const auto t = pw::tanh_t(xv);
    return d * t * t;
  });
}

void thresholded_relu(const Tensor& x, Tensor& out, const ThresholdedReluAttrs& a) {
  unary("thresholded_relu", x, out, kFloat, [&](auto v) { return pw::ThresholdedRelu::f(v, a); });
}
void thresholded_relu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ThresholdedReluAttrs& a) {
  unary_grad("thresholded_relu_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    return xv > static_cast<T>(a.threshold) ? d : T(0);
  });
}

}  // namespace fluidc::kernels
