// kernels/shapes/roi_align.h - shape rules of roi_align and the region-pooling ops that share its bins, for the kernels and the compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/roi_align.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// The region-pooling ops' common rule: X [N, C, H, W], ROIs [R, 4],
/// RoisNum [N] (may be null), bins pooled_height x pooled_width, a positive
/// spatial_scale -> Out [R, C, pooled_height, pooled_width].
inline std::string roi_bins_shape(const Shape& x, const Shape& rois, const Shape* rois_num, int pooled_height,
                                  int pooled_width, float spatial_scale, Shape& out) {
  if (pooled_height < 1 || pooled_width < 1)
    return fmt::format("pooled_height {} and pooled_width {} must be positive", pooled_height, pooled_width);
  if (!(spatial_scale > 0.0f)) return fmt::format("spatial_scale {} must be positive", spatial_scale);
  if (x.rank != 4) return fmt::format("X must be 4-D NCHW, got {}", x.str());
  if (rois.rank != 2 || !dims_agree(rois.d[1], 4)) return fmt::format("ROIs must be [R, 4], got {}", rois.str());
  if (rois_num && (rois_num->rank != 1 || !dims_agree(rois_num->d[0], x.d[0])))
    return fmt::format("RoisNum must be [N] with N = {} images, got {}", x.d[0], rois_num->str());
  out = Shape{rois.d[0], x.d[1], pooled_height, pooled_width};
  return {};
}

/// X [N, C, H, W], ROIs [R, 4], RoisNum [N] (may be null) -> Out [R, C, pooled_height, pooled_width].
inline std::string roi_align_shape(const Shape& x, const Shape& rois, const Shape* rois_num,
                                   const kernels::RoiAlignAttrs& a, Shape& out) {
  return roi_bins_shape(x, rois, rois_num, a.pooled_height, a.pooled_width, a.spatial_scale, out);
}

}  // namespace fluidc::shapes
