// kernels/cpu/activation_more.cc - the unary activations of kernels/activation_more.h and their gradients.
#include <cmath>

#include "kernels/activation.h"
#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/isa_clones.h"
#include "kernels/cpu/unary_impl.h"
#include "kernels/pointwise.h"

// No a * b + c contracted into an FMA here: the ISA copies of the loops below
// must give the bits of the baseline build (which has no FMA).
#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels {

using namespace detail;

// Forward kernels apply the op's scalar function (kernels/pointwise.h), the
// one fused loops call, so fused and unfused results are identical. The
// gradients compute both sides of each choice and combine conditions with
// `&` rather than `&&`, which keeps their loops free of branches and so
// vectorisable.

void relu6(const Tensor& x, Tensor& out, const Relu6Attrs& a) {
  unary("relu6", x, out, kFloat, [&](auto v) { return pw::Relu6::f(v, a); });
}
void relu6_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const Relu6Attrs& a) {
  unary_grad("relu6_grad", "Out", out, out_grad, x_grad, kFloat, [&](auto o, auto d) {
    using T = decltype(o);
    return ((o > T(0)) & (o < static_cast<T>(a.threshold))) ? d : T(0);
  });
}

void leaky_relu(const Tensor& x, Tensor& out, const LeakyReluAttrs& a) {
  unary("leaky_relu", x, out, kFloat, [&](auto v) { return pw::LeakyRelu::f(v, a); });
}
void leaky_relu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const LeakyReluAttrs& a) {
  unary_grad("leaky_relu_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    return xv > T(0) ? d : d * static_cast<T>(a.alpha);
  });
}

void hard_swish(const Tensor& x, Tensor& out, const HardSwishAttrs& a) {
  unary("hard_swish", x, out, kFloat, [&](auto v) { return pw::HardSwish::f(v, a); });
}
void hard_swish_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const HardSwishAttrs& a) {
  unary_grad("hard_swish_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T t = static_cast<T>(a.threshold), s = static_cast<T>(a.scale), off = static_cast<T>(a.offset);
    const T u = xv + off;
    // Below -offset the output is 0; above threshold - offset it is X * threshold / scale.
    const T slope = u < t ? (T(2) * xv + off) / s : t / s;
    return u > T(0) ? d * slope : T(0);
  });
}

void hard_sigmoid(const Tensor& x, Tensor& out, const HardSigmoidAttrs& a) {
  unary("hard_sigmoid", x, out, kFloat, [&](auto v) { return pw::HardSigmoid::f(v, a); });
}
void hard_sigmoid_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const HardSigmoidAttrs& a) {
  unary_grad("hard_sigmoid_grad", "Out", out, out_grad, x_grad, kFloat, [&](auto o, auto d) {
    using T = decltype(o);
    const T g = d * static_cast<T>(a.slope);
    return ((o > T(0)) & (o < T(1))) ? g : T(0);
  });
}

void swish(const Tensor& x, Tensor& out, const SwishAttrs& a) {
  unary("swish", x, out, kFloat, [&](auto v) { return pw::Swish::f(v, a); });
}
void swish_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SwishAttrs& a) {
  unary_grad("swish_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T b = static_cast<T>(a.beta);
    const T s = pw::sigmoid_t(b * xv);
    return d * (s + b * xv * s * (T(1) - s));
  });
}

void silu(const Tensor& x, Tensor& out) {
  unary("silu", x, out, kFloat, [](auto v) { return pw::Silu::f(v); });
}
void silu_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad_xo("silu_grad", x, out, out_grad, x_grad, kFloat, [](auto xv, auto, auto d) {
    using T = decltype(xv);
    const T s = pw::sigmoid_t(xv);
    return d * s * (T(1) + xv * (T(1) - s));
  });
}

void elu(const Tensor& x, Tensor& out, const EluAttrs& a) {
  unary("elu", x, out, kFloat, [&](auto v) { return pw::Elu::f(v, a); });
}
void elu_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const EluAttrs& a) {
  // alpha * e^X = Out + alpha below 0, which saves the exp.
  unary_grad_xo("elu_grad", x, out, out_grad, x_grad, kFloat, [&](auto xv, auto o, auto d) {
    using T = decltype(xv);
    const T neg = d * (o + static_cast<T>(a.alpha));
    return xv > T(0) ? d : neg;
  });
}

void softplus(const Tensor& x, Tensor& out, const SoftplusAttrs& a) {
  unary("softplus", x, out, kFloat, [&](auto v) { return pw::Softplus::f(v, a); });
}
void softplus_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const SoftplusAttrs& a) {
  unary_grad("softplus_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T xb = static_cast<T>(a.beta) * xv;
    const T soft = d * pw::sigmoid_t(xb);
    return xb > static_cast<T>(a.threshold) ? d : soft;
  });
}

void stanh(const Tensor& x, Tensor& out, const StanhAttrs& a) {
  unary("stanh", x, out, kFloat, [&](auto v) { return pw::Stanh::f(v, a); });
}
void stanh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const StanhAttrs& a) {
  unary_grad("stanh_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T sa = static_cast<T>(a.scale_a);
    const T t = pw::tanh_t(sa * xv);
    return d * (static_cast<T>(a.scale_b) * sa * (T(1) - t * t));
  });
}

void soft_relu(const Tensor& x, Tensor& out, const SoftReluAttrs& a) {
  unary("soft_relu", x, out, kFloat, [&](auto v) { return pw::SoftRelu::f(v, a); });
}
void soft_relu_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SoftReluAttrs& a) {
  unary_grad("soft_relu_grad", "Out", out, out_grad, x_grad, kFloat, [&](auto o, auto d) {
    using T = decltype(o);
    const T t = static_cast<T>(a.threshold);
    const T g = d * (T(1) - pw::exp_t(-o));
    return ((o > -t) & (o < t)) ? g : T(0);
  });
}

void mish(const Tensor& x, Tensor& out, const MishAttrs& a) {
  unary("mish", x, out, kFloat, [&](auto v) { return pw::Mish::f(v, a); });
}
void mish_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const MishAttrs& a) {
  // d/dx x tanh(sp(x)) = tanh(sp) + x (1 - tanh(sp)^2) sp'(x), with sp' the
  // sigmoid below the threshold and 1 above it (where sp is X itself).
  unary_grad("mish_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T t = pw::tanh_t(pw::Mish::sp(xv, a));
    const T sig = pw::sigmoid_t(xv);
    const T dsp = xv > static_cast<T>(a.threshold) ? T(1) : sig;
    return d * (t + xv * (T(1) - t * t) * dsp);
  });
}

void exp(const Tensor& x, Tensor& out) {
  unary("exp", x, out, kFloat, [](auto v) { return pw::Exp::f(v); });
}
void exp_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("exp_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) { return d * o; });
}

void log(const Tensor& x, Tensor& out) {
  unary("log", x, out, kFloat, [](auto v) { return pw::Log::f(v); });
}
void log_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("log_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) { return d / xv; });
}

void rsqrt(const Tensor& x, Tensor& out) {
  unary("rsqrt", x, out, kFloat, [](auto v) { return pw::Rsqrt::f(v); });
}
void rsqrt_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("rsqrt_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return T(-0.5) * d * o * o * o;
  });
}

void reciprocal(const Tensor& x, Tensor& out) {
  unary("reciprocal", x, out, kFloat, [](auto v) { return pw::Reciprocal::f(v); });
}
void reciprocal_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("reciprocal_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) { return -d * o * o; });
}

void abs(const Tensor& x, Tensor& out) {
  unary("abs", x, out, kFloat, [](auto v) { return pw::Abs::f(v); });
}
void abs_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("abs_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) { return d * pw::Sign::f(xv); });
}

void erf(const Tensor& x, Tensor& out) {
  unary("erf", x, out, kFloat, [](auto v) { return pw::Erf::f(v); });
}
void erf_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("erf_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d * static_cast<T>(1.12837916709551257390) * pw::exp_t(-xv * xv);  // 2 / sqrt(pi)
  });
}

void sin(const Tensor& x, Tensor& out) {
  unary("sin", x, out, kFloat, [](auto v) { return pw::Sin::f(v); });
}
void sin_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("sin_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) { return d * std::cos(xv); });
}
void cos(const Tensor& x, Tensor& out) {
  unary("cos", x, out, kFloat, [](auto v) { return pw::Cos::f(v); });
}
void cos_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("cos_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) { return -d * std::sin(xv); });
}

void sign(const Tensor& x, Tensor& out) {
  unary("sign", x, out, kFloat, [](auto v) { return pw::Sign::f(v); });
}

void floor(const Tensor& x, Tensor& out) {
  unary("floor", x, out, kFloat, [](auto v) { return pw::Floor::f(v); });
}
void floor_grad(const Tensor& out_grad, Tensor* x_grad) { zero_grad("floor_grad", out_grad, x_grad); }
void ceil(const Tensor& x, Tensor& out) {
  unary("ceil", x, out, kFloat, [](auto v) { return pw::Ceil::f(v); });
}
void ceil_grad(const Tensor& out_grad, Tensor* x_grad) { zero_grad("ceil_grad", out_grad, x_grad); }

namespace {

// gelu's two forms and their gradients. The fp32 loops (erf, exp and tanh
// are polynomials: 27% and 11% of the BERT-tiny step in baseline SSE) run
// in AVX2/AVX-512 copies; contraction into FMAs is off in pointwise.h and in
// this file, so every copy computes the baseline's (and a fused loop's) bits.
// The lambdas are always_inline: called per element, the loops do not vectorise.
constexpr auto kGeluTanh = [](auto v) __attribute__((always_inline)) { return pw::Gelu::tanh_form(v); };
constexpr auto kGeluErf = [](auto v) __attribute__((always_inline)) { return pw::Gelu::erf_form(v); };
constexpr auto kGeluTanhGrad = [](auto xv, auto d) __attribute__((always_inline)) {
  using T = decltype(xv);
  const T k = static_cast<T>(pw::Gelu::kTanhScale), c = T(0.044715);
  const T t = pw::tanh_t(k * (xv + c * xv * xv * xv));
  return d * (T(0.5) * (T(1) + t) + T(0.5) * xv * (T(1) - t * t) * k * (T(1) + T(3) * c * xv * xv));
};
constexpr auto kGeluErfGrad = [](auto xv, auto d) __attribute__((always_inline)) {
  using T = decltype(xv);
  const T cdf = T(0.5) * (T(1) + pw::erf_t(xv * static_cast<T>(pw::Gelu::kInvSqrt2)));
  const T pdf = static_cast<T>(0.39894228040143267794) * pw::exp_t(T(-0.5) * xv * xv);  // 1 / sqrt(2 pi)
  return d * (cdf + xv * pdf);
};
[[gnu::always_inline]] inline void gelu_tanh_f32_body(int64_t n, float* out, const float* x) {
  same_index_map(n, out, kGeluTanh, x);
}
[[gnu::always_inline]] inline void gelu_erf_f32_body(int64_t n, float* out, const float* x) {
  same_index_map(n, out, kGeluErf, x);
}
[[gnu::always_inline]] inline void gelu_tanh_grad_f32_body(int64_t n, float* out, const float* x, const float* d) {
  same_index_map(n, out, kGeluTanhGrad, x, d);
}
[[gnu::always_inline]] inline void gelu_erf_grad_f32_body(int64_t n, float* out, const float* x, const float* d) {
  same_index_map(n, out, kGeluErfGrad, x, d);
}
FLUIDC_ISA_CLONES(void, gelu_tanh_f32, (int64_t n, float* out, const float* x), (n, out, x))
FLUIDC_ISA_CLONES(void, gelu_erf_f32, (int64_t n, float* out, const float* x), (n, out, x))
FLUIDC_ISA_CLONES(void, gelu_tanh_grad_f32, (int64_t n, float* out, const float* x, const float* d), (n, out, x, d))
FLUIDC_ISA_CLONES(void, gelu_erf_grad_f32, (int64_t n, float* out, const float* x, const float* d), (n, out, x, d))

}  // namespace

void gelu(const Tensor& x, Tensor& out, const GeluAttrs& a) {
  if (a.approximate) return unary("gelu", x, out, kFloat, kGeluTanh, gelu_tanh_f32);
  unary("gelu", x, out, kFloat, kGeluErf, gelu_erf_f32);
}
void gelu_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const GeluAttrs& a) {
  if (a.approximate) return unary_grad("gelu_grad", "X", x, out_grad, x_grad, kFloat, kGeluTanhGrad, gelu_tanh_grad_f32);
  unary_grad("gelu_grad", "X", x, out_grad, x_grad, kFloat, kGeluErfGrad, gelu_erf_grad_f32);
}

namespace {

// A run-time FactorTensor wins over the attribute.
PowAttrs pow_attrs(const char* op, const Tensor* factor_tensor, const PowAttrs& a) {
  PowAttrs r = a;
  if (factor_tensor) r.factor = static_cast<float>(scalar_of(op, "FactorTensor", *factor_tensor));
  return r;
}

// Run-time Min/Max win over the attributes; like Paddle, min > max is refused.
ClipAttrs clip_attrs(const char* op, const Tensor* min, const Tensor* max, const ClipAttrs& a) {
  ClipAttrs r = a;
  if (min) r.min = static_cast<float>(scalar_of(op, "Min", *min));
  if (max) r.max = static_cast<float>(scalar_of(op, "Max", *max));
  if (r.min > r.max) rt::fail(fmt::format("{}: min ({}) is greater than max ({})", op, r.min, r.max));
  return r;
}

}  // namespace

void pow(const Tensor& x, const Tensor* factor_tensor, Tensor& out, const PowAttrs& attrs) {
  const PowAttrs a = pow_attrs("pow", factor_tensor, attrs);
  unary("pow", x, out, kFloat, [&](auto v) { return pw::Pow::f(v, a); });
}
void pow_grad(const Tensor& x, const Tensor* factor_tensor, const Tensor& out_grad, Tensor* x_grad,
              const PowAttrs& attrs) {
  const PowAttrs a = pow_attrs("pow_grad", factor_tensor, attrs);
  unary_grad("pow_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    const T f = static_cast<T>(a.factor);
    return d * f * std::pow(xv, f - T(1));
  });
}

void clip(const Tensor& x, const Tensor* min, const Tensor* max, Tensor& out, const ClipAttrs& attrs) {
  const ClipAttrs a = clip_attrs("clip", min, max, attrs);
  unary("clip", x, out, kFloat, [&](auto v) { return pw::Clip::f(v, a); });
}
void clip_grad(const Tensor& x, const Tensor* min, const Tensor* max, const Tensor& out_grad, Tensor* x_grad,
               const ClipAttrs& attrs) {
  const ClipAttrs a = clip_attrs("clip_grad", min, max, attrs);
  unary_grad("clip_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    return ((xv > static_cast<T>(a.min)) & (xv < static_cast<T>(a.max))) ? d : T(0);
  });
}

}  // namespace fluidc::kernels
