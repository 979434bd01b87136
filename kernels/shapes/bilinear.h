// kernels/shapes/bilinear.h - shape rule of bilinear_tensor_product, for the kernels and the compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// X [B, M], Y [B, N], Weight [K, M, N], Bias [1, K] (may be null) -> Out [B, K].
inline std::string bilinear_tensor_product_shape(const Shape& x, const Shape& y, const Shape& w, const Shape* bias,
                                                 Shape& out) {
  if (x.rank != 2 || y.rank != 2) return fmt::format("X and Y must be 2-D, got {} and {}", x.str(), y.str());
  if (w.rank != 3) return fmt::format("Weight must be [K, M, N], got {}", w.str());
  if (!dims_agree(x.d[0], y.d[0])) return fmt::format("X has {} rows but Y has {}", x.d[0], y.d[0]);
  if (!dims_agree(w.d[1], x.d[1]) || !dims_agree(w.d[2], y.d[1]))
    return fmt::format("Weight {} needs [K, {}, {}] for X {} and Y {}", w.str(), x.d[1], y.d[1], x.str(), y.str());
  if (bias && (bias->rank != 2 || !dims_agree(bias->d[0], 1) || !dims_agree(bias->d[1], w.d[0])))
    return fmt::format("Bias must be [1, {}], got {}", w.d[0], bias->str());
  out = Shape{x.d[0] >= 0 ? x.d[0] : y.d[0], w.d[0]};
  return {};
}

}  // namespace fluidc::shapes
