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
/// shift per axis, each axis in [-rank, rank). `back` (the gradient) rolls
/// the other way. Each shift is wrapped into its dim before they are added,
/// so no value a program gives overflows. A dim not known yet (the compiler)
/// keeps shift 0.
inline std::string roll_plan(const Shape& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& axis,
                             int64_t (&shift)[Shape::kMaxRank], bool& flat, bool back = false) {
  for (int64_t& s : shift) s = 0;
  flat = axis.empty();
  auto wrap = [](int64_t s, int64_t n) { return n <= 0 ? 0 : ((s % n) + n) % n; };
  auto finish = [&](int64_t& s, int64_t n) { s = n <= 0 ? 0 : back ? (n - wrap(s, n)) % n : wrap(s, n); };
  if (flat) {
    if (shifts.size() != 1)
      return fmt::format("without axes roll takes one shift, got {}", shifts.size());
    const int64_t n = numel_of(x, 0, x.rank);
    shift[0] = shifts[0];
    finish(shift[0], n);
    return {};
  }
  if (shifts.size() != axis.size())
    return fmt::format("{} shifts for {} axes: roll takes one shift per axis", shifts.size(), axis.size());
  for (size_t k = 0; k < axis.size(); ++k) {
    const int64_t d = axis[k] < 0 ? axis[k] + x.rank : axis[k];
    if (d < 0 || d >= x.rank) return fmt::format("axis {} is out of range for X {}", axis[k], x.str());
    shift[d] += wrap(shifts[k], x.d[d]);  // each in [0, dim): the sum cannot overflow
  }
  for (int d = 0; d < x.rank; ++d) finish(shift[d], x.d[d]);
  return {};
}

/// unbind: Out[i] is X without dim `axis`, one per index along it; the
/// number of outputs must be that dim (unless it is unknown, -1).
inline std::string unbind_shape(const Shape& x, int axis, int num_outs, int& a, Shape& out) {
  a = axis < 0 ? axis + x.rank : axis;
  if (a < 0 || a >= x.rank) return fmt::format("axis {} is out of range for X {}", axis, x.str());
  if (x.d[a] >= 0 && x.d[a] != num_outs)
    return fmt::format("X {} has {} entries along axis {} but the op has {} outputs", x.str(), x.d[a], axis,
                       num_outs);
  out.rank = 0;
  for (int i = 0; i < x.rank; ++i)
    if (i != a) out.d[out.rank++] = x.d[i];
  return {};
}

/// meshgrid: each X[i] 1-D (or 0-D: one value); every Out is [len(X[0]), ..., len(X[n-1])].
inline std::string meshgrid_shape(const Shape* xs, int n, Shape& out) {
  if (n < 1 || n > Shape::kMaxRank) return fmt::format("meshgrid takes 1 to {} inputs, got {}", Shape::kMaxRank, n);
  out.rank = n;
  for (int i = 0; i < n; ++i) {
    if (xs[i].rank > 1) return fmt::format("X[{}] {} must be 1-D or 0-D", i, xs[i].str());
    out.d[i] = xs[i].rank == 0 ? 1 : xs[i].d[0];
  }
  return {};
}

}  // namespace fluidc::shapes
