// kernels/shapes/set_value.h - set_value's region and value broadcast, for the kernels and the compiler.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include <fmt/format.h>

#include "kernels/set_value.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// The region set_value writes: per input dim its first index, its step
/// and its length (`count`; untouched dims: 0, 1, the whole dim); `assign`,
/// the dims the value broadcasts to, and for each input dim the assign dim
/// it became (-1 for a decreased dim).
struct SetValueRegion {
  int64_t start[Shape::kMaxRank] = {};
  int64_t step[Shape::kMaxRank] = {};
  Shape count;
  Shape assign;
  int assign_dim[Shape::kMaxRank] = {};
};

/// Fills `r` for Input dims `in`. `starts`/`ends`/`steps` are the bounds in
/// effect (the attributes' or the values of the *TensorList inputs; an
/// empty `steps` means 1s); nullopt when known only at run time, which
/// leaves the axis' length unknown, as does an unknown dim. Paddle's rule
/// (phi's CheckAndUpdateSliceAttrs): a negative start counts from the end,
/// then clamps to [0, dim] (step > 0) or [0, dim - 1] (step < 0); a negative
/// end counts from the end when step > 0, or when below -1 with step < 0
/// (-1 then means "through index 0"); an empty region (end before start in
/// the step's direction) is an error, as in Paddle.
inline std::string set_value_region(const Shape& in, const kernels::SetValueAttrs& a,
                                    std::optional<std::span<const int64_t>> starts,
                                    std::optional<std::span<const int64_t>> ends,
                                    std::optional<std::span<const int64_t>> steps, SetValueRegion& r) {
  const size_t n = a.axes.size();
  for (auto [v, what] : {std::pair{starts, "starts"}, std::pair{ends, "ends"}})
    if (v && v->size() != n) return fmt::format("{} has {} values for {} axes", what, v->size(), n);
  if (steps && !steps->empty() && steps->size() != n)
    return fmt::format("steps has {} values for {} axes", steps->size(), n);
  r = SetValueRegion{};
  r.count = in;
  for (int d = 0; d < in.rank; ++d) r.step[d] = 1;
  bool seen[Shape::kMaxRank] = {};
  for (size_t k = 0; k < n; ++k) {
    const int64_t axis = a.axes[k] < 0 ? a.axes[k] + in.rank : a.axes[k];
    if (axis < 0 || axis >= in.rank)
      return fmt::format("axes {} is out of range for a rank-{} tensor", a.axes[k], in.rank);
    if (seen[axis]) return fmt::format("axis {} is listed twice in axes", axis);
    seen[axis] = true;
    const int64_t step = steps && !steps->empty() ? (*steps)[k] : 1;
    if (step == 0) return fmt::format("steps[{}] is 0", k);
    r.step[axis] = step;
    const int64_t dim = in.d[axis];
    if (dim < 0 || !starts || !ends || !steps) {
      r.count.d[axis] = kUnknown;
      continue;
    }
    if (dim == 0) {
      r.count.d[axis] = 0;
      continue;
    }
    const int64_t s0 = (*starts)[k], e0 = (*ends)[k];
    int64_t start = std::max<int64_t>(s0 < 0 ? s0 + dim : s0, 0);
    int64_t end = std::min<int64_t>(step > 0 && e0 < 0 ? e0 + dim : e0, dim);
    int64_t count;
    if (step > 0) {
      start = std::min(start, dim);
      end = std::max<int64_t>(end, 0);
      if (end < start)
        return fmt::format("axis {}: end {} is before start {} with step {} (the region is [{}, {}))", axis, e0, s0,
                           step, start, end);
      count = (end - start + step - 1) / step;
    } else {
      start = std::min(start, dim - 1);
      if (end < -1) end += dim;
      end = std::max<int64_t>(end, -1);
      if (start < end)
        return fmt::format("axis {}: end {} is after start {} with step {} (the region is ({}, {}])", axis, e0, s0,
                           step, end, start);
      count = (start - end - step - 1) / -step;
    }
    r.start[axis] = start;
    r.count.d[axis] = count;
  }
  // The value's target dims: the region without decreased dims, a 1 at each
  // none axis (Paddle's SetValueImpl walks them in this order).
  for (int64_t d : a.decrease_axes) {
    const int64_t axis = d < 0 ? d + in.rank : d;
    if (axis < 0 || axis >= in.rank)
      return fmt::format("decrease_axes {} is out of range for a rank-{} tensor", d, in.rank);
    if (!dims_agree(r.count.d[axis], 1))
      return fmt::format("decrease_axes {}: the region has {} indices on it, not 1", d, r.count.d[axis]);
  }
  auto decreased = [&](int i) {
    return std::any_of(a.decrease_axes.begin(), a.decrease_axes.end(),
                       [&](int64_t d) { return (d < 0 ? d + in.rank : d) == i; });
  };
  auto push = [&](int64_t v) {
    if (r.assign.rank == Shape::kMaxRank) return false;
    r.assign.d[r.assign.rank++] = v;
    return true;
  };
  size_t none = 0;
  for (int i = 0; i < in.rank; ++i) {
    for (; none < a.none_axes.size() && a.none_axes[none] <= i; ++none)
      if (!push(1)) return "the value's target has more than 9 dims";
    if (decreased(i)) {
      r.assign_dim[i] = -1;
    } else {
      r.assign_dim[i] = r.assign.rank;
      if (!push(r.count.d[i])) return "the value's target has more than 9 dims";
    }
  }
  for (; none < a.none_axes.size(); ++none)
    if (!push(1)) return "the value's target has more than 9 dims";
  return {};
}

/// The value (dims `v`) broadcasts to the region's target dims: aligned at
/// the last dim, each of its dims 1 or equal; extra leading dims must be 1.
/// Writes the value's element stride for each target dim (0 where broadcast).
inline std::string set_value_broadcast(const Shape& v, const Shape& assign, int64_t* stride = nullptr) {
  const int lead = v.rank - assign.rank;
  for (int j = 0; j < lead; ++j)
    if (v.d[j] != 1 && v.d[j] >= 0)
      return fmt::format("value {} does not broadcast to the assigned region {}", v.str(), assign.str());
  int64_t st = 1;
  for (int j = assign.rank - 1; j >= 0; --j) {
    const int vj = j + lead;
    int64_t s = 0;
    if (vj >= 0) {
      const int64_t vd = v.d[vj];
      if (vd != 1 && !dims_agree(vd, assign.d[j]))
        return fmt::format("value {} does not broadcast to the assigned region {}", v.str(), assign.str());
      if (vd != 1) s = st;
      st *= vd < 0 ? 1 : vd;
    }
    if (stride) stride[j] = s;
  }
  return {};
}

}  // namespace fluidc::shapes
