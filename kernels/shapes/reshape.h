// kernels/shapes/reshape.h - the shape rules of flatten_contiguous_range, flatten2, squeeze2 and unsqueeze2.
#pragma once

#include <vector>

#include "kernels/reshape.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// flatten_contiguous_range: dims start..stop multiply into one (unknown
/// when any of them is); a 0-D X gives [1], as in Paddle.
inline std::string flatten_shape(const Shape& x, const kernels::FlattenAttrs& a, Shape& out) {
  out = Shape{};
  if (x.rank == 0) {
    out = Shape{1};
    return {};
  }
  const int start = a.start_axis < 0 ? a.start_axis + x.rank : a.start_axis;
  const int stop = a.stop_axis < 0 ? a.stop_axis + x.rank : a.stop_axis;
  if (start < 0 || start >= x.rank || stop < 0 || stop >= x.rank)
    return fmt::format("start_axis {} / stop_axis {} out of range for a rank-{} tensor", a.start_axis, a.stop_axis,
                       x.rank);
  if (start > stop) return fmt::format("start_axis {} is after stop_axis {}", a.start_axis, a.stop_axis);
  for (int i = 0; i < start; ++i) out.d[out.rank++] = x.d[i];
  out.d[out.rank++] = numel_of(x, start, stop + 1);
  for (int i = stop + 1; i < x.rank; ++i) out.d[out.rank++] = x.d[i];
  return {};
}

/// flatten2 (Fluid 1.x): [prod(dims before axis), prod(dims from axis)]
/// (unknown when any of them is); axis 0 gives [1, numel].
inline std::string flatten2_shape(const Shape& x, const kernels::Flatten2Attrs& a, Shape& out) {
  if (a.axis < 0 || a.axis > x.rank) return fmt::format("axis {} is out of range [0, {}]", a.axis, x.rank);
  out = Shape{numel_of(x, 0, a.axis), numel_of(x, a.axis, x.rank)};
  return {};
}

/// squeeze2: drops the listed dims that are 1 (all size-1 dims when none
/// are listed); a listed dim of unknown size is taken to be 1, as Paddle's
/// compile-time rule does.
template <class Int>
std::string squeeze_shape(const Shape& x, const std::vector<Int>& axes, Shape& out) {
  bool drop[Shape::kMaxRank] = {};
  for (Int ax : axes) {
    const int64_t a = ax < 0 ? ax + x.rank : ax;
    if (x.rank == 0 && (ax == 0 || ax == -1)) continue;  // squeezing a 0-D tensor leaves it
    if (a < 0 || a >= x.rank) return fmt::format("axis {} is out of range for a rank-{} tensor", ax, x.rank);
    drop[a] = x.d[a] == 1 || x.d[a] == kUnknown;
  }
  if (axes.empty())
    for (int i = 0; i < x.rank; ++i) drop[i] = x.d[i] == 1;
  out = Shape{};
  for (int i = 0; i < x.rank; ++i)
    if (!drop[i]) out.d[out.rank++] = x.d[i];
  return {};
}

/// unsqueeze2, Paddle's rule: each axis in turn marks a new size-1 dim at
/// position `axis` (negative: axis + rank so far + 1) in the output, moving
/// earlier marks at or after it one place on; X's dims fill the unmarked
/// places in order.
template <class Int>
std::string unsqueeze_shape(const Shape& x, const std::vector<Int>& axes, Shape& out) {
  const int64_t rank = x.rank + static_cast<int64_t>(axes.size());
  if (rank > Shape::kMaxRank) return fmt::format("the result would have {} dims (at most 9)", rank);
  bool mark[Shape::kMaxRank + 1] = {};
  int64_t cur_rank = x.rank;
  for (Int ax : axes) {
    const int64_t cur = ax < 0 ? ax + cur_rank + 1 : ax;
    if (cur < 0 || cur > cur_rank)
      return fmt::format("axis {} is out of range for a rank-{} tensor being unsqueezed", ax, cur_rank);
    for (int64_t i = cur_rank; i >= cur; --i)
      if (mark[i]) {
        mark[i + 1] = true;
        mark[i] = false;
      }
    mark[cur] = true;
    ++cur_rank;
  }
  out = Shape{};
  out.rank = static_cast<int>(rank);
  for (int i = 0, k = 0; i < out.rank; ++i) out.d[i] = mark[i] ? 1 : x.d[k++];
  return {};
}

}  // namespace fluidc::shapes
