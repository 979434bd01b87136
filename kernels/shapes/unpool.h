// kernels/shapes/unpool.h - shape rule of unpool, for the kernels and the compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/unpool.h"

namespace fluidc::shapes {

/// X [N, C, H, W], Indices X's shape -> Out [N, C, output_size] (or the
/// size ksize, strides and paddings give, when output_size is unset).
inline std::string unpool_shape(const Shape& x, const Shape& indices, const kernels::UnpoolAttrs& a, Shape& out) {
  if (a.unpooling_type != "max") return "unpooling_type must be \"max\"";
  if (a.data_format != "NCHW") return "data_format must be NCHW";
  if (x.rank != 4) return fmt::format("X must be 4-D NCHW, got {}", x.str());
  if (indices.rank != 4) return fmt::format("Indices must be X's shape {}, got {}", x.str(), indices.str());
  for (int i = 0; i < 4; ++i)
    if (!dims_agree(x.d[i], indices.d[i])) return fmt::format("Indices must be X's shape {}, got {}", x.str(), indices.str());
  if (a.ksize.size() != 2 || a.strides.size() != 2 || a.paddings.size() != 2)
    return fmt::format("ksize, strides and paddings must have 2 values each, got {}, {} and {}", a.ksize.size(),
                       a.strides.size(), a.paddings.size());
  const bool unset = a.output_size.empty() || (a.output_size.size() == 2 && a.output_size[0] == 0 && a.output_size[1] == 0);
  if (!unset && a.output_size.size() != 2)
    return fmt::format("output_size must have 2 values, got {}", a.output_size.size());
  out = Shape{x.d[0], x.d[1], -1, -1};
  for (size_t i = 0; i < 2; ++i) {
    int64_t& o = out.d[2 + i];
    if (!unset) {
      o = a.output_size[i];
    } else {
      if (a.strides[i] < 1 || a.paddings[i] < 0 || a.ksize[i] < 1 || a.strides[i] > (1 << 20) ||
          a.paddings[i] > (1 << 20) || a.ksize[i] > (1 << 20))
        return fmt::format("ksize {}, strides {} and paddings {} must be positive (paddings >= 0) and at most 2^20",
                           a.ksize[i], a.strides[i], a.paddings[i]);
      if (x.d[2 + i] < 0) continue;  // known at run time
      if (x.d[2 + i] > (int64_t{1} << 40)) return fmt::format("X {} is too large to unpool", x.str());
      o = (x.d[2 + i] - 1) * a.strides[i] - 2 * int64_t{a.paddings[i]} + a.ksize[i];
    }
    if (o < 1) return fmt::format("the output size (dim {} is {}) must be positive", i, o);
  }
  return {};
}

}  // namespace fluidc::shapes
