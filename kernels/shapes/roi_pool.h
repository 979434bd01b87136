// kernels/shapes/roi_pool.h - shape rules of roi_pool and psroi_pool, for the kernels and the compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/roi_pool.h"
#include "kernels/shapes/roi_align.h"

namespace fluidc::shapes {

/// X [N, C, H, W], ROIs [R, 4], RoisNum [N] (may be null) -> Out and Argmax [R, C, pooled_height, pooled_width].
inline std::string roi_pool_shape(const Shape& x, const Shape& rois, const Shape* rois_num,
                                  const kernels::RoiPoolAttrs& a, Shape& out) {
  return roi_bins_shape(x, rois, rois_num, a.pooled_height, a.pooled_width, a.spatial_scale, out);
}

/// X [N, output_channels * pooled_height * pooled_width, H, W], ROIs [R, 4],
/// RoisNum [N] -> Out [R, output_channels, pooled_height, pooled_width].
inline std::string psroi_pool_shape(const Shape& x, const Shape& rois, const Shape* rois_num,
                                    const kernels::PsroiPoolAttrs& a, Shape& out) {
  if (a.output_channels < 1) return fmt::format("output_channels {} must be positive", a.output_channels);
  if (std::string e = roi_bins_shape(x, rois, rois_num, a.pooled_height, a.pooled_width, a.spatial_scale, out);
      !e.empty())
    return e;
  // Divided rather than multiplied: three attributes' product (program data) may overflow 64 bits.
  const int64_t bins = int64_t{a.pooled_height} * a.pooled_width;
  if (x.d[1] >= 0 && (x.d[1] % bins != 0 || x.d[1] / bins != a.output_channels))
    return fmt::format("X has {} channels but output_channels {} x pooled {} x {} differs", x.d[1],
                       a.output_channels, a.pooled_height, a.pooled_width);
  out.d[1] = a.output_channels;
  return {};
}

}  // namespace fluidc::shapes
