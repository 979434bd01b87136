// kernels/shapes/atan2.h - atan2's shape rule (X1 and X2 alike, no broadcasting), for kernels and compiler (-1: known at run time).
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Paddle's atan2 does not broadcast: X1 and X2 have one rank and equal dims
/// (a -1 passes).
inline std::string atan2_check(const rt::Shape& x1, const rt::Shape& x2) {
  bool same = x1.rank == x2.rank;
  for (int i = 0; same && i < x1.rank; ++i)
    if (x1.d[i] >= 0 && x2.d[i] >= 0 && x1.d[i] != x2.d[i]) same = false;
  if (!same) return fmt::format("X1 {} and X2 {} must have one shape (atan2 does not broadcast)", x1.str(), x2.str());
  return "";
}

}  // namespace fluidc::shapes
