// kernels/cpu/reduce_walk.h - the reduce plan and the joint walk of X and its reduced (kept) shape, shared by the reduce kernels.
#pragma once

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/reduce.h"

namespace fluidc::kernels::detail {

/// The shared rule (kernels/shapes/reduce.h); fails with the op's name.
inline shapes::ReducePlan plan_reduce(const char* op, const Shape& xs, const ReduceAttrs& a) {
  shapes::ReducePlan p;
  require_rule(op, shapes::reduce_shape(xs, a, p));
  return p;
}

/// The joint iteration space of X and of the kept (reduced, keep-dim) shape
/// broadcast back over it: strides[0] walks X, strides[1] the kept tensor.
inline StridedSpace<2> x_and_kept_space(const Shape& xs, const Shape& kept) {
  StridedSpace<2> s;
  s.rank = xs.rank;
  for (int i = 0; i < xs.rank; ++i) s.dims[i] = xs.d[i];
  broadcast_strides(xs, s.strides[0]);
  broadcast_strides(kept, s.strides[1]);
  simplify(s);
  return s;
}

}  // namespace fluidc::kernels::detail
