// kernels/cpu/grid_sample_coord.h - grid_sampler's shared pieces: attribute setup, pixel coordinates of grid values, the 5-D kernels.
#pragma once

#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/sampling.h"
#include "kernels/shapes/sampling.h"

namespace fluidc::kernels::grid_detail {

using namespace detail;

enum class Pad { kZeros, kBorder, kReflection };

struct Setup {
  bool bilinear = true;
  Pad pad = Pad::kZeros;
  bool align = true;
};

inline Setup setup_of(const char* op, const Tensor& x, const Tensor& grid, const GridSamplerAttrs& a, Shape& out) {
  require_init(op, "X", x);
  require_init(op, "Grid", grid);
  require_same_dtype(op, "X", x, "Grid", grid);
  require_rule(op, shapes::grid_sampler_shape(x.shape(), grid.shape(), a, out));
  Setup s;
  s.bilinear = a.mode == "bilinear";
  s.pad = a.padding_mode == "border" ? Pad::kBorder : a.padding_mode == "reflection" ? Pad::kReflection : Pad::kZeros;
  s.align = a.align_corners;
  return s;
}

/// The pixel coordinate a normalised grid value g reads along a dim of
/// `size` pixels (Paddle's unnormalise, then border clamping or
/// reflection), and in `d` its derivative with respect to g. NaN stays NaN
/// (the caller reads nothing there).
template <class T>
T source_coord(T g, int64_t size, const Setup& s, T& d) {
  const int64_t max = size - 1;
  T x;
  if (s.align) {
    x = (g + T(1)) * static_cast<T>(max * 0.5);
    d = static_cast<T>(max * 0.5);
  } else {
    x = ((g + T(1)) * static_cast<T>(max + 1) - T(1)) * T(0.5);
    d = static_cast<T>(max + 1) * T(0.5);
  }
  auto clamp = [&](T v) {
    if (v < T(0)) return d = T(0), T(0);
    if (v > static_cast<T>(max)) return d = T(0), static_cast<T>(max);
    return v;
  };
  if (s.pad == Pad::kBorder) return clamp(x);
  if (s.pad == Pad::kReflection) {
    // Mirror at the edges: fold |x| (shifted by half a pixel unless
    // align_corners) into one period of twice the range.
    const T shift = s.align ? T(0) : T(0.5);
    const T range2 = static_cast<T>(s.align ? 2 * max : 2 * (max + 1));
    if (range2 == T(0)) return d = T(0), T(0);
    const T v = x + shift;
    const T sign = v < T(0) ? T(-1) : T(1);
    const T a = std::abs(v);
    const T extra = a - std::floor(a / range2) * range2;
    T r;
    if (extra <= range2 - extra) {
      r = extra;
      d *= sign;
    } else {
      r = range2 - extra;
      d *= -sign;
    }
    x = r - shift;
    if (!s.align) x = clamp(x);
    return x;
  }
  return x;
}

/// True when the pixel coordinate is one whose integer neighbours can be
/// formed without overflow (NaN and huge values read nothing).
template <class T>
bool usable(T v, int64_t size) {
  return v > T(-2) && v < static_cast<T>(size + 1);
}

/// The volumetric forms (X [N, C, D, H, W], Grid [N, Do, Ho, Wo, 3]) of
/// grid_sampler and its gradient (kernels/cpu/grid_sampler_3d.cc), called
/// by the public kernels once the setup is checked and `out` (or the
/// gradients, zero-filled; either may be null) sized.
void grid_sampler_5d(const Setup& s, const Tensor& x, const Tensor& grid, Tensor& out);
void grid_sampler_5d_grad(const Setup& s, const Tensor& x, const Tensor& grid, const Tensor& output_grad,
                          Tensor* x_grad, Tensor* grid_grad);

}  // namespace fluidc::kernels::grid_detail
