// kernels/cpu/interp_common.h - what the interpolation kernels share: reading the run-time size inputs, 2-tap sampling.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/interp.h"

namespace fluidc::kernels::detail {

/// The run-time size inputs of an op with `dims` spatial dims, read as
/// Paddle reads them: SizeTensor one tensor per dim, OutSize one value per
/// dim, Scale one value for every dim or one per dim.
inline shapes::InterpSources read_sources(const char* op, int dims, const Tensor* out_size,
                                          const Tensor* const* size_tensor, int num_size_tensor, const Tensor* scale) {
  shapes::InterpSources s;
  if (num_size_tensor > 0) {
    if (num_size_tensor != dims)
      rt::fail(fmt::format("{}: SizeTensor has {} tensors, needs {}", op, num_size_tensor, dims));
    const auto v = int_list_values(op, "SizeTensor", size_tensor, num_size_tensor);
    s.size = true;
    for (int i = 0; i < dims; ++i) s.size_hw[i] = v[i];
  }
  if (out_size) {
    s.out_size = true;
    for (int i = 0; i < dims; ++i) s.out_size_hw[i] = int_at(op, "OutSize", *out_size, i);
  }
  if (scale) {
    require_init(op, "Scale", *scale);
    if (scale->numel() < 1) rt::fail(fmt::format("{}: Scale is empty", op));
    s.scale = true;
    visit_numeric(op, "Scale", scale->dtype(), [&](auto tag) {
      const auto* p = scale->data<decltype(tag)>();
      for (int i = 0; i < dims; ++i) s.scale_hw[i] = static_cast<float>(scale->numel() > i ? p[i] : p[0]);
    });
  }
  return s;
}

/// One output pixel's sources along one dim: indices i0, i1 and weights w0, w1.
struct Tap {
  int64_t i0, i1;
  float w0, w1;
};

/// Paddle's sampling along one dim: nearest takes floor(o * ratio) (rounded
/// with align_corners); linear blends floor(src) and the next pixel, src =
/// o * ratio or, half_pixel, (o + 0.5) * ratio - 0.5 clipped at 0. Indices
/// are clamped to the input, which Paddle leaves to the caller.
inline void make_taps(bool nearest, bool align_corners, bool half_pixel, int64_t in, int64_t out, float ratio,
                      std::vector<Tap>& taps) {
  taps.resize(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    Tap& t = taps[static_cast<size_t>(o)];
    const float at = ratio * static_cast<float>(o);
    if (nearest) {
      int64_t i = align_corners ? std::lround(at) : static_cast<int64_t>(at);
      t.i0 = t.i1 = std::clamp<int64_t>(i, 0, in - 1);
      t.w0 = 1.f, t.w1 = 0.f;
      continue;
    }
    const double half = ratio * (o + 0.5) - 0.5;
    int64_t i = half_pixel ? static_cast<int64_t>(half) : static_cast<int64_t>(at);
    i = std::clamp<int64_t>(i, 0, in - 1);
    const float src = half_pixel ? std::max(static_cast<float>(half), 0.f) : at;
    const float d = src - static_cast<float>(i);  // weight of the next pixel
    t.i0 = i;
    t.i1 = std::min(i + 1, in - 1);
    t.w0 = 1.f - d;
    t.w1 = d;
  }
}

}  // namespace fluidc::kernels::detail
