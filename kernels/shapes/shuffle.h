// kernels/shapes/shuffle.h - pixel/channel shuffles as 6-D transposes, and maxout's grouping, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/shuffle.h"

namespace fluidc::shapes {

/// X viewed as 6-D `in`; Out dim k is `in` dim perm[k] (a transpose).
struct Permute6 {
  int64_t in[6] = {1, 1, 1, 1, 1, 1};
  int perm[6] = {0, 1, 2, 3, 4, 5};
};

inline std::string layout_of(const std::string& f, bool& channel_last) {
  if (f == "NCHW" || f == "AnyLayout" || f.empty()) channel_last = false;
  else if (f == "NHWC") channel_last = true;
  else return fmt::format("data_format {} is neither NCHW nor NHWC", f);
  return {};
}

inline std::string rank4(const Shape& x) {
  return x.rank == 4 ? std::string() : fmt::format("X {} must have rank 4", x.str());
}

/// pixel_shuffle (up = true, factor r) or pixel_unshuffle (up = false).
inline std::string pixel_shuffle_plan(const Shape& x, int r, const std::string& format, bool up, Permute6& p,
                                      Shape& out) {
  bool last = false;
  if (std::string e = layout_of(format, last); !e.empty()) return e;
  if (std::string e = rank4(x); !e.empty()) return e;
  if (r < 1) return fmt::format("{} {} must be positive", up ? "upscale_factor" : "downscale_factor", r);
  const int64_t N = x.d[0], C = last ? x.d[3] : x.d[1], H = last ? x.d[1] : x.d[2], W = last ? x.d[2] : x.d[3];
  const int64_t rr = static_cast<int64_t>(r) * r;
  auto set = [&](std::initializer_list<int64_t> in, std::initializer_list<int> perm) {
    int k = 0;
    for (int64_t v : in) p.in[k++] = v;
    k = 0;
    for (int v : perm) p.perm[k++] = v;
  };
  out = x;
  const int ci = last ? 3 : 1, hi = last ? 1 : 2, wi = last ? 2 : 3;
  if (up) {
    if (C >= 0 && C % rr) return fmt::format("X's {} channels are not a multiple of {}^2", C, r);
    out.d[ci] = C < 0 ? kUnknown : C / rr;
    out.d[hi] = H < 0 ? kUnknown : H * r;
    out.d[wi] = W < 0 ? kUnknown : W * r;
    if (!last) set({N, C / rr, r, r, H, W}, {0, 1, 4, 2, 5, 3});  // -> N, C, H, r, W, r
    else set({N, H, W, C / rr, r, r}, {0, 1, 4, 2, 5, 3});        // -> N, H, r, W, r, C
    return {};
  }
  if ((H >= 0 && H % r) || (W >= 0 && W % r)) return fmt::format("X's H {} and W {} are not multiples of {}", H, W, r);
  out.d[ci] = C < 0 ? kUnknown : C * rr;
  out.d[hi] = H < 0 ? kUnknown : H / r;
  out.d[wi] = W < 0 ? kUnknown : W / r;
  if (!last) set({N, C, H / r, r, W / r, r}, {0, 1, 3, 5, 2, 4});  // -> N, C, r, r, H, W
  else set({N, H / r, r, W / r, r, C}, {0, 1, 3, 5, 2, 4});        // -> N, H, W, C, r, r
  return {};
}

/// channel_shuffle: [.., groups, C/groups, ..] -> [.., C/groups, groups, ..].
inline std::string channel_shuffle_plan(const Shape& x, const kernels::ChannelShuffleAttrs& a, Permute6& p,
                                        Shape& out) {
  bool last = false;
  if (std::string e = layout_of(a.data_format, last); !e.empty()) return e;
  if (std::string e = rank4(x); !e.empty()) return e;
  const int64_t C = last ? x.d[3] : x.d[1], g = a.groups;
  if (g < 1) return fmt::format("groups {} must be positive", g);
  if (C >= 0 && C % g) return fmt::format("X's {} channels are not a multiple of groups {}", C, g);
  out = x;
  const int64_t outer = last ? x.d[0] * x.d[1] * x.d[2] : x.d[0], inner = last ? 1 : x.d[2] * x.d[3];
  const int64_t in[6] = {outer, g, C / g, inner, 1, 1};
  const int perm[6] = {0, 2, 1, 3, 4, 5};
  for (int k = 0; k < 6; ++k) p.in[k] = in[k], p.perm[k] = perm[k];
  return {};
}

/// maxout: X [outer, C, inner] around `axis`, Out [outer, C/groups, inner].
struct MaxoutGeom {
  int64_t outer = 1, c = 1, inner = 1, groups = 1;
};

inline std::string maxout_geom(const Shape& x, const kernels::MaxoutAttrs& a, MaxoutGeom& g, Shape& out) {
  if (x.rank != 4) return fmt::format("X {} must have rank 4", x.str());
  const int axis = a.axis < 0 ? a.axis + x.rank : a.axis;
  if (axis != 1 && axis != 3) return fmt::format("axis {} must be 1, 3 or -1", a.axis);
  if (a.groups < 1) return fmt::format("groups {} must be positive", a.groups);
  const int64_t C = x.d[axis];
  if (C >= 0 && C % a.groups) return fmt::format("X's {} channels are not a multiple of groups {}", C, a.groups);
  g.outer = numel_of(x, 0, axis);
  g.inner = numel_of(x, axis + 1, x.rank);
  g.c = C;
  g.groups = a.groups;
  out = x;
  out.d[axis] = C < 0 ? kUnknown : C / a.groups;
  return {};
}

}  // namespace fluidc::shapes
