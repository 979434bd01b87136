// kernels/pointwise.h - the scalar function of every elementwise op, shared by its kernel and by fused loops.
//
// A kernel applies one of these per element; the code generator's fused
// loops (see kernels/fused.h) call the very same functions one after
// another on a value held in a register. One definition for both keeps
// fused and unfused results bit-identical.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/activation.h"

// These functions are also inlined into AVX2/AVX-512 copies of kernel loops
// (kernels/cpu/isa_clones.h); with a * b + c contracted into an FMA there
// they would round differently from the baseline build and from the fused
// loops of generated code (compiled for generic x86-64). Off here, reset
// to the command line's setting at the end of the header.
#pragma STDC FP_CONTRACT OFF

namespace fluidc::kernels::pw {

// ---- fp32 exp and tanh that vectorise -----------------------------------------
// glibc's expf/tanhf are calls the compiler cannot vectorise; tanhf alone was
// 60% of the while_loop RNN benchmark's training step (perf). These are
// branch-free (both sides of every choice computed, then selected), so loops
// over them vectorise. Accuracy: relative error below 2e-7 (about 3 ulp)
// (test/unit/kernels/pointwise_test.cc sweeps them against double).

/// e^y for fp32 over the whole float range: y = n ln2 + r with |r| <= ln2/2
/// (ln2 split in two so n ln2 is exact), e^r by its Taylor series to r^7
/// (truncation < 1e-8 relative), then 2^n applied as 2^(n/2) twice, so that
/// results below 2^-126 come out as the subnormals they are (one rounding,
/// in the last multiply) and results above the fp32 range as inf. y is
/// clamped to [-104, 89], beyond which e^y rounds to 0 or inf; NaN stays NaN.
[[gnu::always_inline]] inline float exp_f32(float y) {
  // NaN fails both comparisons and is clamped to -104 (a float-to-int cast
  // of NaN is undefined), then put back at the end.
  const float c = y > -104.0f ? (y < 89.0f ? y : 89.0f) : -104.0f;
  // n = round(c / ln2) by truncating a value made positive (floor would be a
  // libm call on baseline x86-64, which stops vectorisation).
  const int32_t ni = static_cast<int32_t>(c * 1.44269504088896341f + 256.5f) - 256;
  const float n = static_cast<float>(ni);
  const float r = (c - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // n is in [-150, 128]: each half in [-75, 64] is a normal power of two.
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  const int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  const float e = p * s1 * s2;
  return y != y ? y : e;
}

/// tanh for fp32. |x| < 0.55: x + x^3 P(x^2), P a least-squares fit of
/// degree 4 made for fluidc (max relative error 6.4e-8 in fp32); beyond:
/// 1 - 2 / (e^{2|x|} + 1), with |x| clamped at 10 (tanh rounds to 1 in fp32
/// from 9.01 on).
/// The sign is put back last; NaN stays NaN.
[[gnu::always_inline]] inline float tanh_f32(float x) {
  const float a = std::fabs(x);
  const float z = a * a;
  float p = -0.0063048056326806545f;
  p = p * z + 0.021093105897307396f;
  p = p * z - 0.05385742336511612f;
  p = p * z + 0.13332633674144745f;
  p = p * z - 0.33333319425582886f;
  const float small = a + a * z * p;
  const float e = exp_f32(2.0f * (a < 10.0f ? a : 10.0f));
  const float large = 1.0f - 2.0f / (e + 1.0f);
  const float t = std::copysign(a < 0.55f ? small : large, x);
  return x != x ? x : t;
}

/// 1 / (1 + e^-x) for fp32 from one e = e^-|x| in (0, 1], so nothing
/// overflows: 1 / (1 + e) for x > 0, e / (1 + e) for x <= 0, which keeps the
/// tiny values (subnormals down to x = -103.9) that 1 / (1 + e^-x) loses
/// once e^-x overflows. NaN stays NaN (e is NaN).
[[gnu::always_inline]] inline float sigmoid_f32(float x) {
  const float e = exp_f32(-std::fabs(x));
  return (x > 0.0f ? 1.0f : e) / (1.0f + e);
}

/// ln x for fp32, branch-free like exp_f32: x = m 2^e with m in
/// [sqrt(1/2), sqrt(2)) (the exponent read from the bits, subnormals scaled
/// by 2^23 first), ln m = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.172,
/// by its odd series to s^9 (truncation < 3e-9). Relative error below
/// 2.5e-7 over all positive floats (test/unit/kernels/pointwise_test.cc);
/// 0 gives -inf, negatives NaN, inf inf.
[[gnu::always_inline]] inline float log_f32(float x) {
  const bool sub = x < 1.17549435e-38f;
  const float xs = sub ? x * 8388608.0f : x;
  int32_t b;
  std::memcpy(&b, &xs, sizeof b);
  const int32_t e = (b - 0x3f3504f3) >> 23;  // 0x3f3504f3: the bits of sqrt(1/2)
  const int32_t mb = b - (e << 23);
  float m;
  std::memcpy(&m, &mb, sizeof m);
  const float s = (m - 1.0f) / (m + 1.0f);
  const float z = s * s;
  float p = 1.0f / 9.0f;
  p = p * z + 1.0f / 7.0f;
  p = p * z + 1.0f / 5.0f;
  p = p * z + 1.0f / 3.0f;
  p = p * z + 1.0f;
  const float ef = static_cast<float>(sub ? e - 23 : e);
  // ln2 in two parts, as in exp_f32, so e ln2 adds no rounding of its own.
  float r = ef * 0.693145751953125f + (2.0f * s * p + ef * 1.42860682030941723212e-6f);
  const float inf = std::numeric_limits<float>::infinity();
  r = x == inf ? inf : r;
  r = x == 0.0f ? -inf : r;
  r = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : r;
  return x != x ? x : r;
}

/// ln(1 + t) for fp32 t >= 0 without losing a small t: u = 1 + t rounds, and
/// ln(u) * t / (u - 1) corrects for the rounding (t itself when u is 1).
[[gnu::always_inline]] inline float log1p_f32(float t) {
  const float u = 1.0f + t;
  const float d = u - 1.0f;
  const float r = log_f32(u) * (t / (d == 0.0f ? 1.0f : d));
  return d == 0.0f ? t : r;
}

/// erf for fp32, branch-free: x P(x^2) / Q(x^2) on |x| <= 4 (x clamped
/// there; exactly +-1 beyond 3.92, where fp32 erf rounds to it), P and Q of degree 5, a relative
/// least-squares fit made for fluidc (8.5e-8 in exact arithmetic, below
/// 4e-7 evaluated in fp32; test/unit/kernels/pointwise_test.cc sweeps it).
[[gnu::always_inline]] inline float erf_f32(float x) {
  const float c = x < -4.0f ? -4.0f : (x > 4.0f ? 4.0f : x);
  const float t = c * c;
  float p = 2.0475572455325164e-06f;
  p = p * t + 0.00028340451535768807f;
  p = p * t + 0.0037259503733366728f;
  p = p * t + 0.05261901766061783f;
  p = p * t + 0.1895523965358734f;
  p = p * t + 1.1283791065216064f;
  float q = 3.799183832597919e-05f;
  q = q * t + 0.001151960575953126f;
  q = q * t + 0.014888307079672813f;
  q = q * t + 0.1137411817908287f;
  q = q * t + 0.5013193488121033f;
  q = q * t + 1.0f;
  // From 3.92 on erf rounds to +-1 in fp32; the fit is a few ulps short of it.
  const float r = c * p / q;
  return std::fabs(x) > 3.92f ? std::copysign(1.0f, x) : r;
}

// ---- unary: Out = f(X) ------------------------------------------------------
struct Relu { template <class T> static T f(T v) { return v > 0 ? v : T(0); } };
struct Sqrt { template <class T> static T f(T v) { return std::sqrt(v); } };
struct Sigmoid {
  static float f(float v) { return sigmoid_f32(v); }
  static double f(double v) { return 1.0 / (1.0 + std::exp(-v)); }
};
struct Tanh {
  static float f(float v) { return tanh_f32(v); }
  static double f(double v) { return std::tanh(v); }
};
struct Square { template <class T> static T f(T v) { return static_cast<T>(v * v); } };
/// scale's attributes are float; they are applied in X's type.
struct Scale {
  template <class T> static T f(T v, const ScaleAttrs& a) {
    const T s = static_cast<T>(a.scale), b = static_cast<T>(a.bias);
    return a.bias_after_scale ? static_cast<T>(v * s + b) : static_cast<T>((v + b) * s);
  }
};

/// e^v in the fast fp32 form above, or libm's for fp64.
inline float exp_t(float v) { return exp_f32(v); }
inline double exp_t(double v) { return std::exp(v); }
inline float log_t(float v) { return log_f32(v); }
inline double log_t(double v) { return std::log(v); }
inline float log1p_t(float v) { return log1p_f32(v); }
inline double log1p_t(double v) { return std::log1p(v); }
inline float erf_t(float v) { return erf_f32(v); }
inline double erf_t(double v) { return std::erf(v); }
inline float tanh_t(float v) { return tanh_f32(v); }
inline double tanh_t(double v) { return std::tanh(v); }
/// 1 / (1 + e^-v).
inline float sigmoid_t(float v) { return sigmoid_f32(v); }
inline double sigmoid_t(double v) { return 1.0 / (1.0 + std::exp(-v)); }
/// log(1 + e^v) in the form that neither overflows nor loses small values:
/// max(v, 0) + log1p(e^-|v|).
template <class T> [[gnu::always_inline]] inline T softplus_t(T v) {
  const T a = v < T(0) ? -v : v;
  return (v > T(0) ? v : T(0)) + log1p_t(exp_t(-a));
}

// Selects below compute both sides and pick one (no early return), so the
// loops over them stay vectorisable.
struct Relu6 {
  template <class T> static T f(T v, const Relu6Attrs& a) {
    const T t = static_cast<T>(a.threshold);
    const T r = v > T(0) ? v : T(0);
    return r < t ? r : t;
  }
};
struct LeakyRelu {
  template <class T> static T f(T v, const LeakyReluAttrs& a) { return v > T(0) ? v : v * static_cast<T>(a.alpha); }
};
struct HardSwish {
  template <class T> static T f(T v, const HardSwishAttrs& a) {
    const T t = static_cast<T>(a.threshold);
    T u = v + static_cast<T>(a.offset);
    u = u > T(0) ? u : T(0);
    u = u < t ? u : t;
    return v * u / static_cast<T>(a.scale);
  }
};
struct HardSigmoid {
  template <class T> static T f(T v, const HardSigmoidAttrs& a) {
    const T u = static_cast<T>(a.slope) * v + static_cast<T>(a.offset);
    const T lo = u > T(0) ? u : T(0);
    return lo < T(1) ? lo : T(1);
  }
};
struct Swish {
  template <class T> static T f(T v, const SwishAttrs& a) { return v * sigmoid_t(static_cast<T>(a.beta) * v); }
};
struct Silu { template <class T> static T f(T v) { return v * sigmoid_t(v); } };
struct Elu {
  template <class T> static T f(T v, const EluAttrs& a) {
    const T neg = static_cast<T>(a.alpha) * (exp_t(v) - T(1));
    return v > T(0) ? v : neg;
  }
};
struct Softplus {
  template <class T> [[gnu::always_inline]] static T f(T v, const SoftplusAttrs& a) {
    const T b = static_cast<T>(a.beta);
    const T xb = b * v;
    const T soft = softplus_t(xb) / b;
    return xb > static_cast<T>(a.threshold) ? v : soft;
  }
};
struct Stanh {
  template <class T> static T f(T v, const StanhAttrs& a) {
    return static_cast<T>(a.scale_b) * tanh_t(static_cast<T>(a.scale_a) * v);
  }
};
struct SoftRelu {
  template <class T> static T f(T v, const SoftReluAttrs& a) {
    const T t = static_cast<T>(a.threshold);
    const T c = v < -t ? -t : (v > t ? t : v);
    return log_t(T(1) + exp_t(c));
  }
};
struct Mish {
  /// Paddle's threshold: above it softplus(X) is taken as X.
  template <class T> [[gnu::always_inline]] static T sp(T v, const MishAttrs& a) {
    const T soft = softplus_t(v);
    return v > static_cast<T>(a.threshold) ? v : soft;
  }
  template <class T> [[gnu::always_inline]] static T f(T v, const MishAttrs& a) { return v * tanh_t(sp(v, a)); }
};
struct Exp { template <class T> static T f(T v) { return exp_t(v); } };
struct Log { template <class T> static T f(T v) { return log_t(v); } };
struct Rsqrt { template <class T> static T f(T v) { return T(1) / std::sqrt(v); } };
struct Reciprocal { template <class T> static T f(T v) { return T(1) / v; } };
struct Abs { template <class T> static T f(T v) { return std::fabs(v); } };
struct Erf { template <class T> static T f(T v) { return erf_t(v); } };
struct Sin { template <class T> static T f(T v) { return std::sin(v); } };
struct Cos { template <class T> static T f(T v) { return std::cos(v); } };
struct Sign {
  template <class T> static T f(T v) { return static_cast<T>((v > T(0)) - (v < T(0))); }
};
struct Floor { template <class T> static T f(T v) { return std::floor(v); } };
struct Ceil { template <class T> static T f(T v) { return std::ceil(v); } };
struct Pow {
  template <class T> static T f(T v, const PowAttrs& a) { return std::pow(v, static_cast<T>(a.factor)); }
};
struct Clip {
  template <class T> static T f(T v, const ClipAttrs& a) {
    const T lo = static_cast<T>(a.min), hi = static_cast<T>(a.max);
    const T r = v < lo ? lo : v;
    return r > hi ? hi : r;
  }
};
struct Gelu {
  /// sqrt(2 / pi) and 1 / sqrt(2).
  static constexpr double kTanhScale = 0.79788456080286535588, kInvSqrt2 = 0.70710678118654752440;
  template <class T> static T f(T v, const GeluAttrs& a) { return a.approximate ? tanh_form(v) : erf_form(v); }
  /// The two forms on their own, for loops that choose once (a choice per element stops vectorisation).
  template <class T> static T tanh_form(T v) {
    const T inner = static_cast<T>(kTanhScale) * (v + T(0.044715) * v * v * v);
    return T(0.5) * v * (T(1) + tanh_t(inner));
  }
  template <class T> static T erf_form(T v) { return T(0.5) * v * (T(1) + erf_t(v * static_cast<T>(kInvSqrt2))); }
};

// ---- binary: Out = f(X, Y) --------------------------------------------------
struct Add { template <class T> static T f(T a, T b) { return a + b; } };
struct Sub { template <class T> static T f(T a, T b) { return a - b; } };
struct Mul { template <class T> static T f(T a, T b) { return a * b; } };
struct Max { template <class T> static T f(T a, T b) { return a > b ? a : b; } };
struct Min { template <class T> static T f(T a, T b) { return a < b ? a : b; } };
/// elementwise_fmax / fmin: a NaN operand loses to a number (C's fmax/fmin); integers compare plainly.
struct FMax {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
    else return a > b ? a : b;
  }
};
struct FMin {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
    else return a < b ? a : b;
  }
};
/// elementwise_heaviside (paddle.heaviside): 1 where a > 0, b where a is 0, else 0 (NaN included).
struct Heaviside {
  template <class T> static T f(T a, T b) { return a == T(0) ? b : static_cast<T>(a > T(0)); }
};
/// elementwise_pow. Integers: the double power rounded to nearest, as Paddle computes it.
struct ElementwisePow {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(std::llrint(std::pow(static_cast<double>(a), static_cast<double>(b))));
    else
      return std::pow(a, b);
  }
};

}  // namespace fluidc::kernels::pw

#pragma STDC FP_CONTRACT DEFAULT

#include "kernels/pointwise_unary.h"  // the scalar functions of the shrinking, trigonometric and log ops
