// kernels/shapes/expand.h - the shape rules of expand_v2, expand_as_v2 and tile, for kernels and compiler.
#pragma once

#include <vector>

#include "kernels/shapes/broadcast.h"

namespace fluidc::shapes {

/// expand_v2's Out: X aligned to the end of `target` (at least X's rank);
/// -1 keeps X's dim, a size-1 dim of X takes any size, other dims must
/// match; new leading dims must be given (> 0).
template <class Int>
std::string expand_shape(const Shape& x, const std::vector<Int>& target, Shape& out) {
  const int t = static_cast<int>(target.size());
  if (t < x.rank) return fmt::format("shape has {} dims, fewer than X {}", t, x.str());
  if (t > Shape::kMaxRank) return fmt::format("shape has {} dims, more than {}", t, Shape::kMaxRank);
  out.rank = t;
  for (int i = 0; i < t; ++i) {
    const int xi = i - (t - x.rank);
    const int64_t v = target[i];
    if (xi < 0) {
      if (v <= 0) return fmt::format("shape[{}] = {} for a new dim (must be positive)", i, v);
      out.d[i] = v;
      continue;
    }
    const int64_t xd = x.d[xi];
    if (v == -1) out.d[i] = xd;
    else if (v < 0) return fmt::format("shape[{}] = {} is invalid", i, v);
    else if (xd == 1 || xd < 0 || xd == v) out.d[i] = v;
    else return fmt::format("cannot expand dim {} of X {} to {}", xi, x.str(), v);
  }
  return {};
}

/// tile's Out: X and repeat_times padded with leading 1s to one rank, then
/// multiplied dim by dim; repeats must be positive.
template <class Int>
std::string tile_shape(const Shape& x, const std::vector<Int>& reps, Shape& out) {
  const int r = std::max<int>(x.rank, static_cast<int>(reps.size()));
  if (r > Shape::kMaxRank) return fmt::format("repeat_times has {} entries, more than {}", reps.size(), Shape::kMaxRank);
  out.rank = r;
  for (int i = 0; i < r; ++i) {
    const int xi = i - (r - x.rank), ri = i - (r - static_cast<int>(reps.size()));
    const int64_t xd = xi < 0 ? 1 : x.d[xi];
    const int64_t rep = ri < 0 ? 1 : static_cast<int64_t>(reps[ri]);
    if (rep <= 0) return fmt::format("repeat_times[{}] = {} (must be positive)", ri, rep);
    out.d[i] = xd < 0 ? kUnknown : xd * rep;
  }
  return {};
}

/// expand (Fluid 1.x): tile_shape with exactly one count per dim of X.
template <class Int>
std::string expand_v1_shape(const Shape& x, const std::vector<Int>& times, Shape& out) {
  if (static_cast<int>(times.size()) != x.rank)
    return fmt::format("expand_times has {} entries for a rank-{} X (one per dim)", times.size(), x.rank);
  return tile_shape(x, times, out);
}

/// fill_constant_batch_size_like's Out: `shape` with dim output_dim_idx
/// replaced by Input's dim input_dim_idx.
template <class Int>
std::string batch_size_like_shape(const Shape& in, const std::vector<Int>& shape, int input_dim_idx,
                                  int output_dim_idx, Shape& out) {
  if (shape.size() > static_cast<size_t>(Shape::kMaxRank)) return "shape has too many dims";
  if (input_dim_idx < 0 || input_dim_idx >= in.rank)
    return fmt::format("input_dim_idx {} is out of range for Input {}", input_dim_idx, in.str());
  if (output_dim_idx < 0 || output_dim_idx >= static_cast<int>(shape.size()))
    return fmt::format("output_dim_idx {} is out of range for shape of {} dims", output_dim_idx, shape.size());
  out.rank = static_cast<int>(shape.size());
  for (int i = 0; i < out.rank; ++i) {
    out.d[i] = shape[i];
    if (i != output_dim_idx && shape[i] < 0) return fmt::format("shape[{}] = {} is not a size", i, shape[i]);
  }
  out.d[output_dim_idx] = in.d[input_dim_idx];
  return {};
}

}  // namespace fluidc::shapes
