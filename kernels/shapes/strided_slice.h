// kernels/shapes/strided_slice.h - which elements strided_slice takes along each axis, for kernels and compiler.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include <fmt/format.h>

#include "kernels/shapes/broadcast.h"
#include "kernels/strided_slice.h"

namespace fluidc::shapes {

/// Per input dim: the first element taken, the signed step to the next, and
/// (in `size`) how many; untouched dims take all with step 1.
struct StridedWindow {
  int64_t first[Shape::kMaxRank] = {};
  int64_t step[Shape::kMaxRank] = {};
  Shape size;
};

/// One axis of dim n: first element, step and count for start s, end e,
/// stride t, with Paddle's normalisation (kernels/strided_slice.h). Bounds
/// that Paddle refuses, or that its kernel would read past the dim with,
/// are errors.
inline std::string strided_axis(int64_t n, int64_t s, int64_t e, int64_t t, bool take_last, int64_t& first,
                                int64_t& count) {
  if (t == 0) return "stride must not be 0";
  if (take_last) {
    if (n < 1) return "takes the last element of an empty dim";
    first = n - 1;
    count = 1;
    return {};
  }
  if (s < 0) s = std::max<int64_t>(s + n, 0);
  if (e < 0 && !(e == -1 && t < 0)) e = std::max<int64_t>(e + n, 0);
  if (t > 0) {
    if (s > e) return fmt::format("start {} is after end {} for stride {}", s, e, t);
    if (s > n) return fmt::format("start {} is past the dim's {} elements", s, n);
    first = s;
    count = (std::min(n, e) - s + t - 1) / t;
    return {};
  }
  if (s < e) return fmt::format("start {} is before end {} for stride {}", s, e, t);
  if (e >= n) return fmt::format("end {} is past the dim's {} elements for stride {}", e, n, t);
  first = std::min(s, n - 1);
  count = (first - e + (-t) - 1) / (-t);
  return {};
}

/// The window of Input `in`. `starts`/`ends`/`strides` are the values in
/// effect (one per axis); nullopt when known only at run time (compiler),
/// which leaves those axes' sizes unknown, as do infer_flags of -1 when
/// `compile_time`.
inline std::string strided_slice_window(const Shape& in, const kernels::StridedSliceAttrs& a,
                                        std::optional<std::span<const int64_t>> starts,
                                        std::optional<std::span<const int64_t>> ends,
                                        std::optional<std::span<const int64_t>> strides, bool compile_time,
                                        StridedWindow& w) {
  const size_t na = a.axes.size();
  for (auto [v, what] : {std::pair{starts, "starts"}, std::pair{ends, "ends"}, std::pair{strides, "strides"}})
    if (v && v->size() != na) return fmt::format("{} has {} values for {} axes", what, v->size(), na);
  if (!a.infer_flags.empty() && a.infer_flags.size() != na)
    return fmt::format("infer_flags has {} values for {} axes", a.infer_flags.size(), na);
  w = StridedWindow{};
  w.size = in;
  for (int d = 0; d < in.rank; ++d) w.step[d] = 1;
  bool seen[Shape::kMaxRank] = {};
  for (size_t k = 0; k < na; ++k) {
    const int axis = a.axes[k] < 0 ? a.axes[k] + in.rank : a.axes[k];
    if (axis < 0 || axis >= in.rank)
      return fmt::format("axes {} is out of range for a rank-{} tensor", a.axes[k], in.rank);
    if (seen[axis]) return fmt::format("axis {} is given twice", a.axes[k]);
    seen[axis] = true;
    const int flag = a.infer_flags.empty() ? 1 : a.infer_flags[k];
    const bool decreased = std::find(a.decrease_axis.begin(), a.decrease_axis.end(), axis) != a.decrease_axis.end();
    const bool take_last = starts && ends && (*starts)[k] == -1 && (*ends)[k] == 0 && flag == -1 && decreased;
    const int64_t n = in.d[axis];
    if (!take_last && (!starts || !ends || !strides || n < 0 || (compile_time && flag == -1))) {
      w.size.d[axis] = decreased ? 1 : kUnknown;
      continue;
    }
    int64_t first = 0, count = 0;
    if (std::string e = strided_axis(n, take_last ? -1 : (*starts)[k], take_last ? 0 : (*ends)[k],
                                     strides ? (*strides)[k] : 1, take_last, first, count);
        !e.empty())
      return fmt::format("axis {}: {}", a.axes[k], e);
    w.first[axis] = first;
    w.step[axis] = strides && !take_last ? (*strides)[k] : 1;
    w.size.d[axis] = count;
  }
  return {};
}

/// Out's shape: the window without the decrease_axis dims (each of size 1);
/// [1] when none is left, as Paddle's kernel gives.
inline std::string strided_slice_out_shape(const Shape& window, const std::vector<int>& decrease_axis, Shape& out) {
  out = Shape{};
  for (int i = 0; i < window.rank; ++i) {
    const bool drop = std::find(decrease_axis.begin(), decrease_axis.end(), i) != decrease_axis.end();
    if (drop && !dims_agree(window.d[i], 1)) return fmt::format("decrease_axis {} has size {}, not 1", i, window.d[i]);
    if (!drop) out.d[out.rank++] = window.d[i];
  }
  for (int d : decrease_axis)
    if (d < 0 || d >= window.rank) return fmt::format("decrease_axis {} is out of range", d);
  if (out.rank == 0 && window.rank > 0) out.d[out.rank++] = 1;
  return {};
}

}  // namespace fluidc::shapes
