// kernels/shapes/lerp.h - lerp's broadcast of X, Y and Weight, for kernels and compiler.
#pragma once

#include <string>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Out is the numpy broadcast of X, Y and Weight; xa / ya / wa are the three
/// aligned to Out's rank (leading 1s).
inline std::string lerp_shape(const Shape& x, const Shape& y, const Shape& w, Shape& xa, Shape& ya, Shape& wa,
                              Shape& out) {
  Shape a, b, xy;
  if (std::string e = broadcast_numpy(x, y, a, b, xy); !e.empty()) return "X and Y: " + e;
  if (std::string e = broadcast_numpy(xy, w, a, b, out); !e.empty()) return "X, Y and Weight: " + e;
  wa = b;
  Shape o;
  broadcast_numpy(x, out, xa, a, o);
  broadcast_numpy(y, out, ya, a, o);
  return {};
}

}  // namespace fluidc::shapes
