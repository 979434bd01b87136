// kernels/shapes/tensor_manip.h - the shape rules of reshape2, slice and concat, for kernels and compiler.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "kernels/shapes/broadcast.h"
#include "kernels/tensor_manip.h"

namespace fluidc::shapes {

/// reshape2's Out: a 0 in `shape` copies X's dim at that index, one -1 is
/// inferred from X's element count, the rest are taken as given; the
/// element counts must match. With an unknown X dim the -1 stays unknown.
/// `shape` is the attribute's or the values of a run-time shape tensor
/// (a template so that neither needs converting: kernels allocate nothing
/// in steady state).
template <class Int>
std::string reshape2_shape(const Shape& x, const std::vector<Int>& shape, Shape& out) {
  out = Shape{};
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (out.rank == Shape::kMaxRank) return "shape has more than 9 dims";
    if (d == 0) {
      if (static_cast<int>(i) >= x.rank) return fmt::format("shape[{}] = 0 but X is {}", i, x.str());
      d = x.d[i];
      if (d < 0) {  // a run-time dim copied: known only at run time
        out.d[out.rank++] = kUnknown;
        continue;
      }
    } else if (d == -1) {
      if (infer >= 0) return "more than one -1 in shape";
      infer = out.rank;
    } else if (d < 0) {
      return fmt::format("invalid dim {} in shape", d);
    }
    if (d >= 0) known *= d;
    out.d[out.rank++] = d;
  }
  const int64_t total = numel_of(x, 0, x.rank);
  if (total < 0) return {};  // counts are checked when X's dims are known
  if (infer >= 0) {
    if (known == 0 || total % known) return fmt::format("cannot reshape X {} to {}", x.str(), out.str());
    out.d[infer] = total / known;
  }
  if (out.numel() != total)
    return fmt::format("X {} has {} elements but shape {} has {}", x.str(), total, out.str(), out.numel());
  return {};
}

inline std::string reshape2_shape(const Shape& x, const kernels::Reshape2Attrs& a, Shape& out) {
  return reshape2_shape(x, a.shape, out);
}

/// The window a slice keeps: per input dim, its first index and its length.
struct SliceWindow {
  int64_t begin[Shape::kMaxRank] = {};
  Shape size;
};

/// slice: each listed axis keeps [start, end) clamped to the dim (negative
/// bounds count from the end). `starts`/`ends` are the bounds in effect (the
/// attribute's, or the values of Paddle's StartsTensor/EndsTensor inputs,
/// which win; `starts_from`/`ends_from` name them in errors); empty when
/// they come from tensors known only at run time, which leaves the sliced
/// dims unknown. Spans, so that the kernel passes a stack buffer (no heap
/// allocation inside a step).
inline std::string slice_window(const Shape& in, const kernels::SliceAttrs& a,
                                std::optional<std::span<const int64_t>> starts,
                                std::optional<std::span<const int64_t>> ends, SliceWindow& w,
                                const char* starts_from = "starts", const char* ends_from = "ends") {
  for (auto [v, from] : {std::pair{starts, starts_from}, std::pair{ends, ends_from}})
    if (v && v->size() != a.axes.size())
      return fmt::format("{} has {} values for {} axes", from, v->size(), a.axes.size());
  w = SliceWindow{};
  w.size = in;
  for (size_t k = 0; k < a.axes.size(); ++k) {
    const int axis = a.axes[k] < 0 ? a.axes[k] + in.rank : a.axes[k];
    if (axis < 0 || axis >= in.rank)
      return fmt::format("axes {} is out of range for a rank-{} tensor", a.axes[k], in.rank);
    const int64_t dim = in.d[axis];
    if (dim < 0 || !starts || !ends) {
      w.size.d[axis] = kUnknown;
      continue;
    }
    auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
    const int64_t first = clamp((*starts)[k]), last = clamp((*ends)[k]);
    w.begin[axis] = first;
    w.size.d[axis] = std::max<int64_t>(0, last - first);
  }
  return {};
}

/// slice's Out: the window's shape without the decrease_axis dims, each of
/// which must have size 1.
inline std::string slice_out_shape(const Shape& window, const std::vector<int>& decrease_axis, Shape& out) {
  out = Shape{};
  for (int i = 0; i < window.rank; ++i) {
    const bool drop = std::find(decrease_axis.begin(), decrease_axis.end(), i) != decrease_axis.end();
    if (drop && !dims_agree(window.d[i], 1)) return fmt::format("decrease_axis {} has size {}, not 1", i, window.d[i]);
    if (!drop) out.d[out.rank++] = window.d[i];
  }
  return {};
}

/// concat's Out: n inputs (shape_at(i) gives the i-th shape) of one rank
/// that agree off `axis`, summed along it. Writes the canonical axis.
template <class ShapeAt>
std::string concat_shape(int n, ShapeAt shape_at, const kernels::ConcatAttrs& a, Shape& out, int& axis) {
  if (n < 1) return "needs at least one input";
  const Shape& first = shape_at(0);
  axis = a.axis < 0 ? a.axis + first.rank : a.axis;
  if (axis < 0 || axis >= first.rank)
    return fmt::format("axis {} is out of range for a rank-{} tensor", a.axis, first.rank);
  out = first;
  out.d[axis] = 0;
  for (int i = 0; i < n; ++i) {
    const Shape& si = shape_at(i);
    bool ok = si.rank == first.rank;
    for (int d = 0; ok && d < si.rank; ++d) {
      if (d == axis) continue;
      ok = dims_agree(out.d[d], si.d[d]);
      if (out.d[d] < 0) out.d[d] = si.d[d];  // a later input may know the dim
    }
    if (!ok) return fmt::format("X #{} is {} but X #0 is {} (axis {})", i, si.str(), first.str(), axis);
    out.d[axis] = out.d[axis] < 0 || si.d[axis] < 0 ? kUnknown : out.d[axis] + si.d[axis];
  }
  return {};
}

}  // namespace fluidc::shapes
