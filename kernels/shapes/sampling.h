// kernels/shapes/sampling.h - shape rules of grid_sampler and deformable_conv, for the kernels and the compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/sampling.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// grid_sampler: X [N, C, H, W], Grid [N, Ho, Wo, 2] -> Output [N, C, Ho, Wo].
inline std::string grid_sampler_shape(const Shape& x, const Shape& grid, const kernels::GridSamplerAttrs& a,
                                      Shape& out) {
  if (a.mode != "bilinear" && a.mode != "nearest")
    return fmt::format("mode must be \"bilinear\" or \"nearest\", got a {}-byte other string", a.mode.size());
  if (a.padding_mode != "zeros" && a.padding_mode != "border" && a.padding_mode != "reflection")
    return "padding_mode must be \"zeros\", \"border\" or \"reflection\"";
  if (x.rank != 4) return fmt::format("X must be 4-D NCHW (5-D sampling is not supported), got {}", x.str());
  if (grid.rank != 4 || !dims_agree(grid.d[3], 2))
    return fmt::format("Grid must be [N, H_out, W_out, 2], got {}", grid.str());
  if (!dims_agree(x.d[0], grid.d[0]))
    return fmt::format("X has batch {} but Grid has {}", x.d[0], grid.d[0]);
  out = Shape{x.d[0] >= 0 ? x.d[0] : grid.d[0], x.d[1], grid.d[1], grid.d[2]};
  return {};
}

}  // namespace fluidc::shapes
