// kernels/shapes/vision_legacy.h - shape rules of affine_channel, lrn, norm, temporal_shift, index_sample (kernels and compiler).
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/vision_legacy.h"

namespace fluidc::shapes {

/// affine_channel's channel axis: 1 for "NCHW", the last for any other
/// layout (Paddle's rule, under which its default "AnyLayout" is channel-last).
inline std::string affine_channel_axis(const Shape& x, const kernels::AffineChannelAttrs& a, int& axis) {
  if (x.rank < 2) return fmt::format("X {} must have rank 2 or more", x.str());
  axis = a.data_layout == "NCHW" ? 1 : x.rank - 1;
  return {};
}

/// lrn's channel axis (3 for "NHWC", else 1) for a rank-4 X; n must be
/// positive and odd (Paddle's check: the window is centred on the channel).
inline std::string lrn_axis(const Shape& x, const kernels::LrnAttrs& a, int& axis) {
  if (x.rank != 4) return fmt::format("X {} must have rank 4", x.str());
  if (a.n < 1 || a.n % 2 == 0) return fmt::format("n {} must be a positive odd number", a.n);
  axis = a.data_format == "NHWC" ? 3 : 1;
  return {};
}

/// norm: `axis` (negative from the end) within X's rank; Norm's shape is X's
/// with that dim 1.
inline std::string norm_shape(const Shape& x, int axis, int& a, Shape& norm) {
  a = axis < 0 ? axis + x.rank : axis;
  if (x.rank < 1 || a < 0 || a >= x.rank) return fmt::format("axis {} is out of range for X {}", axis, x.str());
  norm = x;
  norm.d[a] = 1;
  return {};
}

/// temporal_shift: a rank-4 X whose batch is a multiple of seg_num, a known
/// layout, a shift ratio in [0, 1] (Paddle checks none; past 0.5 the bands
/// cover every channel, and a NaN or huge ratio would make the band ends
/// meaningless).
inline std::string temporal_shift_check(const Shape& x, const kernels::TemporalShiftAttrs& a, bool& channel_last) {
  if (x.rank != 4) return fmt::format("X {} must have rank 4", x.str());
  if (a.data_format == "NCHW") channel_last = false;
  else if (a.data_format == "NHWC") channel_last = true;
  else return fmt::format("data_format {} is neither NCHW nor NHWC", a.data_format);
  if (a.seg_num < 1) return fmt::format("seg_num {} must be positive", a.seg_num);
  if (!(a.shift_ratio >= 0.0f && a.shift_ratio <= 1.0f))
    return fmt::format("shift_ratio {} is outside [0, 1]", a.shift_ratio);
  if (x.d[0] >= 0 && x.d[0] % a.seg_num)
    return fmt::format("X's batch {} is not a multiple of seg_num {}", x.d[0], a.seg_num);
  return {};
}

/// index_sample: X [N, M], Index [N, K] -> Out [N, K].
inline std::string index_sample_shape(const Shape& x, const Shape& index, Shape& out) {
  if (x.rank != 2 || index.rank != 2)
    return fmt::format("X {} and Index {} must both have rank 2", x.str(), index.str());
  if (x.d[0] >= 0 && index.d[0] >= 0 && x.d[0] != index.d[0])
    return fmt::format("X {} and Index {} differ in their first dim", x.str(), index.str());
  out = Shape{x.d[0] >= 0 ? x.d[0] : index.d[0], index.d[1]};
  return {};
}

}  // namespace fluidc::shapes
