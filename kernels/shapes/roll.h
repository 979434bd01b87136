// kernels/shapes/roll.h - roll's shift per dim from its shifts and axes, for kernels and compiler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// The net shift of each dim of X in [0, dim) (`flat`: X is rolled as one
/// sequence of numel elements by shift[0]), or the reason the shifts and axes
/// are invalid. Paddle's rule: without axes exactly one shift; otherwise one
/// shift per axis, each axis in [-rank, rank).
inline std::string roll_plan(const Shape& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& axis,
                             int64_t (&shift)[Shape::kMaxRank], bool& flat) {
  for (int64_t& s : shift) s = 0;
  flat = axis.empty();
  auto wrap = [](int64_t s, int64_t n) { return n <= 0 ? 0 : ((s % n) + n) % n; };
  if (flat) {
    if (shifts.size() != 1)
      return fmt::format("without axes roll takes one shift, got {}", shifts.size());
    const int64_t n = numel_of(x, 0, x.rank);
    shift[0] = n < 0 ? shifts[0] : wrap(shifts[0], n);
    return {};
  }
  if (shifts.size() != axis.size())
    return fmt::format("{} shifts for {} axes: roll takes one shift per axis", shifts.size(), axis.size());
  for (size_t k = 0; k < axis.size(); ++k) {
    const int64_t d = axis[k] < 0 ? axis[k] + x.rank : axis[k];
    if (d < 0 || d >= x.rank) return fmt::format("axis {} is out of range for X {}", axis[k], x.str());
    shift[d] += shifts[k];
  }
  for (int d = 0; d < x.rank; ++d)
    if (x.d[d] >= 0) shift[d] = wrap(shift[d], x.d[d]);
  return {};
}

}  // namespace fluidc::shapes
