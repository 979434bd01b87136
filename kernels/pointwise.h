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

#include "kernels/activation.h"

namespace fluidc::kernels::pw {

// ---- fp32 exp and tanh that vectorise -----------------------------------------
// glibc's expf/tanhf are calls the compiler cannot vectorise; tanhf alone was
// 60% of the while_loop RNN benchmark's training step (perf). These are
// branch-free (both sides of every choice computed, then selected), so loops
// over them vectorise. Accuracy: relative error below 2e-7 (about 3 ulp)
// (test/unit/kernels/pointwise_test.cc sweeps them against double).

/// e^y for fp32: y = n ln2 + r with |r| <= ln2/2 (ln2 split in two so n ln2
/// is exact), e^r by its Taylor series to r^7 (truncation < 1e-8 relative),
/// 2^n from the exponent bits. y is clamped to [-87, 88]: the results at the
/// ends are the fp32 range's, tiny or huge, not 0 or inf.
inline float exp_f32(float y) {
  y = y < -87.0f ? -87.0f : (y > 88.0f ? 88.0f : y);
  // n = round(y / ln2) by truncating a value made positive (floor would be a
  // libm call on baseline x86-64, which stops vectorisation).
  const int32_t ni = static_cast<int32_t>(y * 1.44269504088896341f + 128.5f) - 128;
  const float n = static_cast<float>(ni);
  const float r = (y - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (ni + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

/// tanh for fp32. |x| < 0.55: x + x^3 P(x^2), P a least-squares fit of
/// degree 4 made for fluidc (max relative error 6.4e-8 in fp32); beyond:
/// 1 - 2 / (e^{2|x|} + 1), with |x| clamped at 10 (tanh rounds to 1 in fp32
/// from 9.01 on).
/// The sign is put back last; NaN stays NaN.
inline float tanh_f32(float x) {
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

// ---- unary: Out = f(X) ------------------------------------------------------
struct Relu { template <class T> static T f(T v) { return v > 0 ? v : T(0); } };
struct Sqrt { template <class T> static T f(T v) { return std::sqrt(v); } };
struct Sigmoid {
  static float f(float v) { return 1.0f / (1.0f + exp_f32(-v)); }
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

// ---- binary: Out = f(X, Y) --------------------------------------------------
struct Add { template <class T> static T f(T a, T b) { return a + b; } };
struct Sub { template <class T> static T f(T a, T b) { return a - b; } };
struct Mul { template <class T> static T f(T a, T b) { return a * b; } };
struct Max { template <class T> static T f(T a, T b) { return a > b ? a : b; } };

}  // namespace fluidc::kernels::pw
