// kernels/pointwise_unary.h - the scalar functions of kernels/activation_unary.h and kernels/unary_math.h.
//
// Part of kernels/pointwise.h (which includes it at its end): the kernels
// and the code generator's fused loops call these same functions, so fused
// and unfused results are bit-identical. Selects compute both sides and
// pick one (no early return), which keeps the loops over them vectorisable.
// The forms follow Paddle 2.6's CPU functors where a choice changes results
// (softshrink's two terms add; selu applies scale last).
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/pointwise.h"

// As in pointwise.h: no FMA contraction, so ISA copies and fused loops
// round alike.
#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels::pw {

struct Brelu {
  template <class T> static T f(T v, const BreluAttrs& a) {
    const T lo = static_cast<T>(a.t_min), hi = static_cast<T>(a.t_max);
    const T r = v > lo ? v : lo;
    return r < hi ? r : hi;
  }
};
/// log(sigmoid(v)) = -softplus(-v): no overflow, and small results kept.
struct LogSigmoid {
  template <class T> [[gnu::always_inline]] static T f(T v) { return -softplus_t(-v); }
};
struct Selu {
  template <class T> static T f(T v, const SeluAttrs& a) {
    const T al = static_cast<T>(a.alpha);
    const T neg = al * exp_t(v) - al;
    return static_cast<T>(a.scale) * (v > T(0) ? v : neg);
  }
};
/// max(v, 0) + min(alpha (e^(v / alpha) - 1), 0): for either sign of alpha,
/// v above 0 and alpha (e^(v / alpha) - 1) at or below it.
struct Celu {
  template <class T> static T f(T v, const CeluAttrs& a) {
    const T al = static_cast<T>(a.alpha);
    const T neg = al * (exp_t(v / al) - T(1));
    return (v > T(0) ? v : T(0)) + (neg < T(0) ? neg : T(0));
  }
};
struct Softsign {
  template <class T> static T f(T v) { return v / (T(1) + std::fabs(v)); }
};
/// (v > l) (v - l) + (v < -l) (v + l): Paddle's sum, which for a negative
/// lambda (no Python API allows one) gives both terms between l and -l.
struct Softshrink {
  template <class T> static T f(T v, const SoftshrinkAttrs& a) {
    const T l = static_cast<T>(a.lambda);
    return (v > l ? v - l : T(0)) + (v < -l ? v + l : T(0));
  }
};
struct HardShrink {
  template <class T> static T f(T v, const HardShrinkAttrs& a) {
    const T t = static_cast<T>(a.threshold);
    return ((v > t) | (v < -t)) ? v : T(0);
  }
};
struct TanhShrink { template <class T> static T f(T v) { return v - tanh_t(v); } };
struct ThresholdedRelu {
  template <class T> static T f(T v, const ThresholdedReluAttrs& a) {
    return v > static_cast<T>(a.threshold) ? v : T(0);
  }
};

// The math functions are libm's (accurate to an ulp or so, like Paddle's
// std:: calls); none of these ops is hot enough in real programs to want
// a fast form.
struct Log1p { template <class T> static T f(T v) { return std::log1p(v); } };
struct Log2 { template <class T> static T f(T v) { return std::log2(v); } };
struct Log10 { template <class T> static T f(T v) { return std::log10(v); } };
struct Expm1 { template <class T> static T f(T v) { return std::expm1(v); } };
struct Asin { template <class T> static T f(T v) { return std::asin(v); } };
struct Acos { template <class T> static T f(T v) { return std::acos(v); } };
struct Atan { template <class T> static T f(T v) { return std::atan(v); } };
struct Tan { template <class T> static T f(T v) { return std::tan(v); } };
struct Sinh { template <class T> static T f(T v) { return std::sinh(v); } };
struct Cosh { template <class T> static T f(T v) { return std::cosh(v); } };
struct Asinh { template <class T> static T f(T v) { return std::asinh(v); } };
struct Acosh { template <class T> static T f(T v) { return std::acosh(v); } };
struct Atanh { template <class T> static T f(T v) { return std::atanh(v); } };
/// ln(t / (1 - t)), t = v clipped to [eps, 1 - eps]; NaN passes through the
/// clip. Paddle forms the upper bound as the double 1 - eps, then rounds it
/// to T; so does this. With eps = 0, v outside [0, 1] gives NaN.
struct Logit {
  template <class T> static T f(T v, const LogitAttrs& a) {
    const T lo = static_cast<T>(a.eps), hi = static_cast<T>(1.0 - static_cast<double>(a.eps));
    T t = v > hi ? hi : v;
    t = t < lo ? lo : t;
    const T r = std::log(t / (T(1) - t));
    const bool outside = a.eps == 0.0f && (v < T(0) || v > T(1));
    return outside ? std::numeric_limits<T>::quiet_NaN() : r;
  }
};
/// The inverse error function, computed in double: Winitzki's closed form
/// (within ~2e-3 relative) refined by three Newton steps on erf(y) = v,
/// which square the error each time, to double rounding. fp32 rounds the
/// double result once.
inline double erfinv_f64(double v) {
  // Paddle's erfinv is ndtri((v + 1) / 2) / sqrt(2), and ndtri saturates: +inf from 1 up, -inf from -1
  // down (not NaN outside [-1, 1]); NaN stays NaN.
  if (v >= 1.0) return std::numeric_limits<double>::infinity();
  if (v <= -1.0) return -std::numeric_limits<double>::infinity();
  if (std::isnan(v)) return v;
  if (v == 0.0) return v;  // keeps the sign of zero
  constexpr double kPi = 3.14159265358979323846, kA = 0.147;
  const double l = std::log1p(-v * v);  // ln(1 - v^2), accurate near 0
  const double b = 2.0 / (kPi * kA) + l / 2.0;
  double y = std::sqrt(std::sqrt(b * b - l / kA) - b);
  y = v < 0 ? -y : y;
  const double slope = 2.0 / std::sqrt(kPi);  // d erf(y) / dy = slope e^(-y^2)
  for (int k = 0; k < 3; ++k) y -= (std::erf(y) - v) / (slope * std::exp(-y * y));
  return y;
}
/// Paddle computes erfinv(v) as ndtri(v / 2 + 1 / 2) / sqrt(2) in T, and the
/// rounding of v / 2 + 1 / 2 to T dominates its error near +-1 (fp32
/// erfinv(0.999999) is 3.4655, not 3.4571) and near 0. That argument is
/// rounded here the same way, then inverted exactly: matching Paddle rather
/// than the better value.
struct Erfinv {
  template <class T> static T f(T v) {
    const T p = v * T(0.5) + T(0.5);
    return static_cast<T>(erfinv_f64(2.0 * static_cast<double>(p) - 1.0));
  }
};
/// Halves away from zero (std::round, not the current rounding mode).
struct Round { template <class T> static T f(T v) { return std::round(v); } };
/// Integers are already whole.
struct Trunc {
  template <class T> static T f(T v) {
    if constexpr (std::is_integral_v<T>)
      return v;
    else
      return std::trunc(v);
  }
};

}  // namespace fluidc::kernels::pw

#pragma STDC FP_CONTRACT DEFAULT
