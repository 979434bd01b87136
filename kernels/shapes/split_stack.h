// kernels/shapes/split_stack.h - the shape rules of split, stack and unstack, for kernels and compiler.
#pragma once

#include <vector>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Maps axis into [0, rank); "" or the reason.
inline std::string axis_in(int axis, int rank, int& out) {
  out = axis < 0 ? axis + rank : axis;
  if (out < 0 || out >= rank) return fmt::format("axis {} is out of range for a rank-{} tensor", axis, rank);
  return {};
}

/// split's n Out shapes (written to outs[0..n)): `num` equal parts when
/// num > 0, else the parts in `sections` (one -1 takes the rest). `sections`
/// is nullptr when the sizes are known only at run time (the split dim of
/// every Out is then unknown). `axis` is canonical.
template <class Int>
std::string split_shapes(const Shape& x, int axis, int num, const std::vector<Int>* sections, int n, Shape* outs) {
  const int64_t dim = x.d[axis];
  for (int i = 0; i < n; ++i) outs[i] = x;
  if (num > 0) {
    if (n != num) return fmt::format("num is {} but there are {} outputs", num, n);
    if (dim >= 0 && dim % num) return fmt::format("dim {} of X {} does not split into {} equal parts", axis, x.str(), num);
    for (int i = 0; i < n; ++i) outs[i].d[axis] = dim < 0 ? kUnknown : dim / num;
    return {};
  }
  if (!sections) {
    for (int i = 0; i < n; ++i) outs[i].d[axis] = kUnknown;
    return {};
  }
  if (static_cast<int>(sections->size()) != n)
    return fmt::format("sections has {} sizes but there are {} outputs", sections->size(), n);
  int infer = -1;
  int64_t known = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t s = (*sections)[i];
    if (s == -1) {
      if (infer >= 0) return "sections has more than one -1";
      infer = i;
    } else if (s < 0) {
      return fmt::format("sections[{}] is {}", i, s);
    } else {
      known += s;
    }
    outs[i].d[axis] = s;
  }
  if (dim < 0) {
    if (infer >= 0) outs[infer].d[axis] = kUnknown;
    return {};
  }
  if (infer >= 0) {
    if (known > dim) return fmt::format("sections add up to more than dim {} ({}) of X", axis, dim);
    outs[infer].d[axis] = dim - known;
  } else if (known != dim) {
    return fmt::format("sections add up to {} but dim {} of X is {}", known, axis, dim);
  }
  return {};
}

/// stack's Y: n inputs of one shape (shape_at(i)) with a new dim of size n
/// inserted at `axis` (in [-(r+1), r]); writes the canonical axis.
template <class ShapeAt>
std::string stack_shape(int n, ShapeAt shape_at, int axis_attr, Shape& out, int& axis) {
  if (n < 1) return "needs at least one input";
  Shape first = shape_at(0);
  if (first.rank >= Shape::kMaxRank) return "X has too many dims to stack";
  if (std::string e = axis_in(axis_attr, first.rank + 1, axis); !e.empty()) return e;
  for (int i = 1; i < n; ++i) {
    const Shape& si = shape_at(i);
    bool ok = si.rank == first.rank;
    for (int d = 0; ok && d < si.rank; ++d) {
      ok = dims_agree(first.d[d], si.d[d]);
      if (first.d[d] < 0) first.d[d] = si.d[d];
    }
    if (!ok) return fmt::format("X #{} is {} but X #0 is {}", i, si.str(), shape_at(0).str());
  }
  out.rank = first.rank + 1;
  for (int d = 0, s = 0; d < out.rank; ++d) out.d[d] = d == axis ? n : first.d[s++];
  return {};
}

/// unstack's Y (each of the n outputs): X without dim `axis`, which must be n.
inline std::string unstack_shape(const Shape& x, int axis_attr, int n, Shape& y, int& axis) {
  if (std::string e = axis_in(axis_attr, x.rank, axis); !e.empty()) return e;
  if (!dims_agree(x.d[axis], n)) return fmt::format("dim {} of X {} is not the {} outputs", axis, x.str(), n);
  y.rank = x.rank - 1;
  for (int d = 0, s = 0; d < x.rank; ++d)
    if (d != axis) y.d[s++] = x.d[d];
  return {};
}

}  // namespace fluidc::shapes
