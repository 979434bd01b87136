// kernels/shapes/norm.h - shape rules of batch_norm, layer_norm, instance_norm and group_norm, for kernels and compiler.
#pragma once

#include "kernels/norm.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// The channel dim of X under a data layout ("NCHW" or "NHWC"); -1 when
/// the layout is unknown or X has rank < 2.
inline int channel_dim(const Shape& x, const std::string& layout) {
  if (x.rank < 2) return -1;
  if (layout == "NHWC" || layout == "NDHWC" || layout == "NLC") return x.rank - 1;
  if (layout == "NCHW" || layout == "NCDHW" || layout == "NCL" || layout == "NC" || layout == "AnyLayout") return 1;
  return -1;
}

/// batch_norm: Y has X's shape; the statistics and Scale/Bias are [C].
inline std::string batch_norm_shape(const Shape& x, const kernels::BatchNormAttrs& a, int& cdim, Shape& stats) {
  cdim = channel_dim(x, a.data_layout);
  if (x.rank < 2) return fmt::format("X {} must have rank >= 2", x.str());
  if (cdim < 0) return fmt::format("data_layout {} is not supported", a.data_layout);
  stats = Shape{x.d[cdim]};
  return {};
}

/// layer_norm: X split at begin_norm_axis into left x right; Mean and
/// Variance are [left].
inline std::string layer_norm_shape(const Shape& x, const kernels::LayerNormAttrs& a, int64_t& left,
                                    int64_t& right, Shape& stats) {
  if (a.begin_norm_axis < 1 || a.begin_norm_axis >= x.rank)
    return fmt::format("begin_norm_axis {} must be in [1, {}) for X {}", a.begin_norm_axis, x.rank, x.str());
  left = right = 1;
  for (int i = 0; i < x.rank; ++i) {
    int64_t& side = i < a.begin_norm_axis ? left : right;
    side = (side == kUnknown || x.d[i] == kUnknown) ? kUnknown : side * x.d[i];
  }
  stats = Shape{left};
  return {};
}

/// instance_norm: X [N, C, ...]; SavedMean/SavedVariance are [N*C].
inline std::string instance_norm_shape(const Shape& x, Shape& stats) {
  if (x.rank < 2) return fmt::format("X {} must have rank >= 2", x.str());
  stats = Shape{(x.d[0] == kUnknown || x.d[1] == kUnknown) ? kUnknown : x.d[0] * x.d[1]};
  return {};
}

/// group_norm: C divisible by groups; Mean/Variance are [N, groups].
inline std::string group_norm_shape(const Shape& x, const kernels::GroupNormAttrs& a, int& cdim, Shape& stats) {
  if (x.rank < 2) return fmt::format("X {} must have rank >= 2", x.str());
  cdim = channel_dim(x, a.data_layout);
  if (cdim < 0) return fmt::format("data_layout {} is not supported", a.data_layout);
  if (a.groups < 1) return fmt::format("groups {} must be positive", a.groups);
  const int64_t c = x.d[cdim];
  if (c != kUnknown && c % a.groups != 0)
    return fmt::format("{} channels do not split into {} groups", c, a.groups);
  stats = Shape{x.d[0], a.groups};
  return {};
}

}  // namespace fluidc::shapes
