// kernels/shapes/interp_nd.h - output size and source step of linear (1-D), trilinear (3-D) and bicubic (2-D) interpolation.
//
// The same request as the 2-D ops (kernels/shapes/interp.h: InterpAttrs,
// InterpSources, Paddle's step rule) over 1 to 3 spatial dims; the last
// `dims` of [out_d, out_h, out_w] are the attribute sizes.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/shapes/interp.h"

namespace fluidc::shapes {

/// The sampling of the N-D ops: linear (1-D, 3-D) blends 2 inputs per dim,
/// cubic (bicubic, 2-D) 4 with Keys' kernel (a = -0.75).
enum class InterpKind { kLinear, kCubic };

struct InterpGeomNd {
  int dims = 0;  ///< spatial dims: 1, 2 or 3
  bool channel_last = false;
  InterpKind kind = InterpKind::kLinear;
  bool align_corners = true;
  bool half_pixel = false;  ///< samples at (o + 0.5) * ratio - 0.5
  int64_t n = 0, c = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};  ///< spatial sizes, the first `dims` used
  float ratio[3] = {0, 0, 0};
};

/// `method`: the interp_method the op takes ("linear", "trilinear",
/// "bicubic"); `dims` its spatial rank. Paddle's rules: SizeTensor gives the
/// sizes; otherwise a scale (the Scale tensor, one value for every dim or
/// one per dim; else the attribute, one per dim, or one for a 1-D op) sizes
/// them as float(in) * scale truncated and sets the step to 1/scale; OutSize
/// then overrides the sizes. Linear samples half-pixel with align_mode 0,
/// cubic whenever align_corners is false. The v1 ops (`a.v1_step`) take
/// the Scale tensor's first value for every dim and never step by 1/scale.
inline std::string interp_nd_geom(const Shape& x, const kernels::InterpAttrs& a, int dims, const char* method,
                                  InterpKind kind, const InterpSources& src, InterpGeomNd& g, Shape& out) {
  if (x.rank != dims + 2) return fmt::format("X {} must have rank {} ({} spatial dims)", x.str(), dims + 2, dims);
  const std::string& l = a.data_layout;
  if (l == "NHWC" || l == "NWC" || l == "NDHWC") g.channel_last = true;
  else if (l == "NCHW" || l == "NCW" || l == "NCDHW" || l == "AnyLayout") g.channel_last = false;
  else return fmt::format("data_layout {} is neither channel-first nor channel-last", l);
  if (a.interp_method != method)
    return fmt::format("interp_method {} is not supported by this op ({})", a.interp_method, method);
  if (!a.align_corners && a.align_mode != 0 && a.align_mode != 1)
    return fmt::format("align_mode must be 0 or 1, got {}", a.align_mode);
  g.dims = dims;
  g.kind = kind;
  g.align_corners = a.align_corners;
  g.half_pixel = !a.align_corners && (kind == InterpKind::kCubic || a.align_mode == 0);
  const int sp = g.channel_last ? 1 : 2;  // first spatial dim of X
  g.n = x.d[0];
  g.c = g.channel_last ? x.d[x.rank - 1] : x.d[1];
  const int attr_size[3] = {a.out_d, a.out_h, a.out_w};
  float scale[3] = {-1, -1, -1};
  int64_t size[3];
  bool unknown = !src.values && (src.size || src.out_size || src.scale);
  for (int i = 0; i < dims; ++i) {
    g.in[i] = x.d[sp + i];
    size[i] = attr_size[3 - dims + i];
  }
  if (src.size) {
    for (int i = 0; i < dims; ++i) size[i] = src.size_hw[i];
  } else {
    bool scaled = false;
    if (src.scale) {
      scaled = true;
      for (int i = 0; i < dims; ++i) scale[i] = a.v1_step ? src.scale_hw[0] : src.scale_hw[i];  // v1: one value
    } else if (static_cast<int>(a.scale.size()) >= dims || (dims == 1 && !a.scale.empty())) {
      scaled = true;
      for (int i = 0; i < dims; ++i) scale[i] = a.scale[i];
    }
    for (int i = 0; scaled && src.values && i < dims; ++i)
      if (!(scale[i] > 0)) return fmt::format("scale must be positive, got {} for spatial dim {}", scale[i], i);
    for (int i = 0; scaled && i < dims; ++i) {
      if (g.in[i] < 0) unknown = true;
      else size[i] = static_cast<int64_t>(static_cast<float>(g.in[i]) * scale[i]);  // truncated, as Paddle
    }
    if (src.out_size)
      for (int i = 0; i < dims; ++i) size[i] = src.out_size_hw[i];
  }
  out = x;
  if (unknown) {
    for (int i = 0; i < dims; ++i) out.d[sp + i] = g.out[i] = kUnknown;
    return "";
  }
  for (int i = 0; i < dims; ++i) {
    if (size[i] <= 0) return fmt::format("output size {} of spatial dim {} must be positive", size[i], i);
    out.d[sp + i] = g.out[i] = size[i];
    g.ratio[i] = detail::interp_ratio(g.in[i], size[i], a.align_corners, a.v1_step ? -1.f : scale[i]);
  }
  return "";
}

}  // namespace fluidc::shapes
