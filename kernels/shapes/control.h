// kernels/shapes/control.h - the shape rule of increment (a loop counter), for kernels and compiler.
#pragma once

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// increment: X must hold exactly one element (unknown dims may); Out has X's shape.
inline std::string increment_shape(const Shape& x, Shape& out) {
  const int64_t n = numel_of(x, 0, x.rank);
  if (n >= 0 && n != 1) return fmt::format("X must hold one element, got shape {}", x.str());
  out = x;
  return {};
}

}  // namespace fluidc::shapes
