// kernels/shapes/index.h - the shape rules of the index family (kernels/index.h), for kernels and compiler.
#pragma once

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "kernels/index.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// Maps a possibly negative axis into [0, rank), or returns the reason.
inline std::string index_axis(const char* what, int64_t axis, int rank, int& out) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) return fmt::format("{} {} is out of range for a rank-{} tensor", what, axis, rank);
  out = static_cast<int>(a);
  return {};
}

/// The number of indices a gather-like 1-D index holds: a 1-D tensor, or
/// [N, 1] as older programs give it. Returns the reason otherwise.
inline std::string index_count(const char* role, const Shape& index, int64_t& n) {
  if (index.rank == 1 || (index.rank == 2 && index.d[1] == 1)) {
    n = index.d[0];
    return {};
  }
  return fmt::format("{} must be 1-D (or [N, 1]), got {}", role, index.str());
}

/// lookup_table_v2: Ids' dims plus W's row length.
inline std::string lookup_table_v2_shape(const Shape& ids, const Shape& w, Shape& out) {
  if (w.rank != 2) return fmt::format("W must be 2-D, got {}", w.str());
  if (ids.rank + 1 > Shape::kMaxRank) return "Ids has too many dims";
  out = ids;
  out.d[out.rank++] = w.d[1];
  return {};
}

/// gather / index_select: X with the axis replaced by the index count; a
/// 0-D gather index drops the axis.
inline std::string gather_shape(const Shape& x, const Shape& index, int64_t axis, Shape& out, const char* what = "axis") {
  int a = 0;
  if (std::string e = index_axis(what, axis, x.rank, a); !e.empty()) return e;
  out = x;
  if (index.rank == 0) {
    for (int i = a; i + 1 < x.rank; ++i) out.d[i] = x.d[i + 1];
    --out.rank;
    return {};
  }
  int64_t n = 0;
  if (std::string e = index_count("Index", index, n); !e.empty()) return e;
  out.d[a] = n;
  return {};
}

/// index_add: Index 1-D and AddValue shaped as gather_shape gives (-1: any);
/// `a` gets the axis in [0, rank).
inline std::string index_add_shape(const Shape& x, const Shape& index, const Shape& add_value, int64_t axis, int& a) {
  if (index.rank != 1) return fmt::format("Index must be 1-D, got {}", index.str());
  if (std::string e = index_axis("axis", axis, x.rank, a); !e.empty()) return e;
  Shape want;
  if (std::string e = gather_shape(x, index, axis, want); !e.empty()) return e;
  bool agree = add_value.rank == want.rank;
  for (int i = 0; agree && i < want.rank; ++i)
    agree = add_value.d[i] == want.d[i] || add_value.d[i] < 0 || want.d[i] < 0;
  if (!agree)
    return fmt::format("AddValue {} must be X {} with dim {} as long as Index {}", add_value.str(), x.str(), a,
                       index.str());
  return {};
}

/// gather_nd: Index dims[:-1] + X dims[k:], k = Index's last dim.
inline std::string gather_nd_shape(const Shape& x, const Shape& index, Shape& out) {
  if (index.rank < 1) return "Index must have at least 1 dim";
  const int64_t k = index.d[index.rank - 1];
  if (k == kUnknown) return "Index's last dim must be known";
  if (k > x.rank) return fmt::format("Index addresses {} dims but X is {}", k, x.str());
  out = Shape{};
  for (int i = 0; i + 1 < index.rank; ++i) out.d[out.rank++] = index.d[i];
  for (int64_t i = k; i < x.rank; ++i) {
    if (out.rank == Shape::kMaxRank) return "Out would have more than 9 dims";
    out.d[out.rank++] = x.d[i];
  }
  return {};
}

/// scatter: Out is X; Updates must be [N, X dims[1:]...] for N ids.
inline std::string scatter_shape(const Shape& x, const Shape& ids, const Shape& updates, Shape& out) {
  int64_t n = 0;
  if (x.rank < 1) return "X must have at least 1 dim";
  if (std::string e = index_count("Ids", ids, n); !e.empty()) return e;
  bool ok = updates.rank == x.rank && (n == kUnknown || updates.d[0] == kUnknown || updates.d[0] == n);
  for (int i = 1; ok && i < x.rank; ++i)
    ok = x.d[i] == kUnknown || updates.d[i] == kUnknown || x.d[i] == updates.d[i];
  if (!ok) return fmt::format("Updates {} does not fit {} ids into X {}", updates.str(), n, x.str());
  out = x;
  return {};
}

/// one_hot_v2: X's dims plus depth.
inline std::string one_hot_v2_shape(const Shape& x, int64_t depth, Shape& out) {
  if (x.rank + 1 > Shape::kMaxRank) return "X has too many dims";
  out = x;
  out.d[out.rank++] = depth;
  return {};
}

/// arg_max / arg_min.
inline std::string arg_min_max_shape(const Shape& x, const kernels::ArgMinMaxAttrs& a, Shape& out) {
  out = Shape{};
  if (a.flatten || x.rank == 0) {
    if (a.keepdims)
      for (int i = 0; i < x.rank; ++i) out.d[out.rank++] = 1;
    return {};
  }
  int axis = 0;
  if (std::string e = index_axis("axis", a.axis, x.rank, axis); !e.empty()) return e;
  for (int i = 0; i < x.rank; ++i)
    if (i != axis) out.d[out.rank++] = x.d[i];
    else if (a.keepdims) out.d[out.rank++] = 1;
  return {};
}

/// top_k_v2: X with the axis cut to k (kUnknown: k known at run time).
inline std::string top_k_v2_shape(const Shape& x, int64_t k, int axis_attr, Shape& out) {
  out = x;
  if (x.rank == 0) return {};
  int axis = 0;
  if (std::string e = index_axis("axis", axis_attr, x.rank, axis); !e.empty()) return e;
  if (k != kUnknown && (k < 1 || (x.d[axis] != kUnknown && k > x.d[axis])))
    return fmt::format("k = {} is out of range for axis {} of X {}", k, axis, x.str());
  out.d[axis] = k;
  return {};
}

/// cumsum: X, or [numel] with flatten.
inline std::string cumsum_shape(const Shape& x, const kernels::CumsumAttrs& a, Shape& out) {
  if (a.flatten) {
    out = Shape{numel_of(x, 0, x.rank)};
    return {};
  }
  out = x;
  int axis = 0;
  if (x.rank == 0) return {};
  return index_axis("axis", a.axis, x.rank, axis);
}

/// range: the element count of [start, end) by step.
inline std::string range_size(double start, double end, double step, int64_t& n) {
  if (step == 0) return "Step must not be 0";
  if ((step > 0 && start > end) || (step < 0 && start < end))
    return fmt::format("Step {} does not lead from Start {} to End {}", step, start, end);
  const double c = std::ceil(std::abs((end - start) / step));
  if (!(c < 1e12)) return fmt::format("range from {} to {} by {} is too long", start, end, step);
  n = static_cast<int64_t>(c);
  return {};
}

/// take_along_axis: Index must match Input's rank and dims off the axis
/// (kUnknown agrees with anything); Result takes Index's dims.
inline std::string take_along_axis_shape(const Shape& input, const Shape& index, int axis_attr, Shape& out) {
  if (index.rank != input.rank)
    return fmt::format("Index {} must have the rank of Input {}", index.str(), input.str());
  int axis = 0;
  if (std::string e = index_axis("Axis", axis_attr, input.rank, axis); !e.empty()) return e;
  for (int i = 0; i < input.rank; ++i)
    if (i != axis && index.d[i] != input.d[i] && index.d[i] != kUnknown && input.d[i] != kUnknown)
      return fmt::format("Index {} and Input {} differ off Axis {} (dim {})", index.str(), input.str(), axis_attr, i);
  out = index;
  return {};
}

}  // namespace fluidc::shapes
