// kernels/shapes/flip_tril.h - the checks of flip and tril_triu (Out keeps X's shape), for kernels and compiler.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/tensor_manip_more.h"

namespace fluidc::shapes {

/// flip's axes mapped into [0, rank) as a mask per dim, or the reason they are invalid.
inline std::string flip_axes(const Shape& x, const kernels::FlipAttrs& a, bool (&flipped)[Shape::kMaxRank]) {
  for (bool& f : flipped) f = false;
  for (int ax : a.axis) {
    const int d = ax < 0 ? ax + x.rank : ax;
    if (d < 0 || d >= x.rank) return fmt::format("axis {} is out of range for X {}", ax, x.str());
    if (flipped[d]) return fmt::format("axis {} is given twice", ax);
    flipped[d] = true;
  }
  return {};
}

/// tril_triu works on the last two dims.
inline std::string tril_triu_check(const Shape& x) {
  if (x.rank < 2) return fmt::format("X {} must have rank >= 2", x.str());
  return {};
}

}  // namespace fluidc::shapes
