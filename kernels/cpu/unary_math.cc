// kernels/cpu/unary_math.cc - the logarithms, exponentials, trigonometric, rounding and NaN/inf tests of kernels/unary_math.h.
#include <cmath>

#include "kernels/activation.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/unary_impl.h"
#include "kernels/pointwise.h"

// As in activation_more.cc: the forward loops must give the bits of the
// scalar functions that fused loops call.
#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels {

using namespace detail;

namespace {

// Most of these are libm functions without a vector form (log1p, expm1, the
// inverse and hyperbolic trigonometry): their fp32 loops run here, without
// the vectorise hint of same_index_map, which would only warn.
template <class P>
void libm_unary(const char* op, const Tensor& x, Tensor& out) {
  unary(op, x, out, kFloat, [](auto v) { return P::f(v); }, [](int64_t n, float* o, const float* in) {
    for (int64_t i = 0; i < n; ++i) o[i] = P::f(in[i]);
  });
}
/// `g`: a lambda without captures, (X, Out@GRAD) -> X@GRAD.
template <class G>
void libm_grad(const char* op, const Tensor& x, const Tensor& out_grad, Tensor* x_grad, G g) {
  unary_grad(op, "X", x, out_grad, x_grad, kFloat, g, [](int64_t n, float* o, const float* a, const float* d) {
    for (int64_t i = 0; i < n; ++i) o[i] = G{}(a[i], d[i]);
  });
}

}  // namespace

void log1p(const Tensor& x, Tensor& out) {
  libm_unary<pw::Log1p>("log1p", x, out);
}
void log1p_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("log1p_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / (T(1) + xv);
  });
}

void log2(const Tensor& x, Tensor& out) {
  libm_unary<pw::Log2>("log2", x, out);
}
void log2_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("log2_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / (xv * static_cast<T>(0.69314718055994530942));  // ln 2
  });
}

void log10(const Tensor& x, Tensor& out) {
  libm_unary<pw::Log10>("log10", x, out);
}
void log10_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("log10_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / (xv * static_cast<T>(2.30258509299404568402));  // ln 10
  });
}

void expm1(const Tensor& x, Tensor& out) {
  libm_unary<pw::Expm1>("expm1", x, out);
}
void expm1_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("expm1_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return d * (o + T(1));
  });
}

void asin(const Tensor& x, Tensor& out) {
  libm_unary<pw::Asin>("asin", x, out);
}
void asin_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("asin_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / std::sqrt(T(1) - xv * xv);
  });
}

void acos(const Tensor& x, Tensor& out) {
  libm_unary<pw::Acos>("acos", x, out);
}
void acos_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("acos_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return -d / std::sqrt(T(1) - xv * xv);
  });
}

void atan(const Tensor& x, Tensor& out) {
  libm_unary<pw::Atan>("atan", x, out);
}
void atan_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("atan_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / (T(1) + xv * xv);
  });
}

void tan(const Tensor& x, Tensor& out) {
  libm_unary<pw::Tan>("tan", x, out);
}
void tan_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("tan_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    const auto c = std::cos(xv);
    return d / (c * c);
  });
}

void sinh(const Tensor& x, Tensor& out) {
  libm_unary<pw::Sinh>("sinh", x, out);
}
void sinh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  libm_grad("sinh_grad", x, out_grad, x_grad, [](auto xv, auto d) { return d * std::cosh(xv); });
}

void cosh(const Tensor& x, Tensor& out) {
  libm_unary<pw::Cosh>("cosh", x, out);
}
void cosh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  libm_grad("cosh_grad", x, out_grad, x_grad, [](auto xv, auto d) { return d * std::sinh(xv); });
}

void asinh(const Tensor& x, Tensor& out) {
  libm_unary<pw::Asinh>("asinh", x, out);
}
void asinh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("asinh_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / std::sqrt(xv * xv + T(1));
  });
}

void acosh(const Tensor& x, Tensor& out) {
  libm_unary<pw::Acosh>("acosh", x, out);
}
void acosh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("acosh_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / std::sqrt(xv * xv - T(1));
  });
}

void atanh(const Tensor& x, Tensor& out) {
  libm_unary<pw::Atanh>("atanh", x, out);
}
void atanh_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("atanh_grad", "X", x, out_grad, x_grad, kFloat, [](auto xv, auto d) {
    using T = decltype(xv);
    return d / (T(1) - xv * xv);
  });
}

void logit(const Tensor& x, Tensor& out, const LogitAttrs& a) {
  unary("logit", x, out, kFloat, [&](auto v) { return pw::Logit::f(v, a); });
}
void logit_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const LogitAttrs& a) {
  unary_grad("logit_grad", "X", x, out_grad, x_grad, kFloat, [&](auto xv, auto d) {
    using T = decltype(xv);
    // Paddle's bounds: eps and the double 1 - eps, each rounded to T; zero outside them.
    const T lo = static_cast<T>(a.eps), hi = static_cast<T>(1.0 - static_cast<double>(a.eps));
    const T g = d * (T(1) / ((T(1) - xv) * xv));
    return (xv < lo || xv > hi) ? T(0) : g;
  });
}

void erfinv(const Tensor& x, Tensor& out) {
  unary("erfinv", x, out, kFloat, [](auto v) { return pw::Erfinv::f(v); });
}
void erfinv_grad(const Tensor& out, const Tensor& out_grad, Tensor* x_grad) {
  unary_grad("erfinv_grad", "Out", out, out_grad, x_grad, kFloat, [](auto o, auto d) {
    using T = decltype(o);
    return d * static_cast<T>(0.88622692545275801365) * std::exp(o * o);  // sqrt(pi) / 2
  });
}

void round(const Tensor& x, Tensor& out) {
  unary("round", x, out, kFloat, [](auto v) { return pw::Round::f(v); });
}
void trunc(const Tensor& x, Tensor& out) {
  unary("trunc", x, out, kNumeric, [](auto v) { return pw::Trunc::f(v); });
}
void round_grad(const Tensor& out_grad, Tensor* x_grad) { zero_grad("round_grad", out_grad, x_grad); }
void trunc_grad(const Tensor& out_grad, Tensor* x_grad) { zero_grad("trunc_grad", out_grad, x_grad); }

namespace {

/// Out[i] = test(X[i]) as bool; integer X gives `for_int` everywhere.
template <class Test>
void classify(const char* op, const Tensor& x, Tensor& out, bool for_int, Test test) {
  require_init(op, "X", x);
  // Out (bool) cannot share X's bytes: write aside first if it is X.
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  Tensor& o = buf.get();
  o.resize(x.shape(), DType::kBool);
  bool* po = o.data<bool>();
  const int64_t n = x.numel();
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>)
        po[i] = test(px[i]);
      else
        po[i] = for_int;
    }
  });
  buf.finish();
}

/// Out = [any(test(X[i]))] as bool; integer X gives false.
template <class Test>
void any_of_class(const char* op, const Tensor& x, Tensor& out, Test test) {
  require_init(op, "X", x);
  bool any = false;
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* px = x.data<T>();
      const int64_t n = x.numel();
      for (int64_t i = 0; i < n && !any; ++i) any = test(px[i]);
    }
  });
  // Read X fully before out is resized: out may be X itself.
  out.resize(Shape{1}, DType::kBool);
  out.data<bool>()[0] = any;
}

}  // namespace

void isnan(const Tensor& x, Tensor& out) {
  any_of_class("isnan", x, out, [](auto v) { return std::isnan(v); });
}
void isinf(const Tensor& x, Tensor& out) {
  any_of_class("isinf", x, out, [](auto v) { return std::isinf(v); });
}

void isnan_v2(const Tensor& x, Tensor& out) {
  classify("isnan_v2", x, out, false, [](auto v) { return std::isnan(v); });
}
void isinf_v2(const Tensor& x, Tensor& out) {
  classify("isinf_v2", x, out, false, [](auto v) { return std::isinf(v); });
}
void isfinite_v2(const Tensor& x, Tensor& out) {
  classify("isfinite_v2", x, out, true, [](auto v) { return std::isfinite(v); });
}

}  // namespace fluidc::kernels
