// kernels/shapes/fill.h - the shape rule of the ops that create a tensor from a `shape` attribute, for kernels and compiler.
#pragma once

#include <vector>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// fill_constant, uniform_random, gaussian_random: Out has exactly the
/// `shape` attribute (rank <= 9, no negative dim: a run-time shape tensor is
/// not supported).
inline std::string shape_attr_shape(const std::vector<int64_t>& v, Shape& out) {
  if (v.size() > static_cast<size_t>(Shape::kMaxRank))
    return fmt::format("shape attribute has rank {} (> 9)", v.size());
  out = Shape::from(v.data(), static_cast<int>(v.size()));
  for (int i = 0; i < out.rank; ++i)
    if (out.d[i] < 0) return fmt::format("shape attribute {} has a negative dim", out.str());
  return {};
}

}  // namespace fluidc::shapes
