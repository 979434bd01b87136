// kernels/shapes/repeat_put.h - shape rules of repeat_interleave and put_along_axis, for kernels and compiler.
#pragma once

#include <string>

#include <fmt/format.h>

#include "kernels/repeat_put.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Out: X with dim `axis` times Repeats, or kUnknown with a RepeatsTensor
/// (its sum); `repeats` (may be null) must be 1-D of X's dim length.
inline std::string repeat_interleave_shape(const Shape& x, const Shape* repeats, const kernels::RepeatInterleaveAttrs& a,
                                           int& axis, Shape& out) {
  const int rank = x.rank == 0 ? 1 : x.rank;
  axis = a.dim < 0 ? a.dim + rank : a.dim;
  if (axis < 0 || axis >= rank) return fmt::format("dim {} is out of range for X {}", a.dim, x.str());
  out = x.rank == 0 ? Shape{1} : x;
  if (repeats) {
    if (repeats->rank != 1 || !dims_agree(repeats->d[0], out.d[axis]))
      return fmt::format("RepeatsTensor {} must be 1-D with X's dim {} size {}", repeats->str(), a.dim, out.d[axis]);
    out.d[axis] = kUnknown;
    return {};
  }
  if (a.Repeats < 0) return fmt::format("Repeats {} must not be negative", a.Repeats);
  if (out.d[axis] >= 0) out.d[axis] *= a.Repeats;
  return {};
}

/// put_along_axis: Index of Input's rank, no dim beyond Input's (except
/// Axis), Value of Index's shape, a known Reduce.
inline std::string put_along_axis_check(const Shape& in, const Shape& index, const Shape& value,
                                        const kernels::PutAlongAxisAttrs& a, int& axis) {
  if (a.Reduce != "assign" && a.Reduce != "add" && a.Reduce != "mul" && a.Reduce != "multiply")
    return fmt::format("Reduce '{}' is not supported (assign, add, mul, multiply)", a.Reduce);
  if (in.rank == 0) return "Input must have rank >= 1";
  axis = a.Axis < 0 ? a.Axis + in.rank : a.Axis;
  if (axis < 0 || axis >= in.rank) return fmt::format("Axis {} is out of range for Input {}", a.Axis, in.str());
  if (index.rank != in.rank) return fmt::format("Index {} must have Input {}'s rank", index.str(), in.str());
  for (int i = 0; i < in.rank; ++i)
    if (i != axis && in.d[i] >= 0 && index.d[i] > in.d[i])
      return fmt::format("Index {} is larger than Input {} in dim {}", index.str(), in.str(), i);
  if (value.rank != index.rank) return fmt::format("Value {} must have Index {}'s shape", value.str(), index.str());
  for (int i = 0; i < index.rank; ++i)
    if (!dims_agree(value.d[i], index.d[i]))
      return fmt::format("Value {} must have Index {}'s shape", value.str(), index.str());
  return {};
}

}  // namespace fluidc::shapes
