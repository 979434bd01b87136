// kernels/shapes/interp.h - output size and source step of the interpolation ops, for kernels and compiler.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/interp.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// The size inputs a program computes at run time, one value per spatial
/// dim (the 2-D ops use the first two: h, w). The kernel fills the values;
/// the compiler only says which are present (`values` false), and their
/// dims are then unknown until run time.
struct InterpSources {
  bool values = true;
  bool size = false, out_size = false, scale = false;  ///< SizeTensor, OutSize, Scale present
  int64_t size_hw[3] = {0, 0, 0}, out_size_hw[3] = {0, 0, 0};
  float scale_hw[3] = {0, 0, 0};
};

/// Where the dims are and how output pixels map to input ones.
struct InterpGeom {
  bool channel_last = false;
  bool nearest = false;
  bool align_corners = true;
  bool half_pixel = false;  ///< bilinear samples at (o + 0.5) * ratio - 0.5 (align_mode 0, no align_corners)
  int64_t n = 0, c = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  float ratio_h = 0, ratio_w = 0;  ///< source step per output pixel
};

namespace detail {
// Paddle's step: (in - 1) / (out - 1) with align_corners, else 1/scale when
// a scale was given, else in / out; 0 for an output of one pixel.
inline float interp_ratio(int64_t in, int64_t out, bool align_corners, float scale) {
  if (out <= 1) return 0.f;
  if (align_corners) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  return scale > 0 ? static_cast<float>(1. / scale) : static_cast<float>(in) / static_cast<float>(out);
}
}  // namespace detail

/// The geometry of resizing X (rank 4) with `a` and the run-time sources
/// `src`; `out` gets X's shape with the new spatial dims (kUnknown where
/// they depend on values the compiler does not have).
inline std::string interp_geom(const Shape& x, const kernels::InterpAttrs& a, const InterpSources& src,
                               InterpGeom& g, Shape& out) {
  if (x.rank != 4) return fmt::format("X {} must have rank 4 (the 2-D interpolation ops)", x.str());
  if (a.data_layout == "NHWC") g.channel_last = true;
  else if (a.data_layout == "NCHW" || a.data_layout == "AnyLayout") g.channel_last = false;
  else return fmt::format("data_layout {} is neither NCHW nor NHWC", a.data_layout);
  if (a.interp_method == "nearest") g.nearest = true;
  else if (a.interp_method == "bilinear") g.nearest = false;
  else return fmt::format("interp_method {} is not supported (nearest, bilinear)", a.interp_method);
  if (!a.align_corners && a.align_mode != 0 && a.align_mode != 1)
    return fmt::format("align_mode must be 0 or 1, got {}", a.align_mode);
  g.align_corners = a.align_corners;
  g.half_pixel = !g.nearest && a.align_mode == 0 && !a.align_corners;
  const int hd = g.channel_last ? 1 : 2;
  g.n = x.d[0];
  g.c = g.channel_last ? x.d[3] : x.d[1];
  g.in_h = x.d[hd];
  g.in_w = x.d[hd + 1];

  float scale_h = -1, scale_w = -1;
  int64_t oh = a.out_h, ow = a.out_w;
  bool unknown = !src.values && (src.size || src.out_size || src.scale);
  if (src.size) {
    oh = src.size_hw[0], ow = src.size_hw[1];
  } else {
    if (src.scale) {
      scale_h = src.scale_hw[0], scale_w = a.v1_step ? src.scale_hw[0] : src.scale_hw[1];
      if (src.values && !(scale_h > 0 && scale_w > 0))
        return fmt::format("Scale must be positive, got [{}, {}]", scale_h, scale_w);
    } else if (a.scale.size() > 1) {
      scale_h = a.scale[0], scale_w = a.scale[1];
      if (!(scale_h > 0 && scale_w > 0)) return fmt::format("scale must be positive, got [{}, {}]", scale_h, scale_w);
    }
    if (scale_h > 0 && scale_w > 0 && g.in_h >= 0 && g.in_w >= 0) {
      // float products truncated, as Paddle sizes them (5 * 1.5 -> 7)
      oh = static_cast<int64_t>(static_cast<float>(g.in_h) * scale_h);
      ow = static_cast<int64_t>(static_cast<float>(g.in_w) * scale_w);
    } else if (scale_h > 0 && scale_w > 0) {
      unknown = true;
    }
    if (src.out_size) oh = src.out_size_hw[0], ow = src.out_size_hw[1];
  }
  out = x;
  if (unknown) {
    out.d[hd] = out.d[hd + 1] = kUnknown;
    g.out_h = g.out_w = kUnknown;
    return "";
  }
  if (oh <= 0 || ow <= 0) return fmt::format("output size [{}, {}] must be positive", oh, ow);
  out.d[hd] = g.out_h = oh;
  out.d[hd + 1] = g.out_w = ow;
  g.ratio_h = detail::interp_ratio(g.in_h, oh, a.align_corners, a.v1_step ? -1.f : scale_h);
  g.ratio_w = detail::interp_ratio(g.in_w, ow, a.align_corners, a.v1_step ? -1.f : scale_w);
  return "";
}

}  // namespace fluidc::shapes
