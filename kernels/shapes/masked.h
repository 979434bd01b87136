// kernels/shapes/masked.h - shape rules of where_index and masked_select (lengths known only at run time), for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Condition of rank r -> Out [K, r], K unknown until the values are.
inline std::string where_index_shape(const Shape& cond, Shape& out) {
  out = Shape{kUnknown, cond.rank};
  return {};
}

/// X and Mask broadcast by numpy's rule into `common`; Y is [K], K unknown.
inline std::string masked_select_shape(const Shape& x, const Shape& mask, Shape& xa, Shape& ma, Shape& common,
                                       Shape& y) {
  if (std::string e = broadcast_numpy(x, mask, xa, ma, common); !e.empty())
    return "X and Mask: " + e;
  y = Shape{kUnknown};
  return {};
}

}  // namespace fluidc::shapes
