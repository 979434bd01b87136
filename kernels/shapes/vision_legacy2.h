// kernels/shapes/vision_legacy2.h - shape rules of im2sequence, crop, crop_tensor, density_prior_box, row_conv (kernels and compiler).
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/vision_legacy2.h"

namespace fluidc::shapes {

/// The largest kernel, padding or density the program may give (a bound far
/// above real models that keeps every product of them in int64).
constexpr int kMaxExtent = 1 << 16;

/// im2sequence's geometry: kernels, strides, paddings checked; oh / ow the
/// patch grid of an h x w image (kUnknown when h or w is).
struct Im2SeqGeom {
  int kh = 0, kw = 0, sh = 1, sw = 1, up = 0, left = 0, down = 0, right = 0;
  /// C * kh * kw, or -1 when it overflows (C is a dim of X, the rest bounded).
  int64_t features(int64_t c) const {
    int64_t f = 0;
    return c < 0 || __builtin_mul_overflow(c, int64_t{kh} * kw, &f) ? -1 : f;
  }
  int64_t grid(int64_t in, bool height) const {
    if (in < 0) return kUnknown;
    const int k = height ? kh : kw, s = height ? sh : sw, p = height ? up + down : left + right;
    return (in + p - k) / s + 1;
  }
};
inline std::string im2sequence_geom(const Shape& x, const kernels::Im2SequenceAttrs& a, Im2SeqGeom& g) {
  if (x.rank != 4) return fmt::format("X {} must be [N, C, H, W]", x.str());
  if (a.kernels.size() != 2 || a.strides.size() != 2 || a.paddings.size() != 4 || a.out_stride.size() != 2)
    return fmt::format("kernels ({}), strides ({}), out_stride ({}) need 2 values, paddings ({}) 4", a.kernels.size(),
                       a.strides.size(), a.out_stride.size(), a.paddings.size());
  g = {a.kernels[0], a.kernels[1], a.strides[0], a.strides[1], a.paddings[0], a.paddings[1], a.paddings[2],
       a.paddings[3]};
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || a.out_stride[0] < 1 || a.out_stride[1] < 1)
    return "kernels, strides and out_stride must be positive";
  if (g.up < 0 || g.left < 0 || g.down < 0 || g.right < 0) return "paddings must not be negative";
  // Patch sizes come from the program: keep C * kh * kw and the padded
  // sizes far from overflow (a real model's kernels are a few pixels).
  if (g.kh > kMaxExtent || g.kw > kMaxExtent || g.up > kMaxExtent || g.left > kMaxExtent || g.down > kMaxExtent ||
      g.right > kMaxExtent)
    return fmt::format("kernels and paddings must be at most {}", kMaxExtent);
  for (bool h : {true, false}) {
    const int64_t in = x.d[h ? 2 : 3];
    if (in >= 0 && g.grid(in, h) < 1)
      return fmt::format("the {} kernel {} does not fit X {} with its padding", h ? "height" : "width",
                         h ? g.kh : g.kw, x.str());
  }
  return {};
}

/// A box of `out` dims at `offsets` inside `x` (crop, crop_tensor). Unknown
/// dims pass.
inline std::string crop_box(const Shape& x, const std::vector<int64_t>& offsets, const Shape& out) {
  if (static_cast<int>(offsets.size()) != x.rank || out.rank != x.rank)
    return fmt::format("offsets ({} values) and shape {} must have X {}'s rank", offsets.size(), out.str(), x.str());
  for (int i = 0; i < x.rank; ++i) {
    if (offsets[i] < 0) return fmt::format("offset {} of dim {} is negative", offsets[i], i);
    if (out.d[i] < 0 && out.d[i] != kUnknown) return fmt::format("shape {} has a negative dim", out.str());
    // offsets[i] > X's dim first: the sum of two values from a tensor may overflow.
    if (x.d[i] >= 0 && out.d[i] >= 0 && (offsets[i] > x.d[i] || out.d[i] > x.d[i] - offsets[i]))
      return fmt::format("the box {} at offset {} of dim {} leaves X {}", out.str(), offsets[i], i, x.str());
  }
  return {};
}

/// crop_tensor's Out dims from the requested shape: -1 is X's dim less the offset.
inline std::string crop_tensor_shape(const Shape& x, const std::vector<int64_t>& shape,
                                     const std::vector<int64_t>& offsets, Shape& out) {
  if (static_cast<int>(shape.size()) != x.rank)
    return fmt::format("shape has {} values, X {} has rank {}", shape.size(), x.str(), x.rank);
  out = x;
  for (int i = 0; i < x.rank; ++i) {
    if (shape[i] == -1 && (x.d[i] < 0 || i >= static_cast<int>(offsets.size()))) out.d[i] = kUnknown;
    else if (shape[i] == -1 && (offsets[i] < 0 || offsets[i] > x.d[i]))
      return fmt::format("offset {} of dim {} is outside X {}", offsets[i], i, x.str());
    else if (shape[i] == -1) out.d[i] = x.d[i] - offsets[i];
    else if (shape[i] < 1) return fmt::format("shape value {} of dim {} must be positive or -1", shape[i], i);
    else out.d[i] = shape[i];
  }
  return {};
}

/// density_prior_box: priors per cell; the sizes and densities pair up.
inline std::string density_prior_count(const kernels::DensityPriorBoxAttrs& a, int64_t& priors) {
  if (a.fixed_sizes.size() != a.densities.size())
    return fmt::format("fixed_sizes ({}) and densities ({}) must have as many values", a.fixed_sizes.size(),
                       a.densities.size());
  priors = 0;
  for (int d : a.densities) {
    if (d < 1 || d > kMaxExtent) return fmt::format("densities must be in [1, {}], got {}", kMaxExtent, d);
    priors += static_cast<int64_t>(a.fixed_ratios.size()) * d * d;
  }
  for (float r : a.fixed_ratios)
    if (!(r > 0)) return fmt::format("fixed_ratios must be positive, got {}", r);
  return {};
}
/// Boxes' (and Variances') dims for a feature map `input` [N, C, H, W].
inline std::string density_prior_shape(const Shape& input, const Shape& image, const kernels::DensityPriorBoxAttrs& a,
                                       Shape& boxes, Shape& vars) {
  if (input.rank != 4 || image.rank != 4)
    return fmt::format("Input {} and Image {} must be [N, C, H, W]", input.str(), image.str());
  int64_t p = 0;
  if (std::string e = density_prior_count(a, p); !e.empty()) return e;
  const int64_t h = input.d[2], w = input.d[3];
  if (a.flatten_to_2d) boxes = Shape{h < 0 || w < 0 ? kUnknown : h * w * p, 4};
  else boxes = Shape{h, w, p, 4};
  vars = boxes;
  vars.d[vars.rank - 1] = static_cast<int64_t>(a.variances.size());
  if (a.variances.size() != 4) return fmt::format("variances has {} values, needs 4", a.variances.size());
  return {};
}

/// row_conv: X [T, D] (LoD) or [B, T, D]; Filter [context, D].
inline std::string row_conv_check(const Shape& x, const Shape& filter) {
  if (x.rank != 2 && x.rank != 3) return fmt::format("X {} must be [T, D] (LoD) or [B, T, D]", x.str());
  if (filter.rank != 2) return fmt::format("Filter {} must be [context, D]", filter.str());
  const int64_t d = x.d[x.rank - 1];
  if (d >= 0 && filter.d[1] >= 0 && d != filter.d[1])
    return fmt::format("Filter {} must have X {}'s width {}", filter.str(), x.str(), d);
  return {};
}

}  // namespace fluidc::shapes
