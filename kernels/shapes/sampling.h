// kernels/shapes/sampling.h - shape rules of grid_sampler and deformable_conv, for the kernels and the compiler.
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>

#include "kernels/sampling.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// affine_grid: Theta [N, 2, 3] and an output shape [N, C, H, W] -> [N, H, W, 2];
/// Theta [N, 3, 4] and [N, C, D, H, W] -> [N, D, H, W, 3]. `size` is the
/// output shape (unknown entries kUnknown); Theta's batch must match it.
inline std::string affine_grid_shape(const Shape& theta, const std::vector<int64_t>& size, Shape& out) {
  if (theta.rank != 3 || !((theta[1] == 2 && theta[2] == 3) || (theta[1] == 3 && theta[2] == 4)))
    return fmt::format("Theta must be [N, 2, 3] or [N, 3, 4], got {}", theta.str());
  const int64_t spatial = theta[1];
  if (static_cast<int64_t>(size.size()) != spatial + 2)
    return fmt::format("the output shape must have {} values for Theta {}, got {}", spatial + 2, theta.str(),
                       size.size());
  for (int64_t v : size)
    if (v != kUnknown && v < 1) return fmt::format("the output shape's values must be positive, got {}", v);
  if (theta[0] != kUnknown && size[0] != kUnknown && theta[0] != size[0])
    return fmt::format("Theta has batch {} but the output shape's is {}", theta[0], size[0]);
  out.rank = static_cast<int>(spatial + 2);
  out[0] = theta[0] != kUnknown ? theta[0] : size[0];
  for (int64_t i = 0; i < spatial; ++i) out[static_cast<int>(i) + 1] = size[static_cast<size_t>(i) + 2];
  out[static_cast<int>(spatial) + 1] = spatial;
  return {};
}

/// grid_sampler: X [N, C, H, W], Grid [N, Ho, Wo, 2] -> Output [N, C, Ho, Wo];
/// volumetric: X [N, C, D, H, W], Grid [N, Do, Ho, Wo, 3] -> [N, C, Do, Ho, Wo].
inline std::string grid_sampler_shape(const Shape& x, const Shape& grid, const kernels::GridSamplerAttrs& a,
                                      Shape& out) {
  if (a.mode != "bilinear" && a.mode != "nearest")
    return fmt::format("mode must be \"bilinear\" or \"nearest\", got a {}-byte other string", a.mode.size());
  if (a.padding_mode != "zeros" && a.padding_mode != "border" && a.padding_mode != "reflection")
    return "padding_mode must be \"zeros\", \"border\" or \"reflection\"";
  if (x.rank != 4 && x.rank != 5) return fmt::format("X must be 4-D NCHW or 5-D NCDHW, got {}", x.str());
  const int spatial = x.rank - 2;
  if (grid.rank != x.rank || !dims_agree(grid.d[x.rank - 1], spatial))
    return spatial == 2 ? fmt::format("Grid must be [N, H_out, W_out, 2] for a 4-D X, got {}", grid.str())
                        : fmt::format("Grid must be [N, D_out, H_out, W_out, 3] for a 5-D X, got {}", grid.str());
  if (!dims_agree(x.d[0], grid.d[0]))
    return fmt::format("X has batch {} but Grid has {}", x.d[0], grid.d[0]);
  out = x;
  out.d[0] = x.d[0] >= 0 ? x.d[0] : grid.d[0];
  for (int i = 0; i < spatial; ++i) out.d[2 + i] = grid.d[1 + i];
  return {};
}

/// deformable_conv's Output [N, Cout, Ho, Wo]; Offset and Mask (mask
/// nullptr for v1) must match the taps and the output's spatial dims.
inline std::string deformable_conv_shape(const Shape& x, const Shape& offset, const Shape* mask, const Shape& w,
                                         const kernels::DeformableConvAttrs& a, Shape& out) {
  for (auto [v, what] : {std::pair{&a.strides, "strides"}, std::pair{&a.paddings, "paddings"},
                         std::pair{&a.dilations, "dilations"}})
    if (v->size() != 2) return fmt::format("{} must have 2 values, got {}", what, v->size());
  if (a.strides[0] < 1 || a.strides[1] < 1 || a.dilations[0] < 1 || a.dilations[1] < 1 || a.paddings[0] < 0 ||
      a.paddings[1] < 0)
    return "strides and dilations must be >= 1 and paddings >= 0";
  if (a.groups < 1 || a.deformable_groups < 1) return "groups and deformable_groups must be >= 1";
  if (x.rank != 4 || w.rank != 4 || offset.rank != 4 || (mask && mask->rank != 4))
    return fmt::format("Input, Offset, Mask and Filter must be 4-D, got {}, {}, {}, {}", x.str(), offset.str(),
                       mask ? mask->str() : "-", w.str());
  const int64_t cin = x.d[1], cout = w.d[0], kh = w.d[2], kw = w.d[3];
  if (cin >= 0 && (cin % a.groups || cin % a.deformable_groups))
    return fmt::format("Input's {} channels do not divide into {} groups and {} deformable groups", cin, a.groups,
                       a.deformable_groups);
  if (cout >= 0 && cout % a.groups) return fmt::format("Filter's {} outputs do not divide into {} groups", cout, a.groups);
  if (!dims_agree(w.d[1], cin < 0 ? kUnknown : cin / a.groups))
    return fmt::format("Filter {} needs Input channels / groups = {} in dim 1", w.str(), cin / a.groups);
  auto out_dim = [](int64_t in, int64_t k, int s, int p, int d) -> int64_t {
    if (in < 0 || k < 0) return kUnknown;
    const int64_t span = static_cast<int64_t>(d) * (k - 1) + 1;
    return (in + 2 * p - span) / s + 1;
  };
  const int64_t ho = out_dim(x.d[2], kh, a.strides[0], a.paddings[0], a.dilations[0]);
  const int64_t wo = out_dim(x.d[3], kw, a.strides[1], a.paddings[1], a.dilations[1]);
  if ((ho != kUnknown && ho < 1) || (wo != kUnknown && wo < 1))
    return fmt::format("the kernel {}x{} does not fit Input {} with these paddings and dilations", kh, kw, x.str());
  const int64_t taps = kh < 0 || kw < 0 ? kUnknown : a.deformable_groups * kh * kw;
  if (!dims_agree(offset.d[0], x.d[0]) || !dims_agree(offset.d[1], taps < 0 ? kUnknown : 2 * taps) ||
      !dims_agree(offset.d[2], ho) || !dims_agree(offset.d[3], wo))
    return fmt::format("Offset is {} but needs [N, 2 * {} taps, {}, {}]", offset.str(), taps, ho, wo);
  if (mask && (!dims_agree(mask->d[0], x.d[0]) || !dims_agree(mask->d[1], taps) || !dims_agree(mask->d[2], ho) ||
               !dims_agree(mask->d[3], wo)))
    return fmt::format("Mask is {} but needs [N, {} taps, {}, {}]", mask->str(), taps, ho, wo);
  out = Shape{x.d[0], cout, ho, wo};
  return {};
}

}  // namespace fluidc::shapes
