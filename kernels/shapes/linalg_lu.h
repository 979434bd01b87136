// kernels/shapes/linalg_lu.h - shape rules of inverse, determinant, slogdeterminant and matrix_power, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/linalg_lu.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// A batch of square matrices [..., n, n]; `role` names the input in the reason.
inline std::string square_batch(const Shape& x, const char* role = "Input") {
  if (x.rank < 2) return fmt::format("{} {} must have rank >= 2 (a batch of square matrices)", role, x.str());
  if (!dims_agree(x.d[x.rank - 2], x.d[x.rank - 1]))
    return fmt::format("{} {}'s last two dims must be equal (square matrices)", role, x.str());
  return {};
}

/// inverse and matrix_power: Out is X's shape.
inline std::string same_square_shape(const Shape& x, const char* role, Shape& out) {
  if (std::string e = square_batch(x, role); !e.empty()) return e;
  out = x;
  return {};
}

/// determinant: the batch dims (0-D for one matrix).
inline std::string determinant_shape(const Shape& x, Shape& out) {
  if (std::string e = square_batch(x); !e.empty()) return e;
  out = Shape::from(x.d, x.rank - 2);
  return {};
}

/// slogdeterminant: [2, batch dims...] (sign, then log |det|).
inline std::string slogdeterminant_shape(const Shape& x, Shape& out) {
  if (std::string e = square_batch(x); !e.empty()) return e;
  out.rank = x.rank - 1;
  out.d[0] = 2;
  for (int i = 0; i < x.rank - 2; ++i) out.d[i + 1] = x.d[i];
  return {};
}

}  // namespace fluidc::shapes
