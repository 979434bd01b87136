// kernels/cpu/quant_math.h - the scalar rules shared by the fake-quantization kernels (levels, scales, channels).
#pragma once

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::quant {

using detail::Shape;
using detail::Tensor;

/// 2^(bits-1) - 1: the largest level (127 for 8 bits). Paddle checks
/// 1 <= bits <= 16 when the op is built; a program file may still carry
/// anything, so the kernels check again.
inline int bin_count(const char* op, int bits) {
  if (bits < 1 || bits > 16) rt::fail(fmt::format("{}: bit_length {} is not in [1, 16]", op, bits));
  return (1 << (bits - 1)) - 1;
}

inline void check_round_type(const char* op, int round_type) {
  if (round_type != 0 && round_type != 1)
    rt::fail(fmt::format("{}: round_type {} is neither 0 (half to even) nor 1 (half away from zero)", op, round_type));
}

/// 1/s, with a tiny or non-positive scale nudged by 1e-6 as Paddle does
/// (so an all-zero tensor quantizes to zeros rather than NaN).
template <class T>
T inverse(T s) {
  return s <= static_cast<T>(1e-30) ? T(1) / (s + static_cast<T>(1e-6)) : T(1) / s;
}

/// The level of x for scale s (inv = inverse(s)), see kernels/quant.h.
/// round_type 0 rounds half to even (nearbyint in the default rounding
/// mode, which is what Paddle's floor/ceil comparison computes) and clamps
/// afterwards to [-bin-1, bin]; round_type 1 clamps x to [-s, s] first and
/// rounds half away from zero. The product is (bin*inv)*x, Paddle's order.
template <class T>
T level(T x, T s, T inv, T bin, int round_type) {
  if (round_type == 0) {
    T v = std::nearbyint(bin * inv * x);
    v = v > bin ? bin : v;
    return v < -bin - T(1) ? -bin - T(1) : v;
  }
  const T c = x < -s ? -s : (x > s ? s : x);
  return std::round(bin * inv * c);
}

/// level * s / bin, Paddle's order of operations.
template <class T>
T dequant(T q, T s, T bin) {
  return q * s / bin;
}

/// max |x| over n values (0 for none).
template <class T>
T abs_max(const T* x, int64_t n) {
  T m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::abs(x[i]) > m ? std::abs(x[i]) : m;
  return m;
}

/// X viewed as [outer, channels, inner] around `axis`; element i is in
/// channel (i / inner) % channels.
struct Channels {
  int64_t outer = 1, channels = 1, inner = 1;
};

/// The view for per-channel scales along quant_axis, which Paddle allows
/// to be 0 or 1 only.
inline Channels channels_of(const char* op, const Shape& s, int quant_axis) {
  if (quant_axis != 0 && quant_axis != 1)
    rt::fail(fmt::format("{}: quant_axis {} must be 0 or 1 for per-channel scales", op, quant_axis));
  if (quant_axis >= s.rank)
    rt::fail(fmt::format("{}: quant_axis {} is out of range for X {}", op, quant_axis, s.str()));
  Channels c;
  c.outer = detail::prod(s, 0, quant_axis);
  c.channels = s.d[quant_axis];
  c.inner = detail::prod(s, quant_axis + 1, s.rank);
  return c;
}

/// A scale tensor holding at least `n` values of X's dtype.
inline void require_scales(const char* op, const char* role, const Tensor& scale, const Tensor& x, int64_t n) {
  detail::require_init(op, role, scale);
  detail::require_same_dtype(op, "X", x, role, scale);
  if (scale.numel() != n)
    rt::fail(fmt::format("{}: {} {} must hold {} value(s) for X {}", op, role, scale.shape().str(), n,
                         x.shape().str()));
}

/// A one-value state tensor (InAccum, InState) of X's dtype.
inline void require_scalar(const char* op, const char* role, const Tensor* t, const Tensor& x) {
  if (!t) rt::fail(fmt::format("{}: training (is_test false) needs input {}", op, role));
  detail::require_init(op, role, *t);
  detail::require_same_dtype(op, "X", x, role, *t);
  if (t->numel() < 1) rt::fail(fmt::format("{}: {} is empty", op, role));
}

}  // namespace fluidc::kernels::quant

namespace fluidc::kernels::quant {

/// Out[i] = level (or level*s/bin when `dequantize`) of X[i] with the scale
/// of its channel: scales[(i / v.inner) % v.channels]. Same-index reads and
/// writes, so Out may be X.
template <class T>
void apply_levels(const T* x, const T* scales, const Channels& v, int bin_cnt, int round_type, bool dequantize,
                  T* out) {
  const T bin = static_cast<T>(bin_cnt);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.channels; ++c) {
      const T s = scales[c];
      const T inv = inverse(s);
      const int64_t base = (o * v.channels + c) * v.inner;
      for (int64_t k = 0; k < v.inner; ++k) {
        const T q = level(x[base + k], s, inv, bin, round_type);
        out[base + k] = dequantize ? dequant(q, s, bin) : q;
      }
    }
}

/// The per-tensor view of X (one channel).
inline Channels whole(const Tensor& x) {
  Channels v;
  v.inner = x.numel();
  return v;
}

/// One moving-average step of the scale (Paddle's FindMovingAverageAbsMax):
/// state = rate*state + 1, accum = rate*accum + cur, scale = accum/state.
/// Separate statements: no FMA contraction, as in Paddle's build.
template <class T>
T moving_average(T rate, T cur, T& state, T& accum) {
  const T rs = rate * state;
  state = rs + T(1);
  const T ra = rate * accum;
  accum = ra + cur;
  return accum / state;
}

}  // namespace fluidc::kernels::quant
