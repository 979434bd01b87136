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
